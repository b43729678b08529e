// Headroom at 12 boards: every board holds 16 KB of its 64 KB heap from boot on, with a group
// key and the adaptive failure detector, through failover-10 (elections, failovers,
// recoveries, and a power cycle of the coordinator five times). A board that runs out of
// memory panics, and the run fails on `panics`, and, as lab12.test.ts, on two coordinators
// at once in any transition. docs/lab-guide.md ("Memory") has the figures.
// Run under `flock /tmp/electlab-lab.lock`.
import { describe, expect, test } from "vitest"
import { BALLAST_KB, BALLAST_TIMING, expectCleanFailovers, runTwelve } from "./lab12-run"

describe(`the lab at 12 boards with ${BALLAST_KB} KB of each heap held`, () => {
  test("a key, the adaptive detector: failover-10 passes without a panic", async () => {
    const s = await runTwelve({ ...BALLAST_TIMING, failureDetector: "adaptive", ballastKb: String(BALLAST_KB) })
    expect(s.auth).toBe(true)
    expect(s.ballastKb).toBe(BALLAST_KB)
    expect(s.timing.answerTimeout).toBe(Number(BALLAST_TIMING.answerTimeout))
    expect(s.timing.failureDetector).toBe("adaptive")
    expectCleanFailovers(s)
  }, 900_000)
})
