// Golden scenarios: each file in test/scenarios holds commands and their expected output.
// After a deliberate change: `npm run golden:update` (or `electlab golden --update`), then review the diff.
import { readdirSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, test } from "vitest"
import { checkGolden, describeMismatch } from "../sim/simulator/golden"
import { parseScenario, ScenarioRunner } from "../sim/simulator/scenario"

const dir = join(import.meta.dirname, "scenarios")
const update = process.env.ELECTLAB_UPDATE_GOLDEN === "1"
const files = readdirSync(dir).filter((f) => f.endsWith(".txt")).sort()

describe("golden scenarios", () => {
  test("the seeds' worked examples are all there", () => {
    expect(files).toEqual(
      expect.arrayContaining([
        "tanenbaum-bully.txt",
        "silberschatz-bully.txt",
        "paper004-bully.txt",
        "paper004-improved-bully.txt",
        "ring.txt",
        "ring-concurrent.txt",
        "active-list-ring.txt",
        "bid-ring.txt",
        "bid-ring-concurrent-increasing.txt",
        "bid-ring-concurrent-decreasing.txt",
        "bid-ring-lost-notice.txt",
        "bid-ring-voter-timeout.txt",
        "echo.txt",
        "echo-concurrent.txt",
        "echo-edges.txt",
      ]),
    )
  })

  for (const file of files)
    test(file, () => {
      const result = checkGolden(join(dir, file), update)
      const report = result.mismatches.map((m) => describeMismatch(file, m)).join("\n\n")
      if (!update) expect(report).toBe("")
    })

  test("a changed expectation is caught", () => {
    const text = "cluster algorithm=bully ids=0..7\ncrash 7\ndetect 4\nsettle\nsummary\n----\ncoordinator 5\n"
    const blocks = parseScenario(text, "inline")
    const outputs = new ScenarioRunner("inline").run(blocks)
    expect(outputs[4].join("\n")).not.toBe(blocks[4].expected!.join("\n"))
    expect(outputs[4][0]).toMatch(/^coordinator 6 · agreement yes · messages 15 /)
  })
})
