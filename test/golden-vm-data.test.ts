// The data the VM replays (test/vm/generate-golden.ts) and its runner (test/vm/golden-runner.ts),
// here in Node: every golden file replays to its expected output and digest, and a changed
// line or digest is caught. The VM runs the same runner on the same data (npm run test:vm).
import { describe, expect, test } from "vitest"
import { goldenFiles, goldenScenario } from "./vm/generate-golden"
import { checkGolden, type GoldenScenario } from "./vm/golden-runner"

const noPause = async () => {}

describe("golden files as VM data", () => {
  for (const file of goldenFiles())
    test(file, async () => {
      expect(await checkGolden(goldenScenario(file), noPause)).toBe("")
    })

  test("a changed expected line is caught, with the place", async () => {
    const s: GoldenScenario = goldenScenario("tanenbaum-bully.txt")
    const settle = s.blocks.find((b) => b.command === "settle")!
    settle.expected![2] = "t=1 6 -> 4 ELECTION"
    expect(await checkGolden(s, noPause)).toBe(
      "tanenbaum-bully.txt:20 (settle), output line 3: expected 't=1 6 -> 4 ELECTION', got 't=1 5 -> 6,7 ELECTION'",
    )
  })

  test("a missing line and another digest are caught", async () => {
    const s = goldenScenario("silberschatz-bully.txt")
    s.blocks[s.blocks.length - 1].expected!.push("5 follower, coordinator 4, epoch 3")
    expect(await checkGolden(s, noPause)).toMatch(/^silberschatz-bully\.txt:\d+ \(status\), output line 5: expected '5 follower, coordinator 4, epoch 3', got '\(nothing\)'$/)
    const t = goldenScenario("silberschatz-bully.txt")
    t.digest += 1
    expect(await checkGolden(t, noPause)).toMatch(/^silberschatz-bully\.txt: trace digest \d+, the host's \d+$/)
  })

  test("a command the VM cannot replay, or another network, is refused with the place", () => {
    expect(() => goldenScenario("regressions/bid-ring-detect-all-two-coordinators.txt")).toThrow(
      "regressions/bid-ring-detect-all-two-coordinators.txt:9: 'check' cannot be replayed in the VM",
    )
    expect(() => goldenScenario("regressions/echo-partition-nobody-coordinator.txt")).toThrow(
      "regressions/echo-partition-nobody-coordinator.txt:7: the VM replays the ideal network only",
    )
  })
})
