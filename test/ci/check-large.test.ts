// electlab check at the sizes that take seconds to a minute on this 2-core machine: N = 4
// and 5 with one crash, one recovery and one loss (the ideal model), each search complete
// and without a violation: of what the algorithm promises with timed detection, with the
// nodes' own heartbeats (`--detection heartbeats`), and of the fencing tokens (`--property
// fenced`). Each prints its speed and memory. Echo at N = 5 does not finish (docs/check.md);
// the longest searches here run only in `npm run check` (ELECTLAB_CHECK_FULL=1).

import { describe, expect, test } from "vitest"
import { parseAlgorithm } from "../../src/core/frame"
import type { Detection, ModelConfig } from "../../sim/check/model"
import { defaultOptions, type Property, promisedProperties, search } from "../../sim/check/search"

const full = !!process.env.ELECTLAB_CHECK_FULL

function searchAll(algorithm: string, nodes: number, detection: Detection = "timed", properties?: Property[]) {
  const c: ModelConfig = { algorithm: parseAlgorithm(algorithm), nodes, timing: "ideal", crashes: 1, recoveries: 1, losses: 1, duplicates: 0, detection }
  const options = defaultOptions(c, properties ?? promisedProperties(c))
  options.all = true
  const r = search(options)
  console.log(
    `${algorithm} N=${nodes} ${detection} ${r.properties.join(",")}: ${r.states} states, ${r.seconds} s, ${r.statesPerSecond} states/s, ${r.bytesPerState} bytes/state, ${r.threads} thread(s)`,
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

describe("with the nodes' own heartbeats, failure detector and handover (one crash, one recovery, one loss)", () => {
  const cases: [string, number, number, boolean][] = [
    ["ring", 3, 80176, false],
    ["active-list-ring", 3, 61538, false],
    ["bid-ring", 3, 30712, false],
    ["echo", 3, 45655, false],
    ["bully", 4, 64810, false],
    ["improved-bully", 4, 23449, false],
    ["ring", 4, 598543, true],
    ["active-list-ring", 4, 224453, true],
    ["bid-ring", 4, 87925, false],
    ["echo", 4, 3986851, true],
  ]
  for (const [algorithm, nodes, states, slow] of cases)
    test.skipIf(slow && !full)(`${algorithm}, N = ${nodes}: ${states} states, eventual agreement and valid coordinators`, { timeout: 900_000 }, () => {
      const r = searchAll(algorithm, nodes, "heartbeats")
      expect(r.violations.map((v) => `${v.property}: ${v.detail}`)).toEqual([])
      expect(r.properties).toEqual(["eventual-agreement", "valid-coordinator"])
      expect(r).toMatchObject({ complete: true, limits: [], detection: "heartbeats", states })
    })
})

describe("the fencing tokens (one crash, one recovery, one loss)", () => {
  // N = 3 for bully and improved-bully: test/check-heartbeats.test.ts
  const cases: [string, number, Detection, number, boolean][] = [
    ["ring", 3, "timed", 16727, false],
    ["active-list-ring", 3, "timed", 10749, false],
    ["bid-ring", 3, "timed", 5960, false],
    ["echo", 3, "timed", 10518, false],
    ["ring", 3, "heartbeats", 81539, true],
    ["active-list-ring", 3, "heartbeats", 61893, true],
    ["bid-ring", 3, "heartbeats", 30779, true],
    ["echo", 3, "heartbeats", 45878, false],
    ["bully", 4, "timed", 8835, false],
    ["improved-bully", 4, "timed", 1179, false],
    ["ring", 4, "timed", 113941, false],
    ["active-list-ring", 4, "timed", 54759, false],
    ["bid-ring", 4, "timed", 14828, false],
    ["echo", 4, "timed", 2307399, true],
    ["bully", 4, "heartbeats", 68831, false],
    ["improved-bully", 4, "heartbeats", 23553, false],
    ["ring", 4, "heartbeats", 615629, true],
    ["active-list-ring", 4, "heartbeats", 226372, true],
    ["bid-ring", 4, "heartbeats", 87952, true],
    ["echo", 4, "heartbeats", 3987327, true],
  ]
  for (const [algorithm, nodes, detection, states, slow] of cases)
    test.skipIf(slow && !full)(`${algorithm}, N = ${nodes}, ${detection}: ${states} states, fenced and eventual agreement`, { timeout: 900_000 }, () => {
      const r = searchAll(algorithm, nodes, detection, ["fenced", "eventual-agreement", "valid-coordinator"])
      expect(r.violations.map((v) => `${v.property}: ${v.detail}`)).toEqual([])
      expect(r).toMatchObject({ complete: true, limits: [], states })
    })
})
