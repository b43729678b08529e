// `npm test`'s virtual lab: the firmware in five DeviceScript VMs, as the manifest describes
// them, headless as `electlab lab --headless --boards 5 --script FILE` runs it: one failover
// of the coordinator on the bus (its crash action) and one over MQTT (its VM killed: the
// broker's last will). The other lab tests run in `npm run test:ci`.
import { afterAll, describe, expect, test } from "vitest"
import { labOptions, type LabSummary, runHeadless } from "../sim/lab/command"
import { parseLabScript } from "../sim/lab/script"
import { HostLateness } from "./lateness"
import { unexplainedOverlaps } from "./overlaps"

const late = new HostLateness()
afterAll(() => late.stop())

async function failover(transport: "bus" | "mqtt", action: "crash" | "kill"): Promise<LabSummary> {
  const file = `${action}-coordinator.txt`
  const options = labOptions({ boards: "5", transport, loss: "0", delay: "0", seed: "1" })
  late.reset()
  return runHeadless(options, parseLabScript(`${action} coordinator\nwait-agreement\n`, file), file, false)
}

/** Every live board follows 4, the transition is the one asked for, and 5 and 4 never led at once (but for a stalled host). */
function expectFailoverTo4(s: LabSummary, trigger: string) {
  // on failure: what the boards and the lab saw, and how busy the host was
  const note = `${JSON.stringify({ transitions: s.transitions, boards: s.boards })}; ${late.describe()}`
  expect(s.agreement, note).toBe(true)
  expect(s.coordinator, note).toBe(4)
  expect(s.boards.filter((b) => b.role !== "crashed" && b.role !== "off").map((b) => [b.node, b.coordinator]), note).toEqual([
    [1, 4],
    [2, 4],
    [3, 4],
    [4, 4],
  ])
  expect(s.transitions.map((t) => [t.trigger, t.coordinatorBefore, t.coordinatorAfter]), note).toEqual([[trigger, 5, 4]])
  expect(s.transitions[0].durationMs, note).not.toBeNull()
  // two coordinators only where a process stalled for T/2 or more (test/overlaps.ts)
  expect(unexplainedOverlaps(s.transitions, s.timing.answerTimeout), note).toEqual([])
  expect(s.panics, note).toBe(0)
  // each live board's heap was read from its VM: more than an empty program's (under 1 KB),
  // within the 64 KB (a board powered off may have gone before its first figures: seen once
  // in CI over MQTT, not explained)
  const heaps = JSON.stringify(s.boards.map((b) => [b.node, b.powered, b.heapLive, b.heapPeak]))
  for (const b of s.boards.filter((x) => x.powered)) {
    expect(b.heapPeak ?? -1, `board ${b.node}: ${heaps}`).toBeGreaterThan(4096)
    expect(b.heapPeak ?? -1, `board ${b.node}: ${heaps}`).toBeLessThan(s.heap.heapBytes)
  }
  expect(s.heap.peakBytes, heaps).toBe(Math.max(...s.boards.map((b) => b.heapPeak ?? 0)))
  expect(s.heap.kinds!.map?.blocks, note).toBeGreaterThan(0)
}

describe("five boards: one failover of the coordinator", () => {
  test("on the bus: 5 crashes (its service action), 4 takes over", async () => {
    const s = await failover("bus", "crash")
    expect(s.transport).toBe("bus")
    expect(s.auth).toBe(true)
    expectFailoverTo4(s, "crash 5")
  }, 300_000)

  test("over MQTT: 5's VM is killed, the broker's last will tells the others, 4 takes over", async () => {
    const s = await failover("mqtt", "kill")
    expect(s.transport).toBe("mqtt")
    expect(s.auth).toBe(true)
    expectFailoverTo4(s, "kill 5")
  }, 300_000)
})
