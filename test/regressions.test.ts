// Regression scenarios of failures found by hand and by the campaign (test/scenarios/regressions/):
// each file states the correct outcome in the expected part of its `check` (and any other block
// that has one); blocks without an expected part (long traces) are run but not compared.
import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, test } from "vitest"
import { parseScenario, ScenarioRunner } from "../sim/simulator/scenario"

const dir = join(import.meta.dirname, "scenarios", "regressions")
const files = readdirSync(dir).filter((f) => f.endsWith(".txt")).sort()

describe("regression scenarios", () => {
  test("the three hand-found examples are there", () => {
    expect(files).toEqual(
      expect.arrayContaining([
        "ring-returning-election-dropped.txt",
        "bid-ring-detect-all-two-coordinators.txt",
        "bid-ring-best-bid-follows-lower.txt",
      ]),
    )
  })

  for (const file of files)
    test(file, () => {
      const path = join(dir, file)
      const blocks = parseScenario(readFileSync(path, "utf8"), path)
      expect(blocks.some((b) => b.expected !== null)).toBe(true)
      const outputs = new ScenarioRunner(path, { quiet: true }).run(blocks)
      blocks.forEach((b, i) => {
        if (b.expected !== null) expect(`${b.command}\n${outputs[i].join("\n")}`).toBe(`${b.command}\n${b.expected.join("\n")}`)
      })
    })
})
