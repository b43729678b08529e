// The example application at 12 boards with 16 KB of each heap held: readings to the
// coordinator, its summary to all twice a second, on top of failover-10. Not every run passes
// yet (one run in three had a board run out of memory when a new coordinator took the readings
// of every board at once): docs/lab-guide.md ("Memory"). Run under `flock /tmp/electlab-lab.lock`.
import { describe, expect, test } from "vitest"
import { BALLAST_KB, expectCleanFailovers, runTwelve } from "../ci/lab12-run"

describe(`the example application at 12 boards with ${BALLAST_KB} KB of each heap held`, () => {
  test("a key, the adaptive detector: failover-10 passes without a panic", async () => {
    const s = await runTwelve({ failureDetector: "adaptive", ballastKb: String(BALLAST_KB), program: "examples/sensor-summary/main.ts" })
    expect(s.ballastKb).toBe(BALLAST_KB)
    expectCleanFailovers(s)
  }, 900_000)
})
