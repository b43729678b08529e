// The lab's stall record and the verdict on two coordinators at once (test/overlaps.ts).
import { describe, expect, test, vi } from "vitest"
import type { Transition } from "../sim/lab/lab"
import { describeStalls, HostStalls } from "../sim/lab/stalls"
import { unexplainedOverlaps } from "./overlaps"

function transition(overlapMs: number, stallMs: number): Transition {
  return { trigger: "crash 12", startedAt: 1000, coordinatorBefore: 12, coordinatorAfter: 11, durationMs: 700, electionFrames: 20, frameKinds: {}, busFrames: 50, overlapMs, stallMs, reigns: "11 from 780.4, 10 from 801.3 to 813.3", stalls: stallMs ? `11: ${stallMs} ms` : "" }
}

describe("stalls of the lab's processes", () => {
  test("the longest stall of each process that reaches into a window, longest first", () => {
    const s = new HostStalls()
    s.record(11, 1000, 240) // 760..1000
    s.record(11, 1500, 40)
    s.record("lab", 1200, 60)
    s.record(3, 600, 100) // 500..600: before the window
    const worst = s.worstBetween(700, 2000)
    expect(worst).toEqual([
      { source: 11, ms: 240 },
      { source: "lab", ms: 60 },
    ])
    expect(describeStalls(worst)).toBe("11: 240 ms, lab: 60 ms")
    // a stall that began before the window and ended in it counts
    expect(s.worstBetween(900, 950)).toEqual([{ source: 11, ms: 240 }])
  })
})

describe("two coordinators at once", () => {
  test("with no process stalled for T/2, an overlap is the election's fault", () => {
    expect(unexplainedOverlaps([transition(12, 0)], 200)).toEqual(["crash 12 at 1000 ms: 12 ms (11 from 780.4, 10 from 801.3 to 813.3; stalled: none)"])
    expect(unexplainedOverlaps([transition(12, 99)], 200)).toHaveLength(1)
  })

  test("a process stalled for T/2 or more explains an overlap no longer than the stall and T", () => {
    const print = vi.spyOn(process.stdout, "write").mockImplementation(() => true)
    try {
      expect(unexplainedOverlaps([transition(12, 100), transition(0, 0)], 200)).toEqual([])
      expect(print).toHaveBeenCalledTimes(1)
      // an overlap that outlasts the stall by more than T is not the host's
      expect(unexplainedOverlaps([transition(400, 150)], 200)).toHaveLength(1)
    } finally {
      print.mockRestore()
    }
  })
})
