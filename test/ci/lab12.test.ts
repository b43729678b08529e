// The virtual lab at the firmware's largest cluster, 12 boards, running the example
// application with a group key: ten crashes and recoveries of the coordinator and five kills
// and restarts (failover-10). One run per transport, with the adaptive detector, at
// T 300 ms (the timing the heap headroom is stated at), with 24 KB of every heap held on both
// transports (docs/lab-guide.md, "Memory"). A board that runs out of memory
// panics and the run fails on `panics`, naming where. Run alone:
// `npx vitest run test/ci/lab12.test.ts`.
import { describe, expect, test } from "vitest"
import { APPLICATION, expectApplicationFenced, expectCleanFailovers, runTwelve } from "./lab12-run"

describe("the lab at 12 boards with the application: failover-10", () => {
  test("over the bus: 24 KB of each heap held, the adaptive detector, T 300 ms", async () => {
    const s = await runTwelve({ transport: "bus", program: APPLICATION, ballastKb: "24", failureDetector: "adaptive", answerTimeout: "300", coordinatorTimeout: "600" })
    expect([s.auth, s.ballastKb, s.timing.answerTimeout, s.timing.failureDetector]).toEqual([true, 24, 300, "adaptive"])
    expectCleanFailovers(s)
    expectApplicationFenced(s)
  }, 900_000)

  test("over MQTT: 24 KB of each heap held, the adaptive detector, T 300 ms", async () => {
    const s = await runTwelve({ transport: "mqtt", program: APPLICATION, ballastKb: "24", failureDetector: "adaptive", answerTimeout: "300", coordinatorTimeout: "600" })
    expect([s.auth, s.ballastKb, s.timing.answerTimeout, s.timing.failureDetector]).toEqual([true, 24, 300, "adaptive"])
    expectCleanFailovers(s)
    expectApplicationFenced(s)
  }, 900_000)
})
