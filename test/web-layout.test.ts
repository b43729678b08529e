// The live page's pure parts, without a browser: the causal layout of one election's frames,
// the pending timers derived from the frames, and a colour for every frame kind.
import { describe, expect, test } from "vitest"
import { kindName, MAX_KIND } from "../src/core/frame"
import { type CausalFrame, causalSteps, FAILOVER_TAIL_MS, framesOfFailover } from "../sim/web/page/causal"
import { KIND_COLORS } from "../sim/web/page/kinds"
import { pendingTimers } from "../sim/web/page/timers"

const f = (at: number, src: number, dst: number, kind: string, epoch = 0): CausalFrame => ({ at, src, dst, kind, epoch })

// Five boards, 5 crashed: 4 and 3 notice, 4 answers 3, then 4 wins and tells 3, 2 and 1.
const bully = [
  f(1000, 4, 5, "ELECTION"),
  f(1002, 3, 4, "ELECTION"),
  f(1003, 3, 5, "ELECTION"),
  f(1010, 4, 3, "OK"),
  f(1200, 4, 3, "COORDINATOR", 1),
  f(1201, 4, 2, "COORDINATOR", 1),
  f(1202, 4, 1, "COORDINATOR", 1),
]

describe("causal layout of an election", () => {
  test("one step per send, a multicast is one step, Lamport clocks from the send/receive pairs", () => {
    const steps = causalSteps(bully)
    expect(steps.map((s) => [s.step, s.src, s.kind, s.dsts, s.lamport])).toEqual([
      [0, 4, "ELECTION", [5], 1],
      [1, 3, "ELECTION", [4, 5], 1],
      [2, 4, "OK", [3], 2],
      [3, 4, "COORDINATOR", [3, 2, 1], 3],
    ])
    expect(steps.map((s) => s.at)).toEqual([1000, 1002, 1010, 1200])
  })

  test("frames in any order come out in tap order; another board's frame between the copies of a multicast does not split it", () => {
    const mixed = [f(1003, 3, 5, "ELECTION"), f(1000, 4, 5, "ELECTION"), f(1002, 3, 4, "ELECTION"), f(1002, 2, 4, "ELECTION")]
    const steps = causalSteps(mixed)
    expect(steps.map((s) => `${s.src}:${s.kind}>${s.dsts.join(",")}`)).toEqual(["4:ELECTION>5", "3:ELECTION>4,5", "2:ELECTION>4"])
  })

  test("copies with a frame to their sender in between are separate steps: the later one may answer it", () => {
    // 4 answers 3, then 2 asks 4, then 4 answers 2: two OKs, two steps, each after its question
    const answers = [f(1000, 3, 4, "ELECTION"), f(1001, 2, 4, "ELECTION"), f(1002, 4, 3, "OK"), f(1003, 1, 4, "ELECTION"), f(1004, 4, 2, "OK"), f(1005, 4, 1, "OK")]
    const steps = causalSteps(answers)
    expect(steps.map((s) => `${s.src}:${s.kind}>${s.dsts.join(",")}`)).toEqual(["3:ELECTION>4", "2:ELECTION>4", "4:OK>3", "1:ELECTION>4", "4:OK>2,1"])
    expect(steps.map((s) => s.lamport)).toEqual([1, 1, 2, 1, 3])
    // a broadcast heard in between splits too
    const heard = causalSteps([f(0, 4, 3, "OK"), f(1, 5, -1, "COORDINATOR"), f(2, 4, 2, "OK")])
    expect(heard.map((s) => s.dsts)).toEqual([[3], [-1], [2]])
  })

  test("a repeat after a timeout, a broadcast and another kind are separate steps", () => {
    const steps = causalSteps([
      f(0, 2, 3, "ELECTION"),
      f(5, 2, 3, "ELECTION"), // the same destination again: a second send
      f(300, 2, 3, "ELECTION"), // after T: a new election
      f(301, 2, -1, "COORDINATOR"),
      f(302, 2, -1, "COORDINATOR"),
      f(303, 2, 1, "COORDINATOR"),
    ])
    expect(steps.map((s) => s.dsts)).toEqual([[3], [3], [3], [-1], [-1], [1]])
    expect(steps.map((s) => s.lamport)).toEqual([1, 2, 3, 4, 5, 6])
  })

  test("the hub's delay: a frame tapped less than the delay before a send was not yet received", () => {
    // 4's OK at 1010 answers 3's ELECTION tapped at 1002; with the hub holding frames 150 ms,
    // 4 could not have had it: its clock does not follow 3's (a true answer comes 150 ms later)
    expect(causalSteps(bully, { hubDelayMs: 150 }).map((s) => s.lamport)).toEqual([1, 1, 2, 3])
    const late = [f(1000, 3, 4, "ELECTION"), f(1100, 5, 1, "OK"), f(1160, 4, 3, "OK")]
    expect(causalSteps(late, { hubDelayMs: 150 }).map((s) => s.lamport)).toEqual([1, 1, 2])
    expect(causalSteps(late, { hubDelayMs: 200 }).map((s) => s.lamport)).toEqual([1, 1, 1])
  })

  test("a cause's clock is always below its effect's", () => {
    const steps = causalSteps(bully, { hubDelayMs: 5 })
    const ok = steps.find((s) => s.kind === "OK")!
    const question = steps.find((s) => s.src === 3 && s.kind === "ELECTION")!
    expect(question.lamport).toBeLessThan(ok.lamport)
    expect(question.step).toBeLessThan(ok.step)
  })

  test("a failover's frames: from its trigger to its end and the tail of frames still on their way, heartbeats left out", () => {
    const frames = [f(900, 5, -1, "HEARTBEAT"), f(950, 2, 3, "OK"), ...bully, f(1100, 4, -1, "HEARTBEAT"), f(1300, 4, 3, "OK")]
    expect(framesOfFailover(frames, 1000, 1202)).toEqual(bully)
    // the followers agreed on 4's heartbeat at 1190; its COORDINATORs, sent next, were tapped from 1200
    expect(framesOfFailover(frames, 1000, 1190)).toEqual(bully)
    expect(FAILOVER_TAIL_MS).toBeLessThan(1300 - 1202)
    expect(framesOfFailover(frames, 1000, 1200 - FAILOVER_TAIL_MS - 1)).toEqual(bully.filter((x) => x.kind !== "COORDINATOR"))
  })
})

describe("pending timers from the frames", () => {
  const timing = { answerTimeout: 200, coordinatorTimeout: 400, failureTimeout: 800 }

  test("a follower's watch runs from the last frame heard from its coordinator, plus the hub's delay", () => {
    const frames = [f(500, 5, -1, "HEARTBEAT"), f(1000, 5, -1, "HEARTBEAT"), f(1100, 4, -1, "HEARTBEAT")]
    const [watch, ...rest] = pendingTimers({ node: 3, role: "follower", coordinator: 5 }, frames, timing, "bully", 150)
    expect(rest).toEqual([])
    expect(watch).toMatchObject({ name: "watch", startedAt: 1150, deadline: 1950 })
    expect(watch.how).toMatch(/^derived: the last frame heard from coordinator 5 \(HEARTBEAT\) \+ the failure timeout 800 ms$/)
    // the coordinator itself and a board without a coordinator's frame have none
    expect(pendingTimers({ node: 5, role: "coordinator", coordinator: 5 }, frames, timing, "bully")).toEqual([])
    expect(pendingTimers({ node: 3, role: "follower", coordinator: 2 }, frames, timing, "bully")).toEqual([])
  })

  test("electing: T from the board's ELECTION until an OK, then T' until a COORDINATOR", () => {
    const board = { node: 3, role: "electing", coordinator: 5 }
    const election = [f(2000, 3, 4, "ELECTION"), f(2001, 3, 5, "ELECTION")]
    expect(pendingTimers(board, election, timing, "bully").map((t) => [t.name, t.startedAt, t.deadline])).toEqual([["T", 2001, 2201]])
    const ok = [...election, f(2010, 4, 3, "OK")]
    expect(pendingTimers(board, ok, timing, "bully", 150).map((t) => [t.name, t.startedAt, t.deadline])).toEqual([["T'", 2160, 2560]])
    expect(pendingTimers(board, [...ok, f(2050, 4, -1, "COORDINATOR")], timing, "bully")).toEqual([])
    // an OK to another board is not this board's
    expect(pendingTimers(board, [...election, f(2010, 4, 2, "OK")], timing, "bully").map((t) => t.name)).toEqual(["T"])
    // ring-family algorithms have other timers: none shown rather than wrong ones
    expect(pendingTimers(board, election, timing, "ring")).toEqual([])
    // the algorithms whose descriptors name T and T': the bully family
    expect(pendingTimers(board, election, timing, "improved-bully").map((t) => t.name)).toEqual(["T"])
    for (const other of ["active-list-ring", "bid-ring", "echo", "no-such-algorithm"]) expect(pendingTimers(board, election, timing, other)).toEqual([])
  })
})

test("every frame kind of the codec has a colour of its own", () => {
  const kinds = Array.from({ length: MAX_KIND }, (_, i) => kindName(i + 1))
  expect(kinds).toContain("HANDOVER")
  expect(kinds).toContain("RESIGN")
  for (const k of kinds) expect(KIND_COLORS[k], k).toMatch(/^#[0-9a-f]{6}$/)
  expect(new Set(kinds.map((k) => KIND_COLORS[k])).size).toBe(kinds.length)
})
