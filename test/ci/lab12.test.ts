// The virtual lab at the firmware's largest size, 12 boards: ten crashes and recoveries of the
// coordinator and five kills and restarts (failover-10), on the bus and over MQTT, with two
// coordinators at once in no transition (overlapMs 0). Run under `flock /tmp/electlab-lab.lock`.
import { describe, test } from "vitest"
import { expectCleanFailovers, runTwelve } from "./lab12-run"

describe("the lab at 12 boards: failover-10, two coordinators never for long", () => {
  test("over the bus", async () => {
    expectCleanFailovers(await runTwelve({ transport: "bus" }))
  }, 900_000)

  test("over MQTT", async () => {
    expectCleanFailovers(await runTwelve({ transport: "mqtt" }))
  }, 900_000)
})
