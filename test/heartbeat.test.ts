// Two processes acting as coordinator (boards that booted apart, a healed partition):
// a heartbeat from the wrong one is resolved in favour of the higher process.
import { describe, expect, test } from "vitest"
import { Algorithm, Kind } from "../src/core/frame"
import { type Action, ActionType, Role } from "../src/core/contract"
import { createNode } from "../src/core/algorithms"
import { frameFrom, makeNode, sendActions, sends } from "./helpers"

const timing = { answerTimeout: 3, coordinatorTimeout: 5, heartbeatInterval: 10, failureTimeout: 25 }

for (const algorithm of [Algorithm.Bully, Algorithm.ImprovedBully])
  describe(`heartbeat conflicts (${algorithm === Algorithm.Bully ? "bully" : "improved-bully"})`, () => {
    function started(id: number) {
      const node = makeNode(algorithm, id, [1, 2, 3])
      Object.assign(node.timing, timing)
      node.start(0, [])
      return node
    }

    test("a coordinator hearing a lower process's heartbeat reasserts itself with a heartbeat, no election", () => {
      const top = started(3)
      const out: Action[] = []
      top.receive(frameFrom(algorithm, Kind.HEARTBEAT, 2, 0xffff, { epoch: 1, bid: 2 }), 5, out)
      expect(sends(out)).toEqual(["send HEARTBEAT 1,2 (broadcast)"])
      expect(top.role).toBe(Role.Coordinator)
      // and the lower one follows it on hearing that heartbeat
      const low = started(2)
      low.receive(frameFrom(algorithm, Kind.COORDINATOR, 2, 1, { epoch: 1 }), 1, [])
      low.receive(sendActions(out)[0].frame, 6, [])
      expect(low.coordinator).toBe(3)
    })

    test("a follower follows a heartbeat from a process above its coordinator", () => {
      // 3 silent since the start for longer than 1.5 heartbeat periods: 2's COORDINATOR is news
      const low = started(1)
      low.receive(frameFrom(algorithm, Kind.COORDINATOR, 2, 1, { epoch: 1 }), 20, [])
      expect(low.coordinator).toBe(2)
      const out: Action[] = []
      low.receive(frameFrom(algorithm, Kind.HEARTBEAT, 3, 0xffff, { epoch: 0, bid: 3 }), 24, out)
      expect(low.coordinator).toBe(3)
      // improved-bully: the COORDINATOR from 2 had marked 3 CRASHED; 3 alive means we were
      // cut off from it, so we say we are back (UPDATE to all), as a recovered process does
      expect(sends(out)).toEqual(algorithm === Algorithm.ImprovedBully ? ["send UPDATE 2,3 (broadcast)"] : [])
    })

    test("a follower ignores a heartbeat from a process below its coordinator", () => {
      const low = started(1)
      const out: Action[] = []
      low.receive(frameFrom(algorithm, Kind.HEARTBEAT, 2, 0xffff, { epoch: 4, bid: 2 }), 5, out)
      expect(low.coordinator).toBe(3)
      expect(out).toEqual([])
    })
  })

describe("heartbeat conflicts are settled by rank, not id (bid-ring)", () => {
  // ids 1..3; process 1 is the most suitable: bids 7:1 > 0:3 > 0:2
  function started(id: number) {
    const node = createNode(Algorithm.BidRing, {
      id,
      ids: [1, 2, 3],
      group: 1,
      timing: { answerTimeout: 3, coordinatorTimeout: 5, heartbeatInterval: 10, failureTimeout: 25 },
      suitability: id === 1 ? 7 : 0,
    })!
    node.start(0, [])
    return node
  }

  test("heartbeats carry the sender's bid", () => {
    const n = started(1)
    n.receive(frameFrom(Algorithm.BidRing, Kind.COORDINATOR, 3, 0xffff, { epoch: 1, initiator: 3, bid: 3 }), 1, [])
    const out: Action[] = []
    // the coordinator's heartbeat timer is the algorithm-independent one
    const top = started(3)
    top.timer(0, 10, out)
    expect(sendActions(out)[0].frame.bid).toBe(3)
    expect(n.rank()).toBe(7 * 65536 + 1)
  })

  test("a follower of 3 follows a heartbeat from 1, whose bid is higher though its id is lower", () => {
    const two = started(2)
    expect(two.coordinator).toBe(3)
    const out: Action[] = []
    two.receive(frameFrom(Algorithm.BidRing, Kind.HEARTBEAT, 3, 0xffff, { bid: 3 }), 1, out)
    two.receive(frameFrom(Algorithm.BidRing, Kind.HEARTBEAT, 1, 0xffff, { bid: 7 * 65536 + 1 }), 2, out)
    expect(two.coordinator).toBe(1)
  })
})
