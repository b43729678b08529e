// A broker's last will tells the node a peer dropped off: no timeout to wait for.
import { describe, expect, test } from "vitest"
import { Algorithm, Kind } from "../src/core/frame"
import { type Action, ActionType, Role, TIMER_ALGORITHM } from "../src/core/contract"
import type { ImprovedBullyNode } from "../src/core/improved-bully"
import { frameFrom, makeNode, range, sends } from "./helpers"

describe("peer left (last will)", () => {
  test("bully: the coordinator leaving starts an election at once", () => {
    const n = makeNode(Algorithm.Bully, 2, [1, 2, 3])
    n.start(0, [])
    const out: Action[] = []
    n.peerLeft(3, 10, out)
    expect(sends(out)).toEqual(["send ELECTION 3"])
    expect(n.role).toBe(Role.Electing)
  })

  test("a follower leaving changes nothing for bully", () => {
    const n = makeNode(Algorithm.Bully, 2, [1, 2, 3])
    n.start(0, [])
    const out: Action[] = []
    n.peerLeft(1, 10, out)
    expect(out).toEqual([])
  })

  test("improved bully: the second-highest wins at once when the coordinator leaves", () => {
    const n = makeNode(Algorithm.ImprovedBully, 2, [1, 2, 3]) as ImprovedBullyNode
    n.start(0, [])
    const out: Action[] = []
    n.peerLeft(3, 10, out)
    expect(sends(out)).toEqual(["send COORDINATOR 1"])
    expect(n.role).toBe(Role.Coordinator)
  })

  test("improved bully: the awaited candidate leaving sends the ELECTION on down without waiting T", () => {
    const n = makeNode(Algorithm.ImprovedBully, 4, range(1, 10)) as ImprovedBullyNode
    n.start(0, [])
    n.suspect(0, [])
    const out: Action[] = []
    n.peerLeft(9, 1, out)
    expect(sends(out)).toEqual(["send ELECTION 8"])
    expect(out.some((a) => a.type === ActionType.CancelTimer && a.timer === TIMER_ALGORITHM)).toBe(true)
    expect(n.believesAlive(9)).toBe(false)
    // and an UPDATE when it comes back marks it alive again
    n.receive(frameFrom(Algorithm.ImprovedBully, Kind.UPDATE, 9, 4), 5, [])
    expect(n.believesAlive(9)).toBe(true)
  })

  test("a crashed node ignores the news", () => {
    const n = makeNode(Algorithm.Bully, 2, [1, 2, 3])
    n.start(0, [])
    n.crash(1, [])
    const out: Action[] = []
    n.peerLeft(3, 10, out)
    expect(out).toEqual([])
  })
})
