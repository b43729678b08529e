// Frames a storm held back arrive seconds after it: they must not start elections once a
// coordinator sits. Twelve processes on the bus (heartbeat 50 ms, failure timeout 250 ms,
// T 40 ms, T' 100 ms); from 1,187 ms every link adds up to 447 ms in order, from 1,493 ms the
// links of 32 up to 361 ms more out of order, from 1,586 ms to 1,759 ms every delay is
// stretched up to 6.95 times: frames sent in the storm arrive until about 7 s. The storm ends
// at 1,815 ms. Before the fix, in every algorithm, followers of the live highest process held
// elections against it 1 to 3.5 s later, each answered within a few ms (ring and
// active-list-ring went on electing to the end of the run). Now no process starts an election
// a failure timeout after the storm, and nothing changes after 10 of them (the campaign's rule).
import { describe, expect } from "vitest"
import { test } from "./tiers"
import { parseScenario, ScenarioRunner } from "../sim/simulator/scenario"
import { Role } from "../src/core/contract"
import { ALGORITHMS } from "../src/core/algorithms"

const FAULT_END = 1815
const FAILURE_TIMEOUT = 250

function storm(algorithm: string, detector: string, seed: number, coordinatorDown: boolean): string {
  return [
    `cluster algorithm=${algorithm} ids=8,64,20,35,78,93,4,77,62,28,91,32 network=bus seed=${seed} answer-timeout=40 coordinator-timeout=100 heartbeat=50 failure-timeout=${FAILURE_TIMEOUT} failure-detector=${detector}`,
    // the highest process down before the storm: the storm's frames reach a coordinator below it
    ...(coordinatorDown ? ["at 500 crash 93"] : []),
    "at 1187 faults delay=447",
    "at 1493 faults on=32 reorder=361",
    "at 1586 faults delay=447 scale=6.95",
    "at 1759 faults delay=447",
    `at ${FAULT_END} faults none`,
    "run until=9000",
    `check stable-since=${FAULT_END + 10 * FAILURE_TIMEOUT}`,
  ].join("\n")
}

/** The check's verdict and the times processes entered the electing role after the storm. */
function run(text: string) {
  const runner = new ScenarioRunner("storm", { quiet: true })
  const blocks = parseScenario(text, "storm")
  runner.run(blocks.slice(0, 1))
  const engine = runner.engine!
  const elections: string[] = []
  engine.roleObserver = (node, role) => {
    if (role === Role.Electing && engine.now > FAULT_END) elections.push(`${node} at ${engine.now.toFixed(1)}`)
  }
  const check = runner.run(blocks.slice(1)).flat().find((l) => l.startsWith("check"))
  return { check, elections, late: elections.filter((e) => Number(e.split(" at ")[1]) > FAULT_END + FAILURE_TIMEOUT) }
}

describe("a storm's late frames start no election once a coordinator sits", () => {
  for (const d of ALGORITHMS)
    for (const detector of ["fixed", "adaptive"])
      for (const coordinatorDown of [false, true])
        test(`${d.name}, ${detector} detector, ${coordinatorDown ? "93 down, 91 leading" : "93 leading"}`, () => {
          for (const seed of [1, 2, 3]) {
            const r = run(storm(d.name, detector, seed, coordinatorDown))
            expect({ seed, check: r.check, late: r.late }).toEqual({ seed, check: "check: ok", late: [] })
          }
        })
})
