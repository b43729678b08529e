// The one checker: each clause of the property, and the trace invariants.
import { describe, expect, test } from "vitest"
import { checkCluster, checkRun, checkTrace, type ProcessView } from "../src/core/checker"
import { Algorithm } from "../src/core/frame"
import { ActionType, NO_NODE, Role } from "../src/core/contract"
import { idealTiming } from "../src/core/timing"
import { startEngine } from "./helpers"
import { summarize } from "../src/core/summary"

const p = (id: number, role: Role, coordinator: number, extra: Partial<ProcessView> = {}): ProcessView => ({
  id,
  live: true,
  role,
  coordinator,
  epoch: 1,
  rank: id,
  ...extra,
})
const F = Role.Follower
const C = Role.Coordinator
const E = Role.Electing
const noFacts = { errors: [] as string[], oversize: 0, messages: 0, messageBudget: 0, maxInFlight: 0, inFlightBudget: 0, stalled: "" }

describe("checker: the cluster property", () => {
  test("a settled cluster passes", () => {
    const v = checkCluster([p(1, F, 3), p(2, F, 3), p(3, C, 3)])
    expect(v).toEqual({ agreement: true, coordinator: 3, highestLive: 3, violations: [] })
  })

  test("crashed processes are ignored, but the coordinator must be live", () => {
    expect(checkCluster([p(1, F, 2), p(2, C, 2), p(3, Role.Crashed, NO_NODE, { live: false })]).violations).toEqual([])
    expect(checkCluster([p(1, F, 3), p(2, F, 3), p(3, Role.Crashed, NO_NODE, { live: false })]).violations).toEqual([
      "the agreed coordinator 3 is crashed",
    ])
  })

  test("disagreement and two coordinators", () => {
    const v = checkCluster([p(1, F, 2), p(2, C, 2), p(3, C, 3)])
    expect(v.agreement).toBe(false)
    expect(v.coordinator).toBe(NO_NODE)
    expect(v.violations).toEqual(["live processes disagree on the coordinator", "more than one coordinator: 2,3"])
  })

  test("the rank decides, not the id (bid-ring)", () => {
    const ranked = [p(1, F, 3, { rank: 3 * 65536 + 1 }), p(2, F, 3, { rank: 2 }), p(3, C, 3, { rank: 3 })]
    expect(checkCluster(ranked).violations).toEqual(["coordinator 3 is not the highest-ranked live process 1"])
  })

  test("processes still electing, or a coordinator that does not act as one", () => {
    expect(checkCluster([p(1, E, 3), p(2, E, 3), p(3, C, 3)]).violations).toEqual(["still electing: 1,2"])
    expect(checkCluster([p(1, F, 3), p(2, F, 3), p(3, F, 3)]).violations).toEqual([
      "the agreed coordinator 3 does not hold the coordinator role",
    ])
    expect(checkCluster([p(1, F, NO_NODE), p(2, F, NO_NODE)]).violations).toEqual(["no coordinator known"])
  })

  test("misconfigured processes and non-members", () => {
    expect(checkCluster([p(1, Role.Misconfigured, 2), p(2, C, 2)]).violations).toEqual(["misconfigured: 1"])
    expect(checkCluster([p(1, F, 9, { members: [1, 2] }), p(2, F, 9, { members: [1, 2] })]).violations).toEqual([
      "coordinator 9 is not the highest-ranked live process 2",
      "process 1 follows non-member 9",
      "process 2 follows non-member 9",
    ])
  })

  test("no live process: nothing to judge", () => {
    expect(checkCluster([p(1, Role.Crashed, NO_NODE, { live: false })]).violations).toEqual([])
  })
})

describe("checker: trace invariants", () => {
  test("exceptions, oversize frames, storms and a stalled clock", () => {
    expect(checkTrace(noFacts)).toEqual([])
    expect(
      checkTrace({ errors: ["node 2 threw at t=5: boom"], oversize: 3, messages: 101, messageBudget: 100, maxInFlight: 33, inFlightBudget: 32, stalled: "x" }),
    ).toEqual([
      "node 2 threw at t=5: boom",
      "3 messages exceed the 236-byte frame (lists past 107 ids)",
      "message storm: 101 messages, budget 100",
      "message storm: 33 election messages in flight at once, budget 32",
      "simulated time stalls: x",
    ])
    expect(checkTrace({ ...noFacts, messages: 100, messageBudget: 100, maxInFlight: 32, inFlightBudget: 32 })).toEqual([])
    // no budget: any number in flight
    expect(checkTrace({ ...noFacts, maxInFlight: 5000 })).toEqual([])
  })

  test("checkRun lists trace violations first", () => {
    expect(checkRun([p(1, E, 2), p(2, C, 2)], { ...noFacts, errors: ["e"] }).violations).toEqual(["e", "still electing: 1"])
  })
})

describe("engine: the checker in summary(), and time that must advance", () => {
  const engine = (algorithm = Algorithm.Bully) => {
    return startEngine(algorithm, [1, 2, 3, 4], { timing: { ...idealTiming(), heartbeatInterval: 10, failureTimeout: 25 } })
  }

  test("summary() reports processes stuck electing (the old summary said none)", () => {
    const e = engine()
    e.crash(4)
    e.detect(1)
    e.runUntil(1.5) // ELECTIONs delivered, nobody decided yet
    expect(summarize(e).violations).toContain("still electing: 1,2,3")
  })

  test("a timer re-armed without moving the clock stops runUntil and is reported", () => {
    const e = engine()
    e.maxEventsPerInstant = 1000
    const node = e.node(2)!
    // a node whose timer re-arms itself with a delay the clock cannot see
    e.runUntil(1000)
    expect(e.stalled).toBe("")
    // 1000 + 1e-14 === 1000 in floating point, as the failure detector's watch timer once did
    node.timer = (_t, _now, out) => out.push({ type: ActionType.SetTimer, timer: 5, delay: 1e-14 })
    node.timer(5, 1000, (e as any).out)
    ;(e as any).apply(1, (e as any).out)
    e.runUntil(2000)
    expect(e.stalled).toBe("1000 events at t=1000 without the clock moving (next: timer 'timer 5' of 2)")
    expect(summarize(e).violations).toContain("simulated time stalls: " + e.stalled)
    expect(e.now).toBe(1000)
    expect(e.step()).toBe(false)
  })

  test("a message budget turns a storm into a violation", () => {
    const e = engine()
    e.crash(4)
    e.detect(1)
    e.settle(1e6)
    const messages = summarize(e).messages
    expect(summarize(e).violations).toEqual([])
    e.messageBudget = messages - 1
    expect(summarize(e).violations).toEqual([`message storm: ${messages} messages, budget ${messages - 1}`])
  })
})

describe("engine: trace checks", () => {
  test("following a non-member, even for a moment, is reported", () => {
    const e = startEngine(Algorithm.Bully, [1, 2, 3])
    const out = (e as any).out
    out.push({ type: ActionType.RoleChange, role: Role.Follower, coordinator: 9, epoch: 0 })
    ;(e as any).apply(0, out)
    out.push({ type: ActionType.RoleChange, role: Role.Follower, coordinator: 3, epoch: 0 })
    ;(e as any).apply(0, out)
    expect(summarize(e).violations).toEqual(["process 1 followed non-member 9 at t=0"])
  })
})
