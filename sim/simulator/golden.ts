// Golden scenario files: run each command, compare with the expected part, or rewrite it.

import { readFileSync, writeFileSync } from "node:fs"
import { parseScenario, renderScenario, scenarioHeader, ScenarioRunner } from "./scenario"

export interface GoldenMismatch {
  line: number
  command: string
  expected: string[]
  actual: string[]
}

export interface GoldenResult {
  file: string
  mismatches: GoldenMismatch[]
  rewritten: boolean
}

export function checkGolden(file: string, update: boolean): GoldenResult {
  const text = readFileSync(file, "utf8")
  const blocks = parseScenario(text, file)
  const outputs = new ScenarioRunner(file).run(blocks)
  const mismatches: GoldenMismatch[] = []
  blocks.forEach((b, i) => {
    const expected = b.expected ?? []
    if (b.expected === null || expected.join("\n") !== outputs[i].join("\n"))
      mismatches.push({ line: b.line, command: b.command, expected, actual: outputs[i] })
  })
  if (update && mismatches.length) {
    writeFileSync(file, renderScenario(scenarioHeader(text), blocks, outputs))
    return { file, mismatches, rewritten: true }
  }
  return { file, mismatches, rewritten: false }
}

export function describeMismatch(file: string, m: GoldenMismatch): string {
  return [
    `${file}:${m.line}: ${m.command}`,
    "--- expected",
    ...m.expected,
    "+++ actual",
    ...m.actual,
  ].join("\n")
}
