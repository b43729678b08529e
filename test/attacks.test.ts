// The attack catalogue (sim/attacks/) against every algorithm: three real firmware drivers with
// their core nodes and auth layers on one wire, under fake timers (test/attack-catalogue.ts;
// twelve boards in test/ci/attacks-12.test.ts), then the hint checks and the measurements.
import { describe, expect, test } from "vitest"
import { AuthRefusal, PROOF_WINDOW_MS, proofWait, RTT_SAMPLE_MS } from "../src/core/auth"
import { Algorithm, BROADCAST } from "../src/core/frame"
import { Role, roleName } from "../src/core/contract"
import { peerUnreachable } from "../src/firmware/driver"
import { challengeReplayFlood, inject, relay } from "../sim/attacks/attacks"
import { ATTACK_KEY, Cluster } from "../sim/attacks/cluster"
import { advance, attackSuite, idsUpTo, SETTLE_MS, settled, useFakeTimers } from "./attack-catalogue"

useFakeTimers()

attackSuite(idsUpTo(3))

/** How long board `on`'s check of a hint about `id` waits now. */
const waitOf = (c: Cluster, on: number, id: number) => {
  const d = c.board(on).driver
  return proofWait(d.auth!, id, d.config.timing.answerTimeout)
}

/** A settled cluster whose followers have measured the coordinator's round trips (one periodic challenge each). */
async function measured(algorithm: Algorithm): Promise<Cluster> {
  const c = await settled(algorithm, 1)
  await advance(RTT_SAMPLE_MS)
  return c
}

describe("hints are checked, not believed", () => {
  test("a real departure fails over within a few round trips: a leave for a silent coordinator is taken after the check", async () => {
    const c = await measured(Algorithm.ImprovedBully)
    const T = c.board(1).driver.config.timing.answerTimeout
    // 5 ms each way on this wire
    const wait = waitOf(c, 2, 3)
    expect(wait).toBeLessThan(T / 2)
    expect(wait).toBeGreaterThanOrEqual(2 * 2 * c.delay)
    await c.board(3).driver.setCrashed(true) // silent, still on the wire
    const at = c.now()
    for (const id of [1, 2]) await c.board(id).driver.peerLeft(3)
    expect(c.board(2).log.at(-1)).toContain(`left=3 check=challenge wait=${wait}`)
    await advance(wait - 1)
    expect(c.coordinators().slice(0, 2)).toEqual([3, 3])
    await advance(1)
    // improved bully: the second-highest takes over at once when the coordinator has left
    expect(c.board(2).driver.role()).toBe(Role.Coordinator)
    expect(c.board(2).log.some((l) => l.includes("left") && l.includes("verdict=silent"))).toBe(true)
    expect(c.now() - at).toBe(wait)
  })

  test("the transport's word that nobody receives the node ends the check at once; a node proven meanwhile stays", async () => {
    const c = await settled(Algorithm.ImprovedBully, 1)
    const T = c.board(1).driver.config.timing.answerTimeout
    await c.board(3).driver.setCrashed(true)
    const d = c.board(2).driver
    await d.peerLeft(3)
    expect(d.checking).toEqual([3])
    await advance(1)
    // nothing for another node, or with no check under way
    await peerUnreachable(d, 1)
    expect(d.coordinator()).toBe(3)
    await peerUnreachable(d, 3)
    expect(d.role()).toBe(Role.Coordinator)
    expect(d.checking).toEqual([])
    expect(c.board(2).log.filter((l) => l.includes("peer=3 verdict=silent"))).toHaveLength(1)
    // the check's own timer, later, finds it ended: no second verdict
    await advance(T)
    expect(c.board(2).log.filter((l) => l.includes("peer=3 verdict=silent"))).toHaveLength(1)
    // a live node that proved itself within the check is not taken as gone on that word
    const e = await settled(Algorithm.ImprovedBully, 2)
    const f = e.board(2).driver
    await f.peerLeft(3)
    await advance(3 * e.delay)
    await peerUnreachable(f, 3)
    expect(e.board(2).log.at(-1)).toContain("peer=3 verdict=alive")
    expect(e.coordinators()).toEqual([3, 3, 3])
  })

  test("checks of several nodes end each on its own", async () => {
    const c = await settled(Algorithm.ImprovedBully, 1)
    const T = c.board(1).driver.config.timing.answerTimeout
    await c.board(3).driver.setCrashed(true)
    const d = c.board(1).driver
    await d.peerLeft(3)
    await d.peerLeft(2)
    expect(d.checking).toEqual([3, 2])
    await peerUnreachable(d, 3)
    expect(d.checking).toEqual([2])
    expect(d.checkEnds).toHaveLength(1)
    await advance(T)
    expect(d.checking).toEqual([])
    expect(c.board(1).log.some((l) => l.includes("peer=2 verdict=alive"))).toBe(true)
    expect(c.board(1).log.filter((l) => l.includes("peer=3 verdict=silent"))).toHaveLength(1)
  })

  test("before any round trip was measured the check waits the answer timeout", async () => {
    const c = await settled(Algorithm.ImprovedBully, 1)
    const T = c.board(1).driver.config.timing.answerTimeout
    expect(waitOf(c, 2, 3)).toBe(T)
    await c.board(3).driver.setCrashed(true)
    await c.board(2).driver.peerLeft(3)
    await advance(T - 1)
    expect(c.board(2).driver.coordinator()).toBe(3)
    await advance(1)
    expect(c.board(2).driver.role()).toBe(Role.Coordinator)
  })

  test("a forged leave for a live coordinator changes nothing: its proof comes within the wait", async () => {
    const c = await measured(Algorithm.ImprovedBully)
    c.watch()
    const wait = waitOf(c, 2, 3)
    for (const id of [1, 2]) await c.board(id).driver.peerLeft(3)
    await advance(wait)
    for (const id of [1, 2]) expect(c.board(id).log.some((l) => l.includes("peer=3 verdict=alive"))).toBe(true)
    await advance(2000)
    expect(c.coordinators()).toEqual([3, 3, 3])
    expect(c.boards.every((b) => b.reports.length === 0)).toBe(true)
  })

  test("a proof later than the wait (a loaded broker): the node is taken as gone, is back with its next frame, and the next check waits past that round trip", async () => {
    const c = await measured(Algorithm.ImprovedBully)
    const wait = waitOf(c, 2, 3)
    // from now on every frame of 3 takes 60 ms more (its proofs, its heartbeats): slower than the wait
    const slow = 60
    expect(wait).toBeLessThan(2 * c.delay + slow)
    c.intercept = (f) => (f.from === 3 ? slow : "pass")
    c.watch()
    await c.board(2).driver.peerLeft(3)
    await advance(wait)
    // too late: 2 took 3 as gone and took over
    expect(c.board(2).log.some((l) => l.includes("peer=3 verdict=silent"))).toBe(true)
    expect(c.board(2).driver.role()).toBe(Role.Coordinator)
    await advance(2000)
    // 3 is alive and the highest: everyone follows it again
    expect(c.coordinators()).toEqual([3, 3, 3])
    // the late proof counted: the next check waits past it, and 3 proves itself in time
    const longer = waitOf(c, 2, 3)
    expect(longer).toBeGreaterThan(2 * c.delay + slow)
    c.watch()
    await c.board(2).driver.peerLeft(3)
    await advance(longer)
    expect(c.board(2).log.at(-1)).toContain("peer=3 verdict=alive")
    await advance(2000)
    expect(c.coordinators()).toEqual([3, 3, 3])
    expect(c.boards.every((b) => b.reports.length === 0)).toBe(true)
  })

  test("a frame sent before the leave does not prove its sender alive: the check waits behind it", async () => {
    const c = await settled(Algorithm.ImprovedBully, 1)
    // board 3's next frames to board 2 are held back, as a busy board leaves them in its inbox
    const held: number[][] = []
    c.intercept = (f) => {
      if (f.from !== 3) return "pass"
      held.push(f.bytes)
      return "drop"
    }
    await advance(1000)
    c.intercept = null
    expect(held.length).toBeGreaterThan(0)
    await c.board(3).driver.setCrashed(true)
    const d = c.board(2).driver
    const auth = d.auth!
    const order: string[] = []
    const open = auth.open.bind(auth)
    auth.open = (bytes, now) => {
      const opened = open(bytes, now)
      order.push(`open ${opened.src}`)
      return opened
    }
    const probe = auth.probe.bind(auth)
    auth.probe = (id, now) => {
      order.push(`probe ${id}`)
      return probe(id, now)
    }
    // a frame from 1 is being handled; 3's last frame and then the leave for 3 arrive
    const fromOne = c.recorded.filter((f) => f.from === 1).at(-1)!
    const handling = [d.receive(Buffer.from(fromOne.bytes)), d.receive(Buffer.from(held.at(-1)!)), d.peerLeft(3)]
    await Promise.all(handling)
    await advance(0)
    expect(order.indexOf("open 3")).toBeGreaterThanOrEqual(0)
    expect(order.indexOf("open 3")).toBeLessThan(order.indexOf("probe 3"))
    await advance(waitOf(c, 2, 3))
    expect(c.board(2).log.some((l) => l.includes("left") && l.includes("verdict=silent"))).toBe(true)
    expect(d.role()).toBe(Role.Coordinator)
  })

  test("a board holding the key and our id is a duplicate: it answers the challenge to our id", async () => {
    const c = await settled(Algorithm.Bully, 1)
    const twin = new (c.board(2).constructor as any)(2)
    await c.boot(2, twin)
    await advance(100)
    await c.board(2).driver.duplicateIdReported()
    await advance(waitOf(c, 2, 2))
    expect(c.board(2).driver.role()).toBe(Role.Misconfigured)
    expect(c.board(2).log.some((l) => l.includes("problem=duplicate-node-id"))).toBe(true)
  })

  test("without a key there is nothing to check against: a leave is taken at once", async () => {
    const c = new Cluster({ algorithm: Algorithm.ImprovedBully, key: null, seed: 1 })
    await c.bootAll()
    await advance(SETTLE_MS)
    await c.board(2).driver.peerLeft(3)
    expect(c.board(2).driver.role()).toBe(Role.Coordinator)
  })

  test.each([2, 3])("without a key, a board with another algorithm's image (node %i): misconfigured only while its frames come", async (wrong) => {
    // one wire: the lab's boards and the wrong image's board, each frame relayed to the other side
    const lab = new Cluster({ algorithm: Algorithm.Bully, key: null, seed: 1 })
    const odd = new Cluster({ algorithm: Algorithm.Ring, key: null, seed: 2 })
    relay(lab, odd)
    for (const id of [1, 2, 3]) if (id !== wrong) await lab.boot(id)
    await odd.boot(wrong)
    await advance(2 * SETTLE_MS)
    const roles = () => lab.boards.map((b) => (b.driver ? roleName(b.driver.role()) : "off"))
    // a follower with the wrong image hears the others and stays out; the highest with it leads
    // alone, and those that hear it stay out
    if (wrong === 2) expect(roles()).toEqual(["follower", "off", "coordinator"])
    else expect(roles()).toEqual(["misconfigured", "misconfigured", "off"])
    expect(odd.board(wrong).driver.role()).toBe(wrong === 2 ? Role.Misconfigured : Role.Coordinator)
    // the right image instead: back a few failure timeouts after the last foreign frame, no reboot
    await odd.board(wrong).driver.setCrashed(true)
    await lab.boot(wrong)
    await advance(4 * 800 + SETTLE_MS)
    expect(roles()).toEqual(["follower", "follower", "coordinator"])
    expect(lab.coordinators()).toEqual([3, 3, 3])
  })
})

describe("measurements", () => {
  test("challenge replay flood: the coordinator's frames are refused for no time at all", async () => {
    const c = await settled(Algorithm.Bully, 1)
    c.watch()
    const staleAt = (b: number) => c.board(b).driver.auth!.refused[AuthRefusal.Stale]
    const start = c.now()
    let last = [staleAt(1), staleAt(2)]
    let lastStale = -1
    const sampled = async (ms: number) => {
      for (let t = 0; t < ms; t += 50) {
        await advance(50)
        const now = [staleAt(1), staleAt(2)]
        if (now[0] !== last[0] || now[1] !== last[1]) lastStale = c.now() - start
        last = now
      }
    }
    await challengeReplayFlood.run({ cluster: c, advance: sampled, previousSession: [] }, true)
    await sampled(20000)
    const a3 = c.board(3).driver.auth!
    // the figures of docs/security.md (before and after): printed, then checked
    console.log(
      `challenge replay flood: proofs=${a3.proofsSent} stale=${last} refused-until=${lastStale} ms after the flood began, coordinators=${c.coordinators()}`,
    )
    // 3's proofs answer the hellos at boot (and a few challenges back) and the round trips 1
    // and 2 measure now and then (one each per RTT_SAMPLE_MS); the 6,000 copies get none
    expect(a3.refused[AuthRefusal.Replay]).toBe(6000)
    const measuring = 2 * Math.ceil((c.now() - start + SETTLE_MS) / RTT_SAMPLE_MS)
    expect(a3.proofsSent).toBeLessThan(10 + measuring)
    expect(last).toEqual([0, 0])
    expect(lastStale).toBe(-1)
    expect(c.coordinators()).toEqual([3, 3, 3])
    expect(c.boards.every((b) => b.reports.length === 0)).toBe(true)
  })

  test("frames refused once their sender is re-proven (stale, held too long) are logged too, not only counted", async () => {
    const c = await settled(Algorithm.Bully, 1)
    const logged = (why: string) =>
      c.board(1).log.filter((l) => l.startsWith("EL refused") && l.includes(` why=${why} `)).reduce((n, l) => n + Number(/count=(\d+)/.exec(l)![1]), 0)
    // a heartbeat of 3, replayed to 1 three seconds later: stale, held, 3 re-proven, then refused by the proof's floor
    const hb = c.recorded.filter((f) => f.from === 3 && Cluster.kindOf(f.bytes) === "kind7").at(-1)!
    await advance(3000)
    inject(c, hb.bytes, 1)
    await advance(2100)
    const a1 = c.board(1).driver.auth!
    expect(a1.refused[AuthRefusal.Stale]).toBeGreaterThan(0)
    expect(logged("stale")).toBe(a1.refused[AuthRefusal.Stale])
  })

  test("a flood of refused frames is logged as one line per reason per second, with the count", async () => {
    const c = await settled(Algorithm.Bully, 1)
    const lines = () => c.board(1).log.filter((l) => l.startsWith("EL refused"))
    const before = lines().length
    // a sealed frame of 3's for board 1 (not a 32-byte control frame)
    const hb = c.recorded.find((f) => f.from === 3 && f.bytes.length > 32 && (f.to === 1 || f.to === BROADCAST))!.bytes.slice()
    hb[hb.length - 1] ^= 1
    for (let i = 0; i < 1000; i++) inject(c, hb, 1, i) // 1,000 bad tags in 1 s
    await advance(2100)
    const flood = lines().slice(before)
    expect(flood.length).toBeLessThanOrEqual(3)
    const counted = flood.map((l) => Number(/count=(\d+)/.exec(l)![1])).reduce((a, b) => a + b, 0)
    expect(counted).toBe(1000)
    expect(c.board(1).driver.auth!.refused[AuthRefusal.BadTag]).toBe(1000)
  })
})

describe("the early probe of a late coordinator (adaptive detector, with a key)", () => {
  const h = 250
  /** A cluster on the adaptive detector after 30 s of heartbeats; the followers have measured 3's round trips. */
  async function warmed(probe = true): Promise<Cluster> {
    const c = new Cluster({ algorithm: Algorithm.ImprovedBully, key: ATTACK_KEY, seed: 1, detector: "adaptive" })
    await c.bootAll()
    if (!probe) for (const b of c.boards) b.driver.watchArmed = undefined
    await advance(30_000)
    expect(c.coordinators()).toEqual([3, 3, 3])
    return c
  }
  /** From now on board 3 is frozen: nothing it sends goes out, nothing reaches it (it stays on the wire). */
  const freeze = (c: Cluster) => (c.intercept = (f) => (f.from === 3 || f.to === 3 ? "drop" : "pass"))

  test("a frozen coordinator is suspected a measured round trip after the probe, one period before the watch would", async () => {
    for (const probe of [true, false]) {
      const c = await warmed(probe)
      const d = c.board(2).driver
      const wait = waitOf(c, 2, 3)
      expect(wait).toBeLessThan(h / 2)
      freeze(c)
      c.watch()
      const heard = d.node!.lastHeardFromCoordinator
      const D = d.node!.suspicionDelay()
      expect(D).toBeGreaterThan(2 * h)
      await advance(D + 500)
      const suspected = c.board(2).reports[0].at - heard
      if (probe) {
        expect(c.board(2).log.some((l) => l.includes(`late=3 check=challenge wait=${wait}`))).toBe(true)
        // the probe goes one period before D, its verdict a wait later
        expect(suspected).toBe(D - h + wait)
      } else {
        expect(c.board(2).log.some((l) => l.includes("late=3"))).toBe(false)
        expect(suspected).toBeGreaterThanOrEqual(D)
      }
      // improved bully: the second-highest takes over
      expect(c.coordinators().slice(0, 2)).toEqual([2, 2])
    }
  })

  test("a coordinator whose heartbeats come late but who answers the probe is watched on", async () => {
    const c = await warmed()
    const d = c.board(2).driver
    const D = d.node!.suspicionDelay()
    // 3's frames (not its proofs) held back and released, in order, past the probe but before D
    const until = c.now() + D - h + 60
    c.intercept = (f) => (f.from === 3 && Cluster.kindOf(f.bytes) !== "proof" && c.now() < until ? until - c.now() : "pass")
    c.watch()
    await advance(D + 2000)
    for (const id of [1, 2]) expect(c.board(id).log.some((l) => l.includes("late=3 check=challenge"))).toBe(true)
    expect(c.boards.every((b) => b.reports.length === 0)).toBe(true)
    expect(c.coordinators()).toEqual([3, 3, 3])
  })

  test("a probe that ran out measures nothing: the frozen node's late proof does not lengthen the next wait", async () => {
    const c = await warmed()
    const d = c.board(2).driver
    const before = waitOf(c, 2, 3)
    // frozen from now until 200 ms after the probe (its proof still within the proof window):
    // what 3 sends, and what is sent to it, moves only when it resumes
    const resume = d.node!.lastHeardFromCoordinator + d.node!.suspicionDelay() - h + 200
    expect(200).toBeLessThan(PROOF_WINDOW_MS)
    c.intercept = (f) => ((f.from === 3 || f.to === 3) && c.now() < resume ? resume - c.now() : "pass")
    await advance(3000)
    expect(c.board(2).driver.auth!.refused[AuthRefusal.Late]).toBe(0)
    expect(c.board(2).log.some((l) => l.includes("late=3 check=challenge"))).toBe(true)
    // 3 resumed, proved itself (late) and took its role back
    expect(c.coordinators()).toEqual([3, 3, 3])
    expect(waitOf(c, 2, 3)).toBe(before)
  })
})
