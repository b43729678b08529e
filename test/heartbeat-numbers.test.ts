// Numbered heartbeats in the adaptive detector: late vs lost, skipped, implausible and
// reordered numbers, the node's wiring through the codec, and a property over any arrivals.
// Interval 50, ceiling 250; the figures are worked out in the comments.
import fc from "fast-check"
import { describe, expect, test } from "vitest"
import { createNode } from "../src/core/algorithms"
import { decodeFrame, encodeFrame } from "../src/core/codec"
import { AdaptiveDetector, FLOOR_INTERVALS, MAX_REORDER } from "../src/core/failure-detector"
import { Algorithm, Kind, MAX_SEQ } from "../src/core/frame"
import { type Action, ActionType, TIMER_HEARTBEAT, TIMER_WATCH } from "../src/core/contract"

/** A detector fed `count` heartbeats 50 apart numbered first, first+1, ... from time 1000; returns it and the last time and number. */
function clean(count = 601, first = 1) {
  const d = new AdaptiveDetector(50, 250)
  let t = 1000
  let seq = first
  d.heartbeat(t, seq)
  for (let i = 1; i < count; i++) {
    seq = seq < MAX_SEQ ? seq + 1 : 1
    d.heartbeat((t += 50), seq)
  }
  return { d, t, seq }
}

describe("numbered heartbeats", () => {
  test("a late heartbeat leaves the loss rate alone and does not shorten the delay", () => {
    // 600 clean gaps: loss (0 + 0.5)/601, delay 125; the next number 95 ms later is late, not lost
    const { d, t, seq } = clean()
    expect(d.delay()).toBe(125)
    d.heartbeat(t + 95, seq + 1)
    expect(d.lossRate()).toBe(0.5 / 602)
    // σ over the window (63 gaps of 50, one 45 late) = √(45²/64) = 5.625: 2·50 + 5·5.625,
    // more patient than before, never less
    expect(d.delay()).toBe(128.125)
  })

  test("skipped numbers are losses, counted by the numbers even where the gap would say fewer", () => {
    // 130 ms is 2.6 periods, which the gap alone reads as 2 (one lost); numbers 3 ahead say 2 lost
    const { d, t, seq } = clean()
    d.heartbeat(t + 130, seq + 3)
    // received 601, periods 603: (2 + 0.5)/604
    expect(d.lossRate()).toBe(2.5 / 604)
    // 2.5/604 squared 1.7e-5, cubed 7.1e-8: 2 misses; σ = √(((130 - 150)²)/64) = 2.5: 3·50 + 25
    expect(d.delay()).toBe(175)
  })

  test("a number further ahead than the gap leaves time for is judged by the gap, and followed", () => {
    const { d, t, seq } = clean()
    // 10 ahead in 95 ms: implausible; the gap reads 2 periods (one lost)
    d.heartbeat(t + 95, seq + 10)
    expect(d.lossRate()).toBe(1.5 / 603)
    // the series continues from the new number: the next one 95 ms late is late, not lost
    d.heartbeat(t + 190, seq + 11)
    expect(d.lossRate()).toBe(1.5 / 604)
    expect(d.count).toBe(64)
    expect(Number.isFinite(d.delay())).toBe(true)
  })

  test("a restarted sender numbering from 1 is judged by the gap once, then its numbers count again", () => {
    // 1000 gaps (within the long memory), last number 1001
    const { d, t } = clean(1001)
    // then 1: a restart; the 95 ms gap reads as one lost (received 1001, periods 1002)
    d.heartbeat(t + 95, 1)
    expect(d.lossRate()).toBe(1.5 / 1003)
    // 2 arrives 95 ms later still: late, not lost (before the fix 2 stayed "behind" 1001 and
    // the gap called it lost, for the next 1000 heartbeats)
    d.heartbeat(t + 190, 2)
    expect(d.lossRate()).toBe(1.5 / 1004)
  })

  test("a wrap from MAX_SEQ to 1 is the next number", () => {
    const { d, t, seq } = clean(601, MAX_SEQ - 600)
    expect(seq).toBe(MAX_SEQ)
    d.heartbeat(t + 95, 1)
    expect(d.lossRate()).toBe(0.5 / 602)
  })

  test("a reordered older number neither counts as a loss nor moves the count back", () => {
    const { d, t, seq } = clean()
    // seq+2 overtakes seq+1: one lost so far (received 601, periods 602)
    d.heartbeat(t + 100, seq + 2)
    expect(d.lossRate()).toBe(1.5 / 603)
    // seq+1 arrives 5 ms later: no further loss (received 602, periods 603)
    d.heartbeat(t + 105, seq + 1)
    expect(d.lossRate()).toBe(1.5 / 604)
    // seq+3 95 ms later is late, not lost, counted from seq+2 (from seq+1 it would look 2 ahead
    // in 95 ms, one lost)
    d.heartbeat(t + 200, seq + 3)
    expect(d.lossRate()).toBe(1.5 / 605)
  })

  test("a number just inside MAX_REORDER behind is a reorder, just outside a restart", () => {
    const inside = clean()
    inside.d.heartbeat(inside.t + 50, inside.seq - MAX_REORDER)
    // not followed: the next number 95 ms later counts from the old last number, one late
    inside.d.heartbeat(inside.t + 145, inside.seq + 1)
    expect(inside.d.lossRate()).toBe(0.5 / 603)
    const outside = clean()
    outside.d.heartbeat(outside.t + 50, outside.seq - MAX_REORDER - 1)
    // followed: the next number is 1 ahead of the restarted series, 95 ms late, not lost
    outside.d.heartbeat(outside.t + 145, outside.seq - MAX_REORDER)
    expect(outside.d.lossRate()).toBe(0.5 / 603)
    // and the old numbering's next is now far ahead of it: judged by the 95 ms gap (one lost)
    outside.d.heartbeat(outside.t + 240, outside.seq + 1)
    expect(outside.d.lossRate()).toBe(1.5 / 605)
  })
})

const timing = { answerTimeout: 100, coordinatorTimeout: 200, heartbeatInterval: 50, failureTimeout: 250, failureDetector: "adaptive" }

describe("numbered heartbeats through a node and the codec", () => {
  test("the coordinator's heartbeats are numbered 1, 2, 3, ... on the wire, and the follower's detector uses them", () => {
    const coordinator = createNode(Algorithm.ImprovedBully, { id: 3, ids: [1, 2, 3], group: 1, timing })
    const follower = createNode(Algorithm.ImprovedBully, { id: 2, ids: [1, 2, 3], group: 1, timing })
    coordinator.start(0, [])
    follower.start(0, [])
    const seqs: number[] = []
    const watch: number[] = []
    let arrival = 0
    // 665 heartbeats, every 50 ms; from the 602nd on they reach the follower 45 ms later
    // (the last 64 gaps hold one of 95)
    for (let i = 1; i <= 665; i++) {
      const out: Action[] = []
      coordinator.timer(TIMER_HEARTBEAT, i * 50, out)
      for (const a of out) {
        if (a.type !== ActionType.Send || a.frame.kind !== Kind.HEARTBEAT) continue
        const encoded = encodeFrame(a.frame)
        expect(encoded.error).toBe(0)
        const decoded = decodeFrame(encoded.bytes)
        expect(decoded.error).toBe(0)
        seqs.push(decoded.frame.seq)
        arrival = i * 50 + (i >= 602 ? 45 : 0)
        const got: Action[] = []
        follower.receive(decoded.frame, arrival, got)
        for (const g of got) if (g.type === ActionType.SetTimer && g.timer === TIMER_WATCH) watch.push(g.delay)
      }
    }
    expect(seqs).toEqual(Array.from({ length: 665 }, (_, i) => i + 1))
    expect(watch.length).toBe(665)
    // as the detector alone: a late heartbeat widens the margin (128.125); unnumbered it would
    // count as lost and 175 (test/failure-detector.test.ts)
    expect(follower.suspicionDelay()).toBe(128.125)
    expect(watch[watch.length - 1]).toBe(128.125)
  })
})

describe("numbered heartbeats: any arrivals", () => {
  // each arrival: a gap (ms, including 0 and beyond the ceiling) and a number step (skips,
  // duplicates, reorders, restarts, unnumbered)
  const arrival = fc.record({
    gap: fc.oneof(fc.integer({ min: 0, max: 120 }), fc.integer({ min: 0, max: 400 })),
    seq: fc.oneof(
      fc.constant(1),
      fc.integer({ min: -5, max: 5 }),
      fc.integer({ min: -MAX_SEQ, max: MAX_SEQ }),
      fc.constant("none" as const),
      fc.constant("restart" as const),
    ),
  })

  test("never throws, the delay stays within [floor, ceiling], and a suspicion needs that much silence", () => {
    fc.assert(
      fc.property(fc.array(arrival, { minLength: 0, maxLength: 300 }), fc.integer({ min: 1, max: MAX_SEQ }), (arrivals, first) => {
        const d = new AdaptiveDetector(50, 250)
        let t = 1000
        let seq = first
        d.heartbeat(t, seq)
        for (const a of arrivals) {
          t += a.gap
          if (a.seq === "restart") seq = 1
          else if (a.seq !== "none") seq = ((((seq - 1 + a.seq) % MAX_SEQ) + MAX_SEQ) % MAX_SEQ) + 1
          d.heartbeat(t, a.seq === "none" ? 0 : seq)
          const delay = d.delay()
          expect(delay).toBeGreaterThanOrEqual(FLOOR_INTERVALS * 50)
          expect(delay).toBeLessThanOrEqual(250)
          const loss = d.lossRate()
          expect(loss).toBeGreaterThan(0)
          expect(loss).toBeLessThanOrEqual(1)
        }
      }),
      { numRuns: 200, seed: 14 },
    )
  })

  test("in a node, the watch after any heartbeat is the detector's delay, and a watch firing earlier does not suspect", () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ gap: fc.integer({ min: 1, max: 200 }), step: fc.integer({ min: -3, max: 4 }) }), { minLength: 1, maxLength: 80 }),
        fc.integer({ min: 1, max: 124 }),
        (arrivals, early) => {
          const follower = createNode(Algorithm.ImprovedBully, { id: 2, ids: [1, 2, 3], group: 1, timing })
          follower.start(0, [])
          let t = 0
          let seq = 1
          for (const a of arrivals) {
            t += a.gap
            seq = ((((seq - 1 + a.step) % MAX_SEQ) + MAX_SEQ) % MAX_SEQ) + 1
            const hb = coordinatorHeartbeat(seq)
            const out: Action[] = []
            follower.receive(hb, t, out)
            const watches = out.flatMap((x) => (x.type === ActionType.SetTimer && x.timer === TIMER_WATCH ? [x.delay] : []))
            expect(watches).toEqual([follower.suspicionDelay()])
          }
          // a watch firing `early` ms after the last heartbeat (less than the floor) re-arms, no election
          const out: Action[] = []
          follower.timer(TIMER_WATCH, t + early, out)
          expect(out.filter((x) => x.type === ActionType.Send)).toEqual([])
          const rearm = out.flatMap((x) => (x.type === ActionType.SetTimer && x.timer === TIMER_WATCH ? [x.delay] : []))
          expect(rearm).toEqual([follower.suspicionDelay() - early])
        },
      ),
      { numRuns: 100, seed: 14 },
    )
  })
})

/** A heartbeat frame from coordinator 3 numbered `seq`, as node 3 sends it (through the codec). */
function coordinatorHeartbeat(seq: number) {
  const coordinator = createNode(Algorithm.ImprovedBully, { id: 3, ids: [1, 2, 3], group: 1, timing: { heartbeatInterval: 50, failureTimeout: 250, answerTimeout: 100, coordinatorTimeout: 200 } })
  coordinator.start(0, [])
  const out: Action[] = []
  coordinator.timer(TIMER_HEARTBEAT, 50, out)
  const sent = out.find((a) => a.type === ActionType.Send && a.frame.kind === Kind.HEARTBEAT)
  if (!sent || sent.type !== ActionType.Send) throw new Error("node 3 sent no heartbeat")
  const decoded = decodeFrame(encodeFrame({ ...sent.frame, seq }).bytes)
  return decoded.frame
}
