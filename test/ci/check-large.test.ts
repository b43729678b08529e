// electlab check at the sizes that take tens of seconds on this 2-core machine: N = 4 and 5
// with one crash, one recovery and one loss (the ideal model, timed detection), each search
// complete and without a violation of what the algorithm promises. CI runs all but echo at
// N = 5, which `npm run check` adds (ELECTLAB_CHECK_FULL=1). Each prints its speed and memory.

import { describe, expect, test } from "vitest"
import { parseAlgorithm } from "../../src/core/frame"
import type { ModelConfig } from "../../sim/check/model"
import { defaultOptions, promisedProperties, search } from "../../sim/check/search"

const full = !!process.env.ELECTLAB_CHECK_FULL

function searchAll(algorithm: string, nodes: number) {
  const c: ModelConfig = { algorithm: parseAlgorithm(algorithm), nodes, timing: "ideal", crashes: 1, recoveries: 1, losses: 1, duplicates: 0 }
  const options = defaultOptions(c, promisedProperties(c))
  options.all = true
  // past the default limit of 10 million (echo at N = 5): 8 to 16 bytes of shared table a state
  options.maxStates = 500_000_000
  const r = search(options)
  console.log(
    `${algorithm} N=${nodes}: ${r.states} states, ${r.seconds} s, ${r.statesPerSecond} states/s, ${r.bytesPerState} bytes/state, ${r.threads} thread(s)`,
  )
  return r
}

describe("the exhaustive check at N = 4 and 5 (one crash, one recovery, one loss)", () => {
  const cases: [string, number, number, boolean][] = [
    ["echo", 4, 2307041, false],
    ["bully", 5, 202592, false],
    ["improved-bully", 5, 3584, false],
    ["ring", 5, 401369, false],
    ["active-list-ring", 5, 332603, false],
    ["bid-ring", 5, 30846, false],
    ["echo", 5, 0, true],
  ]
  for (const [algorithm, nodes, states, long] of cases)
    test.skipIf(long && !full)(`${algorithm}, N = ${nodes}: ${states || "all"} states, eventual agreement and valid coordinators`, { timeout: 4 * 3600_000 }, () => {
      const r = searchAll(algorithm, nodes)
      expect(r.violations.map((v) => `${v.property}: ${v.detail}`)).toEqual([])
      expect(r.properties).toEqual(["eventual-agreement", "valid-coordinator"])
      expect(r).toMatchObject({ complete: true, limits: [] })
      if (states) expect(r.states).toBe(states)
    })
})
