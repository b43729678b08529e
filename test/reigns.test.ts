// The lab's overlap measure: boards' own clocks order their role changes, not the order in
// which their log lines happen to arrive.
import { describe, expect, test } from "vitest"
import { CoordinatorReigns } from "../sim/lab/reigns"

describe("coordinator reigns (the lab's overlapMs)", () => {
  test("a handover whose lines arrive in the wrong order is no overlap", () => {
    const r = new CoordinatorReigns()
    // board 4 booted at host 1000, board 5 at host 5000; each line took 1 ms, except below
    r.hostTime(4, 1001, 0)
    r.hostTime(5, 5001, 0)
    r.roleAt(4, true, r.hostTime(4, 2001, 1000))
    // 4 steps down at its t=7000 (host 8000); its line is held up 40 ms in the pipe
    const stepDown = r.hostTime(4, 8041, 7000)
    // 5 takes the role at its t=3005 (host 8005), after 4's RESIGN; its line arrives first
    r.roleAt(5, true, r.hostTime(5, 8006, 3005))
    r.roleAt(4, false, stepDown)
    expect(stepDown).toBe(8001)
    expect(r.overlapBetween(7000, 9000)).toBe(0)
  })

  test("two boards holding the role at once are measured, and only inside the window", () => {
    const r = new CoordinatorReigns()
    r.roleAt(4, true, 100)
    r.roleAt(5, true, 300)
    r.roleAt(4, false, 350)
    r.roleAt(3, true, 400)
    expect(r.overlapBetween(0, 1000)).toBe(50 + 600)
    expect(r.overlapBetween(320, 500)).toBe(30 + 100)
    r.end(5, 450)
    expect(r.overlapBetween(0, 1000)).toBe(100)
    // who held it, for the trace of an overlap: reigns that reach into the window, on the given origin
    expect(r.describeBetween(320, 500, 100)).toBe("4 from 0.0 to 250.0, 5 from 200.0 to 350.0, 3 from 300.0")
    expect(r.describeBetween(0, 90, 0)).toBe("")
  })

  test("a reign that ends where another begins is no overlap; a reboot takes a new clock", () => {
    const r = new CoordinatorReigns()
    r.roleAt(4, true, 0)
    r.end(4, 200)
    r.roleAt(5, true, 200)
    expect(r.overlapBetween(0, 500)).toBe(0)
    r.hostTime(5, 1010, 10)
    r.newClock(5)
    expect(r.hostTime(5, 2010, 5)).toBe(2010)
  })
})
