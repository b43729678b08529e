// Headroom at 12 boards: every board holds a 16 KB ballast of its 64 KB heap from boot on,
// with a group key and the adaptive failure detector, through failover-10 (elections,
// failovers, recoveries, and a power cycle of the coordinator five times). A board that runs
// out of memory panics, and the run fails on `panics`. Run under `flock /tmp/electlab-lab.lock`.
import { describe, expect, test } from "vitest"
import { expectCleanFailovers, runTwelve } from "./lab12-run"

describe("the lab at 12 boards with 16 KB of each heap held", () => {
  test("a key, the adaptive detector: failover-10 passes", async () => {
    const s = await runTwelve({ failureDetector: "adaptive", ballastKb: "16" })
    expect(s.auth).toBe(true)
    expect(s.ballastKb).toBe(16)
    expect(s.timing.failureDetector).toBe("adaptive")
    expectCleanFailovers(s)
  }, 900_000)
})
