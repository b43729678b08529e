// A node's own invariants (src/core/self-check.ts), checked by the engine after every step:
// each can fail, and a broken one is a violation of the run.
import { describe, expect, test } from "vitest"
import { createNode } from "../src/core/algorithms"
import { type Action, ActionType, NO_NODE, Role } from "../src/core/contract"
import { Algorithm, Kind, makeFrame } from "../src/core/frame"
import { stepBefore, stepProblems } from "../src/core/self-check"
import { summarize } from "../src/core/summary"
import { idealTiming } from "../src/core/timing"
import { startEngine } from "./helpers"

const config = { id: 2, ids: [1, 2, 3], group: 1, timing: idealTiming() }

function started(algorithm = Algorithm.Bully) {
  const node = createNode(algorithm, config)
  const out: Action[] = []
  node.start(0, out)
  expect(stepProblems(node, { role: Role.Follower, coordinator: NO_NODE, epoch: 0, crashed: false }, out, true)).toEqual([])
  return node
}

describe("a node's own invariants", () => {
  test("a correct step breaks none", () => {
    const node = started()
    const before = stepBefore(node)
    const out: Action[] = []
    node.suspect(1, out)
    expect(out.some((a) => a.type === ActionType.Send)).toBe(true)
    expect(stepProblems(node, before, out, false)).toEqual([])
  })

  test("each broken invariant is named", () => {
    const node = started()
    const before = stepBefore(node)
    node.role = Role.Coordinator
    expect(stepProblems(node, before, [], false)).toEqual([
      "node 2: coordinator role, but follows 3",
      "node 2: role or coordinator changed without a RoleChange",
    ])
    node.role = Role.Follower
    node.coordinator = 2
    expect(stepProblems(node, before, [], false)).toContain("node 2: follower of itself")
    node.coordinator = 9
    expect(stepProblems(node, before, [], false)).toContain("node 2: follows a non-member 9")
    node.coordinator = 3
    node.epoch = 0
    expect(stepProblems(node, { ...before, epoch: 5 }, [], false)).toEqual(["node 2: epoch went back from 5 to 0"])
    expect(stepProblems(node, { ...before, epoch: 5 }, [], true)).toEqual([])
    const alien = makeFrame(Kind.ELECTION, Algorithm.Bully, 1, 0, 1, 3)
    expect(stepProblems(node, before, [{ type: ActionType.Send, to: [2, 7], frame: alien }], false)).toEqual([
      "node 2: sent a frame not its own",
      "node 2: sent to 2",
      "node 2: sent to 7",
    ])
    expect(stepProblems(node, before, [{ type: ActionType.SetTimer, timer: 99, delay: 1 }], false)).toEqual(["node 2: timer id out of range: 99"])
    expect(stepProblems(node, before, [{ type: ActionType.RoleChange, role: Role.Electing, coordinator: 3, epoch: 0 }], false)).toEqual([
      "node 2: its last RoleChange is not its state",
    ])
    node.crashed = true
    expect(stepProblems(node, { ...before, crashed: true }, [], false)).toContain("node 2: role 0 while crashed is true")
  })

  test("the engine reports a step that breaks one as a violation", () => {
    const engine = startEngine(Algorithm.Bully, [1, 2, 3])
    // a node that changes whom it follows behind setRole's back
    const rogue = engine.node(2)!
    const suspect = rogue.suspect.bind(rogue)
    rogue.suspect = (now, out) => {
      suspect(now, out)
      rogue.coordinator = 1
    }
    engine.crash(3)
    engine.detect(2)
    engine.runUntil(100)
    expect(summarize(engine).violations.join("\n")).toContain("node 2: its last RoleChange is not its state")
  })

  test("the engine reports a node left electing with no timer to end it", () => {
    const engine = startEngine(Algorithm.Bully, [1, 2, 3])
    const stuck = engine.node(2)!
    const suspect = stuck.suspect.bind(stuck)
    // an election that forgets its timers: nothing would ever end it
    stuck.suspect = (now, out) => {
      suspect(now, out)
      for (let i = out.length - 1; i >= 0; i--) if (out[i].type === ActionType.SetTimer) out.splice(i, 1)
    }
    engine.crash(3)
    engine.crash(1)
    engine.detect(2)
    engine.runUntil(100)
    expect(summarize(engine).violations.join("\n")).toContain("node 2: a dead end, electing with no timer armed")
  })
})
