// The example application at 12 boards with 16 KB of each heap held: readings to the
// coordinator, its summary to all twice a second, on top of failover-10: no board runs out of
// memory, every transition ends in agreement on the right board, and two boards never
// hold the role at once (docs/lab-guide.md, "Memory"). Run under
// `flock /tmp/electlab-lab.lock`.
import { describe, expect, test } from "vitest"
import { BALLAST_KB, BALLAST_TIMING, expectCleanFailovers, runTwelve } from "./lab12-run"

describe(`the example application at 12 boards with ${BALLAST_KB} KB of each heap held`, () => {
  test("a key, the adaptive detector: failover-10 passes without a panic", async () => {
    const s = await runTwelve({ ...BALLAST_TIMING, failureDetector: "adaptive", ballastKb: String(BALLAST_KB), program: "examples/sensor-summary/main.ts" })
    expect(s.auth).toBe(true)
    expect(s.ballastKb).toBe(BALLAST_KB)
    expect(s.timing.answerTimeout).toBe(Number(BALLAST_TIMING.answerTimeout))
    expectCleanFailovers(s)
  }, 900_000)
})
