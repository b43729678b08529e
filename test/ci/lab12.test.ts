// The virtual lab at the firmware's largest cluster, 12 boards, running the example
// application with a group key: ten crashes and recoveries of the coordinator and five kills
// and restarts (failover-10), with the adaptive detector at T 300 ms (the timing the heap
// headroom is stated at): every algorithm on the bus and over MQTT, each with 28 KB of every
// heap held for the user's program. A board that runs out of memory panics and the run
// fails on `panics`, naming where; every run also fails when the fullest board's heap, less
// the ballast, passes its algorithm's budget (sim/lab/heap-size.ts). Run alone:
// `npx vitest run test/ci/lab12.test.ts`.
import { describe, expect, test } from "vitest"
import { APPLICATION, expectApplicationFenced, expectCleanFailovers, expectWithinHeapBudget, runTwelve } from "./lab12-run"

const ALGORITHMS = ["bully", "improved-bully", "ring", "active-list-ring", "bid-ring", "echo"]
const RUNS: { algorithm: string; transport: "bus" | "mqtt"; ballastKb: number }[] = ALGORITHMS.flatMap((algorithm) =>
  (["bus", "mqtt"] as const).map((transport) => ({ algorithm, transport, ballastKb: 28 })),
)

describe("the lab at 12 boards with the application: failover-10", () => {
  test.each(RUNS)("$algorithm over $transport: $ballastKb KB of each heap held, the adaptive detector, T 300 ms", async ({ algorithm, transport, ballastKb }) => {
    const s = await runTwelve({
      algorithm,
      transport,
      program: APPLICATION,
      ballastKb: String(ballastKb),
      failureDetector: "adaptive",
      answerTimeout: "300",
      coordinatorTimeout: "600",
    })
    expect([s.algorithm, s.auth, s.ballastKb, s.timing.answerTimeout, s.timing.failureDetector]).toEqual([algorithm, true, ballastKb, 300, "adaptive"])
    expectCleanFailovers(s)
    expectApplicationFenced(s)
    expectWithinHeapBudget(s)
  }, 900_000)
})
