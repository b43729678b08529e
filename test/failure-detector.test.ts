// The adaptive failure detector on its own, with arrival series whose answer is worked out
// by hand (interval 50, ceiling 250), and wired into a node.
import fc from "fast-check"
import { describe, expect, test } from "vitest"
import { createNode } from "../src/core/algorithms"
import { AdaptiveDetector, FLOOR_INTERVALS, LONG_MEMORY_BLOCKS, MIN_SAMPLES, WINDOW } from "../src/core/failure-detector"
import { Algorithm, Kind, MAX_SEQ } from "../src/core/frame"
import { type Action, ActionType, Role, TIMER_HEARTBEAT, TIMER_WATCH } from "../src/core/contract"
import { frameFrom } from "./helpers"

/** A detector fed heartbeats separated by `gaps`, starting at time 1000. */
function fed(gaps: number[], interval = 50, ceiling = 250): AdaptiveDetector {
  const d = new AdaptiveDetector(interval, ceiling)
  let t = 1000
  d.heartbeat(t)
  for (const g of gaps) d.heartbeat((t += g))
  return d
}
const repeat = (gap: number, n: number) => Array.from({ length: n }, () => gap)

/** Enough clean heartbeats that the loss estimate allows one miss: (0.5 / 601)² < RISK. */
const CLEAN = repeat(50, 600)

describe("adaptive detector: the suspicion delay", () => {
  test("with fewer than MIN_SAMPLES gaps it is the fixed timeout", () => {
    expect(new AdaptiveDetector(50, 250).delay()).toBe(250)
    expect(fed(repeat(50, MIN_SAMPLES - 1)).delay()).toBe(250)
  })

  test("a clean series tolerates fewer misses as evidence grows: 8 gaps 250, 20 gaps 225, 64 gaps 175, 600 gaps 125", () => {
    // 8 clean gaps: loss estimate 0.5/9, whose 5th power is the first under 1e-6: 4 misses, 5·50 + 25, capped
    expect(fed(repeat(50, 8)).delay()).toBe(250)
    // 20: 0.5/21, 4th power 3.2e-7: 3 misses, 4·50 + 25
    expect(fed(repeat(50, 20)).delay()).toBe(225)
    // 64: 0.5/65, cubed 4.6e-7: 2 misses
    expect(fed(repeat(50, WINDOW)).delay()).toBe(175)
    // 600: 0.5/601, squared 6.9e-7: 1 miss, 2·50 + the minimum margin of half an interval
    expect(fed(CLEAN).delay()).toBe(125)
    expect(fed(CLEAN).delay()).toBe(FLOOR_INTERVALS * 50)
  })

  test("the period and the jitter come from the last WINDOW gaps", () => {
    const d = fed([...CLEAN, ...repeat(60, 100), ...repeat(50, WINDOW)])
    expect(d.count).toBe(WINDOW)
    expect(d.period()).toBe(50)
  })

  test("jitter widens the margin to SPREAD_FACTOR standard deviations", () => {
    // gaps 40 and 60 alternating: period 50, σ 10, margin 5σ = 50: 2·50 + 50
    expect(fed([...CLEAN, ...Array.from({ length: WINDOW }, (_, i) => (i % 2 ? 40 : 60))]).delay()).toBe(150)
    // σ 5 gives 25, no more than the minimum margin
    expect(fed([...CLEAN, ...Array.from({ length: WINDOW }, (_, i) => (i % 2 ? 45 : 55))]).delay()).toBe(125)
  })

  test("lost heartbeats raise the tolerated misses", () => {
    // 2 gaps of 100 (one heartbeat lost in each) among 664: loss (2 + 0.5)/667, squared 1.4e-5,
    // cubed 5.3e-8: 2 misses, 3·50 + 25
    expect(fed([...CLEAN, ...repeat(50, 31), 100, ...repeat(50, 31), 100]).delay()).toBe(175)
    expect(fed([...CLEAN, ...repeat(50, 31), 100, ...repeat(50, 31), 100]).lossRate()).toBe(2.5 / 667)
    // one heartbeat in five lost for a long while: patience up to the fixed timeout
    expect(fed(Array.from({ length: 1100 }, (_, i) => (i % 4 === 3 ? 100 : 50))).delay()).toBe(250)
  })

  test("a slow sender's period is learned", () => {
    // heartbeats every 52 (a late timer): 2·52 + 25
    expect(fed(repeat(52, 600)).delay()).toBe(129)
  })

  test("a late timer's period is learned from the median gap (a VM on a loaded machine)", () => {
    // 48 gaps of 60 and 16 of 79 last: period 60, residuals 19 in a quarter of the gaps: σ 9.5;
    // 2·60 + 5·9.5
    expect(fed([...repeat(60, 600), ...repeat(60, 48), ...repeat(79, 16)]).delay()).toBe(167.5)
  })

  test("a pause stays remembered for LONG_MEMORY_BLOCKS × WINDOW heartbeats after it left the window", () => {
    const d = fed([...CLEAN, 180, ...repeat(50, WINDOW)])
    // the window is clean, but the longest gap seen was 180: 180 + 25
    expect(d.delay()).toBe(205)
    expect(d.longestGap()).toBe(180)
    // 17 blocks of clean gaps later it is forgotten
    let t = 1000 + 50 * 600 + 180 + 50 * WINDOW
    for (let i = 0; i < (LONG_MEMORY_BLOCKS + 1) * WINDOW; i++) d.heartbeat((t += 50))
    expect(d.longestGap()).toBe(50)
    expect(d.delay()).toBe(125)
  })

  test("never above the configured failure timeout, never below the floor", () => {
    expect(fed(CLEAN, 50, 120).delay()).toBe(120)
    // heartbeats arriving in bursts (period estimate 40) still get 2.5 intervals
    expect(fed(repeat(40, 600)).delay()).toBe(125)
  })

  test("a silence beyond the ceiling is not a sample; another coordinator starts a new series, clear forgets", () => {
    const d = fed(repeat(50, 10))
    d.heartbeat(1000 + 500 + 5000)
    expect(d.count).toBe(10)
    d.watch(3)
    d.heartbeat(9000)
    expect(d.count).toBe(10)
    d.heartbeat(9050)
    expect(d.count).toBe(11)
    // the same coordinator again (after a false alarm): the silence counts
    d.watch(3)
    d.heartbeat(9250)
    expect(d.count).toBe(12)
    expect(d.longestGap()).toBe(200)
    d.watch(4)
    d.heartbeat(9300)
    expect(d.count).toBe(12)
    d.clear()
    expect(d.count).toBe(0)
    expect(d.delay()).toBe(250)
  })
})

/** As `fed`, the heartbeats numbered: `steps[i]` is how far the number moves at gap i (default 1). */
function numbered(gaps: number[], steps: Record<number, number> = {}, first = 1): AdaptiveDetector {
  const d = new AdaptiveDetector(50, 250)
  let t = 1000
  let seq = first
  d.heartbeat(t, seq)
  gaps.forEach((g, i) => {
    seq = ((seq - 1 + (steps[i] ?? 1)) % MAX_SEQ) + 1
    d.heartbeat((t += g), seq)
  })
  return d
}

describe("adaptive detector: numbered heartbeats tell late from lost", () => {
  // 600 clean gaps, then one of 95 ms, then 63 more clean ones: the window's last 64 hold the 95
  const LATE = [...CLEAN, 95, ...repeat(50, 63)]

  test("a late heartbeat is jitter, not a loss: one miss, a wider margin", () => {
    // unnumbered, 95 ms is 1.9 periods: a loss, (1 + 0.5)/(665 + 1), whose square is 5.1e-6:
    // 2 misses, 3·50 + 25
    expect(fed(LATE).lossRate()).toBe(1.5 / 666)
    expect(fed(LATE).delay()).toBe(175)
    // numbered, it is the next heartbeat, 45 ms late: no loss, (0 + 0.5)/(664 + 1), squared
    // 5.7e-7: 1 miss; σ = √(45²/64) = 5.625, margin 5σ = 28.125: 2·50 + 28.125
    const d = numbered(LATE)
    expect(d.lossRate()).toBe(0.5 / 665)
    expect(d.delay()).toBe(128.125)
  })

  test("a lost numbered heartbeat is a loss", () => {
    // the number moves by 2 over the 100 ms gap: one lost, as the unnumbered count says
    const gaps = [...CLEAN, 100, ...repeat(50, 63)]
    const d = numbered(gaps, { 600: 2 })
    expect(d.lossRate()).toBe(1.5 / 666)
    expect(d.delay()).toBe(fed(gaps).delay())
    expect(d.delay()).toBe(175)
  })

  test("numbers past MAX_SEQ wrap to 1 and count as one", () => {
    const d = numbered(LATE, {}, MAX_SEQ - 300)
    expect(d.lossRate()).toBe(0.5 / 665)
    expect(d.delay()).toBe(128.125)
  })

  test("numbers that cannot be right are not believed: the gap decides", () => {
    // a sender that restarted numbering afresh (back to 1), and one that jumped 10 in 95 ms:
    // both judged from the gap, as unnumbered heartbeats are
    const restarted = numbered(LATE, { 600: MAX_SEQ - 1000 })
    expect(restarted.lossRate()).toBe(1.5 / 666)
    const jumped = numbered(LATE, { 600: 10 })
    expect(jumped.lossRate()).toBe(1.5 / 666)
    expect(jumped.delay()).toBe(175)
  })
})

describe("adaptive detector: numbered heartbeats out of order, and any series at all", () => {
  test("an older number (reordered) is judged by its gap, and the count does not go back", () => {
    // after k, k+2 arrives (50 ms), then k+1 (5 ms later), then k+3 (50 ms later)
    const times = [50, 5, 50]
    const feed = (olderSeq: (k: number) => number) => {
      const d = new AdaptiveDetector(50, 250)
      let t = 1000
      let k = 1
      d.heartbeat(t, k)
      for (let i = 0; i < 600; i++) d.heartbeat((t += 50), ++k)
      d.heartbeat((t += times[0]), k + 2)
      d.heartbeat((t += times[1]), olderSeq(k + 1))
      d.heartbeat((t += times[2]), k + 3)
      k += 3
      for (let i = 0; i < 60; i++) d.heartbeat((t += 50), ++k)
      return d
    }
    const reordered = feed((k) => k)
    const unnumbered = feed(() => 0)
    // the older number counts like an unnumbered heartbeat
    expect(reordered.lossRate()).toBe(unnumbered.lossRate())
    expect(reordered.delay()).toBe(unnumbered.delay())
    // one loss: k+2 overtaking k+1 counts it lost then (1 + 0.5)/(664 + 1); had the count gone
    // back to k+1, k+3 would have counted 2 sent, a second loss
    expect(reordered.lossRate()).toBe(1.5 / 665)
  })

  test("whatever arrives (numbers skipped, repeated, reordered, wrapped; any gaps), the delay stays within its bounds", () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ gap: fc.integer({ min: 0, max: 400 }), seq: fc.integer({ min: 0, max: MAX_SEQ }) }), { maxLength: 300 }),
        (arrivals) => {
          const d = new AdaptiveDetector(50, 250)
          let t = 0
          for (const a of arrivals) {
            d.heartbeat((t += a.gap), a.seq)
            const delay = d.delay()
            expect(delay).toBeGreaterThanOrEqual(FLOOR_INTERVALS * 50)
            expect(delay).toBeLessThanOrEqual(250)
            expect(d.lossRate()).toBeGreaterThanOrEqual(0)
            expect(d.lossRate()).toBeLessThanOrEqual(1)
          }
        },
      ),
      { numRuns: 200 },
    )
  })
})

describe("adaptive detector: its fixed slots hold what plain lists would", () => {
  test("period, longest gap and loss rate equal those of the last WINDOW gaps and LONG_MEMORY_BLOCKS blocks kept as lists, across clears", () => {
    fc.assert(
      fc.property(
        // mostly gaps (some beyond the ceiling), now and then a clear; long enough to wrap the window
        fc.array(fc.oneof({ arbitrary: fc.integer({ min: 1, max: 300 }), weight: 3000 }, { arbitrary: fc.constant(-1), weight: 1 }), {
          minLength: WINDOW * (LONG_MEMORY_BLOCKS + 3),
          maxLength: 2 * WINDOW * (LONG_MEMORY_BLOCKS + 3),
        }),
        (series) => {
          const d = new AdaptiveDetector(50, 250)
          // the reference: unnumbered heartbeats, so every gap counts its periods by the median
          let gaps: number[] = []
          let blocks: { longest: number; received: number; periods: number }[] = []
          let open = { longest: 0, received: 0, periods: 0 }
          const median = () => {
            const s = [...gaps].sort((a, b) => a - b)
            if (s.length < MIN_SAMPLES) return 50
            const m = s.length % 2 ? s[s.length >> 1] : (s[(s.length >> 1) - 1] + s[s.length >> 1]) / 2
            return m > 0 ? m : 50
          }
          let t = 0
          d.heartbeat(t)
          for (const gap of series) {
            if (gap < 0) {
              // a crash: everything forgotten, then a first heartbeat
              d.clear()
              gaps = []
              blocks = []
              open = { longest: 0, received: 0, periods: 0 }
              d.heartbeat(t)
              continue
            }
            const periods = Math.max(1, Math.floor(gap / median() + 0.25))
            d.heartbeat((t += gap))
            if (gap > 250) continue // beyond the ceiling: not a sample
            open = { longest: Math.max(open.longest, gap), received: open.received + 1, periods: open.periods + periods }
            if (open.received >= WINDOW) {
              blocks = [...blocks, open].slice(-LONG_MEMORY_BLOCKS)
              open = { longest: 0, received: 0, periods: 0 }
            }
            gaps = [...gaps, gap].slice(-WINDOW)
          }
          const all = [...blocks, open]
          const received = all.reduce((n, b) => n + b.received, 0)
          const periods = all.reduce((n, b) => n + b.periods, 0)
          expect(d.count).toBe(gaps.length)
          expect(d.period()).toBe(median())
          expect(d.longestGap()).toBe(Math.max(...all.map((b) => b.longest)))
          expect(d.lossRate()).toBeCloseTo((periods - received + 0.5) / (periods + 1), 12)
        },
      ),
      { numRuns: 60 },
    )
  })
})

describe("adaptive detector in a node", () => {
  const timing = (failureDetector?: string) => ({
    answerTimeout: 100,
    coordinatorTimeout: 200,
    heartbeatInterval: 50,
    failureTimeout: 250,
    failureDetector,
  })
  const watchDelays = (out: Action[]) =>
    out.filter((a) => a.type === ActionType.SetTimer && a.timer === TIMER_WATCH).map((a) => (a.type === ActionType.SetTimer ? a.delay : -1))

  function follower(detector?: string) {
    const node = createNode(Algorithm.ImprovedBully, { id: 2, ids: [1, 2, 3], group: 1, timing: timing(detector) })
    const out: Action[] = []
    node.start(0, out)
    return { node, out }
  }

  test("the fixed timeout stays the default", () => {
    const { node, out } = follower()
    expect(watchDelays(out)).toEqual([250])
    const more: Action[] = []
    for (let t = 50; t <= 5000; t += 50) node.receive(frameFrom(Algorithm.ImprovedBully, Kind.HEARTBEAT, 3, 0xffff, { bid: 3 }), t, more)
    expect(watchDelays(more)).toEqual([])
    expect(node.suspicionDelay()).toBe(250)
  })

  test("with 'adaptive' the watch follows the learned delay and suspects 125 after the last heartbeat", () => {
    const { node, out } = follower("adaptive")
    expect(watchDelays(out)).toEqual([250])
    const more: Action[] = []
    let t = 0
    for (let i = 0; i < 700; i++) node.receive(frameFrom(Algorithm.ImprovedBully, Kind.HEARTBEAT, 3, 0xffff, { bid: 3 }), (t += 50), more)
    const delays = watchDelays(more)
    expect(delays.length).toBe(700)
    expect(delays[0]).toBe(250)
    expect(delays[delays.length - 1]).toBe(125)
    // the watch fires 125 after the last heartbeat: silence enough, an election starts
    const fire: Action[] = []
    node.timer(TIMER_WATCH, t + 125, fire)
    expect(node.role).not.toBe(Role.Follower)
    expect(fire.length).toBeGreaterThan(0)
  })

  test("a coordinator numbers its heartbeats 1, 2, 3, ...", () => {
    const node = createNode(Algorithm.ImprovedBully, { id: 3, ids: [1, 2, 3], group: 1, timing: timing("adaptive") })
    const out: Action[] = []
    node.start(0, out)
    for (let t = 50; t <= 150; t += 50) node.timer(TIMER_HEARTBEAT, t, out)
    const seqs = out.flatMap((a) => (a.type === ActionType.Send && a.frame.kind === Kind.HEARTBEAT ? [a.frame.seq] : []))
    expect(seqs).toEqual([1, 2, 3])
  })

  test("a watch that fires early re-arms for the rest of the learned delay", () => {
    const { node } = follower("adaptive")
    let t = 0
    for (let i = 0; i < 700; i++) node.receive(frameFrom(Algorithm.ImprovedBully, Kind.HEARTBEAT, 3, 0xffff, { bid: 3 }), (t += 50), [])
    const out: Action[] = []
    node.timer(TIMER_WATCH, t + 100, out)
    expect(node.role).toBe(Role.Follower)
    expect(watchDelays(out)).toEqual([25])
  })
})
