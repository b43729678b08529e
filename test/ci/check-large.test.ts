// electlab check at the sizes that take seconds to a minute on this 2-core machine: N = 4
// and 5 with one crash, one recovery and one loss (the ideal model, timed detection), each
// search complete and without a violation of what the algorithm promises. Each prints its
// speed and memory. Echo at N = 5 does not finish (docs/check.md).

import { describe, expect, test } from "vitest"
import { parseAlgorithm } from "../../src/core/frame"
import type { ModelConfig } from "../../sim/check/model"
import { defaultOptions, promisedProperties, search } from "../../sim/check/search"

function searchAll(algorithm: string, nodes: number) {
  const c: ModelConfig = { algorithm: parseAlgorithm(algorithm), nodes, timing: "ideal", crashes: 1, recoveries: 1, losses: 1, duplicates: 0 }
  const options = defaultOptions(c, promisedProperties(c))
  options.all = true
  const r = search(options)
  console.log(
    `${algorithm} N=${nodes}: ${r.states} states, ${r.seconds} s, ${r.statesPerSecond} states/s, ${r.bytesPerState} bytes/state, ${r.threads} thread(s)`,
  )
  return r
}

describe("the exhaustive check at N = 4 and 5 (one crash, one recovery, one loss)", () => {
  const cases: [string, number, number][] = [
    ["echo", 4, 2307041],
    ["bully", 5, 202592],
    ["improved-bully", 5, 3471],
    ["ring", 5, 401369],
    ["active-list-ring", 5, 332603],
    ["bid-ring", 5, 30846],
  ]
  for (const [algorithm, nodes, states] of cases)
    test(`${algorithm}, N = ${nodes}: ${states} states, eventual agreement and valid coordinators`, () => {
      const r = searchAll(algorithm, nodes)
      expect(r.violations.map((v) => `${v.property}: ${v.detail}`)).toEqual([])
      expect(r.properties).toEqual(["eventual-agreement", "valid-coordinator"])
      expect(r).toMatchObject({ complete: true, limits: [], states })
    })
})
