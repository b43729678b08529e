import { describe as group, expect, test } from "vitest"
import { Algorithm, Kind } from "../src/core/frame"
import { type Action, Role, TIMER_ALGORITHM } from "../src/core/contract"
import type { ImprovedBullyNode } from "../src/core/improved-bully"
import { frameFrom, makeNode, range, sendActions, sends } from "./helpers"

const A = Algorithm.ImprovedBully
const T_ANSWER = TIMER_ALGORITHM
const T_COORDINATOR = TIMER_ALGORITHM + 1
const T_TABLE = TIMER_ALGORITHM + 2
const ids = range(1, 10)

function started(id: number) {
  const node = makeNode(A, id, ids) as ImprovedBullyNode
  node.start(0, [])
  return node
}

group("improved bully rules (seed 004)", () => {
  test("noticing: ELECTION only to the highest process below the failed coordinator", () => {
    const n = started(4)
    const out: Action[] = []
    n.suspect(0, out)
    expect(sends(out)).toEqual(["send ELECTION 9"])
    expect(n.believesAlive(10)).toBe(false)
  })

  test("no OK within T: mark the candidate CRASHED and cascade down", () => {
    const n = started(4)
    n.suspect(0, [])
    const out: Action[] = []
    n.timer(T_ANSWER, 3, out)
    expect(sends(out)).toEqual(["send ELECTION 8"])
    expect(n.believesAlive(9)).toBe(false)
  })

  test("the cascade reaching the initiator makes it coordinator: COORDINATOR to live lower processes", () => {
    const n = started(8)
    n.suspect(0, [])
    const out: Action[] = []
    n.timer(T_ANSWER, 3, out)
    expect(sends(out)).toEqual(["send COORDINATOR 1,2,3,4,5,6,7 (broadcast)"])
    expect(n.role).toBe(Role.Coordinator)
  })

  test("best case: the process just below the failed coordinator notices and wins with n-2 messages", () => {
    const n = started(9)
    const out: Action[] = []
    n.suspect(0, out)
    expect(sends(out)).toEqual(["send COORDINATOR 1,2,3,4,5,6,7,8 (broadcast)"])
  })

  test("the ELECTION receiver answers OK and announces itself to the live processes below it", () => {
    const n = started(9)
    const out: Action[] = []
    n.receive(frameFrom(A, Kind.ELECTION, 4, 9), 1, out)
    expect(sends(out)).toEqual(["send OK 4", "send COORDINATOR 1,2,3,4,5,6,7,8 (broadcast)"])
    expect(n.believesAlive(10)).toBe(false)
  })

  test("a second ELECTION in the same instant gets only an OK; a later one also a COORDINATOR", () => {
    const n = started(9)
    n.receive(frameFrom(A, Kind.ELECTION, 4, 9), 1, [])
    const same: Action[] = []
    n.receive(frameFrom(A, Kind.ELECTION, 2, 9), 1, same)
    expect(sends(same)).toEqual(["send OK 2"])
    const later: Action[] = []
    n.receive(frameFrom(A, Kind.ELECTION, 3, 9), 6, later)
    expect(sends(later)).toEqual(["send OK 3", "send COORDINATOR 3"])
  })

  test("OK then no COORDINATOR within T': the candidate is taken as crashed", () => {
    const n = started(4)
    n.suspect(0, [])
    n.receive(frameFrom(A, Kind.OK, 9, 4), 2, [])
    const out: Action[] = []
    n.timer(T_COORDINATOR, 7, out)
    expect(sends(out)).toEqual(["send ELECTION 8"])
  })

  test("REQUEST is answered with the table: coordinator and CRASHED ids", () => {
    const n = started(2)
    n.receive(frameFrom(A, Kind.COORDINATOR, 9, 2, { epoch: 1 }), 1, [])
    const out: Action[] = []
    n.receive(frameFrom(A, Kind.REQUEST, 1, 2), 2, out)
    const table = sendActions(out)[0]
    expect(table.frame.kind).toBe(Kind.TABLE)
    expect(table.frame.initiator).toBe(9)
    expect(table.frame.bid).toBe(1)
    expect(table.frame.list).toEqual([10])
  })

  test("recovery below the coordinator: REQUEST to the successor, TABLE, UPDATE to all others", () => {
    const n = started(1)
    n.crash(0, [])
    const out: Action[] = []
    n.recover(5, out)
    expect(sends(out)).toEqual(["send REQUEST 2"])
    const after: Action[] = []
    n.receive(frameFrom(A, Kind.TABLE, 2, 1, { initiator: 9, bid: 1, list: [10] }), 6, after)
    expect(sends(after)).toEqual(["send UPDATE 2,3,4,5,6,7,8,9,10 (broadcast)"])
    expect(n.coordinator).toBe(9)
    expect(n.believesAlive(10)).toBe(false)
  })

  test("recovery above the coordinator: take over with COORDINATOR to all others", () => {
    const n = started(10)
    n.crash(0, [])
    n.recover(5, [])
    const out: Action[] = []
    n.receive(frameFrom(A, Kind.TABLE, 1, 10, { initiator: 9, bid: 1 }), 6, out)
    expect(sends(out)).toEqual(["send COORDINATOR 1,2,3,4,5,6,7,8,9 (broadcast)"])
    expect(n.role).toBe(Role.Coordinator)
  })

  test("a silent neighbour is skipped; with nobody answering the recovered process is alone", () => {
    const n = makeNode(A, 2, [1, 2, 3]) as ImprovedBullyNode
    n.start(0, [])
    n.crash(0, [])
    const out: Action[] = []
    n.recover(1, out)
    expect(sends(out)).toEqual(["send REQUEST 3"])
    const next: Action[] = []
    n.timer(T_TABLE, 4, next)
    expect(sends(next)).toEqual(["send REQUEST 1"])
    const alone: Action[] = []
    n.timer(T_TABLE, 7, alone)
    expect(sends(alone)).toEqual(["send COORDINATOR 1,3 (broadcast)"])
  })

  test("UPDATE marks the sender NORMAL again", () => {
    const n = started(5)
    n.suspect(0, []) // believes 10 crashed
    n.receive(frameFrom(A, Kind.COORDINATOR, 9, 5), 1, [])
    expect(n.believesAlive(10)).toBe(false)
    n.receive(frameFrom(A, Kind.UPDATE, 10, 5), 2, [])
    expect(n.believesAlive(10)).toBe(true)
  })

  test("a live process receiving COORDINATOR from a lower one takes over", () => {
    const n = started(9)
    const out: Action[] = []
    n.receive(frameFrom(A, Kind.COORDINATOR, 8, 9), 1, out)
    expect(sends(out)).toEqual(["send COORDINATOR 1,2,3,4,5,6,7,8 (broadcast)"])
  })
})
