// Two processes acting as coordinator (boards that booted apart, a healed partition):
// a heartbeat from the wrong one is resolved in favour of the higher process.
import { describe, expect, test } from "vitest"
import { Algorithm, Kind } from "../src/core/frame"
import { type Action, Role } from "../src/core/node"
import { frameFrom, makeNode, sends } from "./helpers"

const timing = { answerTimeout: 3, coordinatorTimeout: 5, heartbeatInterval: 10, failureTimeout: 25 }

for (const algorithm of [Algorithm.Bully, Algorithm.ImprovedBully])
  describe(`heartbeat conflicts (${algorithm === Algorithm.Bully ? "bully" : "improved-bully"})`, () => {
    function started(id: number) {
      const node = makeNode(algorithm, id, [1, 2, 3])
      Object.assign(node.timing, timing)
      node.start(0, [])
      return node
    }

    test("a coordinator hearing a lower process's heartbeat reasserts itself", () => {
      const top = started(3)
      const out: Action[] = []
      top.receive(frameFrom(algorithm, Kind.HEARTBEAT, 2, 0xffff, { epoch: 1 }), 5, out)
      expect(sends(out)).toEqual(["send COORDINATOR 1,2 (broadcast)"])
      expect(top.role).toBe(Role.Coordinator)
      expect(top.epoch).toBe(2)
    })

    test("a follower follows a heartbeat from a process above its coordinator", () => {
      const low = started(1)
      low.receive(frameFrom(algorithm, Kind.COORDINATOR, 2, 1, { epoch: 1 }), 1, [])
      expect(low.coordinator).toBe(2)
      const out: Action[] = []
      low.receive(frameFrom(algorithm, Kind.HEARTBEAT, 3, 0xffff, { epoch: 0 }), 5, out)
      expect(low.coordinator).toBe(3)
      expect(sends(out)).toEqual([])
    })

    test("a follower ignores a heartbeat from a process below its coordinator", () => {
      const low = started(1)
      const out: Action[] = []
      low.receive(frameFrom(algorithm, Kind.HEARTBEAT, 2, 0xffff, { epoch: 4 }), 5, out)
      expect(low.coordinator).toBe(3)
      expect(out).toEqual([])
    })
  })
