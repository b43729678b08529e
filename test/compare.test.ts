// electlab compare: the table's figures are the closed forms of the other test files, the
// CSV and SVG are complete, and bad flags are refused.
import { spawnSync } from "node:child_process"
import { mkdtempSync, readFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect } from "vitest"
import { Algorithm } from "../src/core/frame"
import { allAlgorithms, formatCsv, formatSvg, runCompare, runOne } from "../sim/simulator/compare"
import { parseTopology } from "../sim/config/topology"
// this file spans the tiers: `test` is the fast tier's; a test that starts the CLI is slower (test/tiers.ts)
import { mediumTest, test } from "./tiers"

const bin = join(import.meta.dirname, "..", "bin", "electlab.js")
const complete = parseTopology("complete", "t")

function electlab(args: string[]) {
  const r = spawnSync(process.execPath, [bin, ...args], { encoding: "utf8" })
  return { code: r.status, stdout: r.stdout, stderr: r.stderr }
}

describe("electlab compare", () => {
  test("the seeds' claims side by side: Bully worst quadratic, improved Bully linear, the ring about 2n", () => {
    for (const n of [4, 8, 16, 32, 64]) {
      expect(runOne(Algorithm.Bully, n, "worst", complete).messages).toBe((n - 1) * (n - 1) + n - 2)
      expect(runOne(Algorithm.Bully, n, "best", complete).messages).toBe(n - 1)
      expect(runOne(Algorithm.ImprovedBully, n, "worst", complete).messages).toBe(n)
      expect(runOne(Algorithm.ImprovedBully, n, "best", complete).messages).toBe(n - 2)
      const ring = runOne(Algorithm.Ring, n, "worst", complete)
      expect(ring.withoutAck).toBe(2 * n - 1) // ELECTION n + COORDINATOR n-1
      expect(ring.messages).toBe(4 * n - 3) // plus 2(n-1) ACKs
      // k = n - 1 initiators; the dead coordinator's predecessor sends to it until its ACK wait ends
      expect(runOne(Algorithm.BidRing, n, "all", complete).byKind.ELECTION).toBe(2 * (n - 1))
      expect(runOne(Algorithm.ActiveListRing, n, "all", complete).byKind.ELECTION).toBe((n - 1) * (n - 1) + 3)
      expect(runOne(Algorithm.ActiveListRing, n, "worst", complete).messages).toBe(2 * (n - 1) * (n - 1) + n - 1)
      const echo = runOne(Algorithm.Echo, n, "worst", complete)
      // m = n - 1 live: ELECTION 2E' - (m-1) + D with E' = m(m-1)/2, D = m; ACK, ECHO and COORDINATOR m - 1
      expect(echo.messages).toBe(n * n - 3)
      expect(echo.byKind.ACK).toBe(n - 2)
      expect(echo.byKind.ECHO).toBe(n - 2)
      expect(echo.byKind.COORDINATOR).toBe(n - 2)
    }
  })

  test("every algorithm, every family: the highest live process wins with no violation below 107 ids", () => {
    const rows = runCompare({ algorithms: allAlgorithms(), sizes: [4, 9, 30], families: ["best", "worst", "all"], topology: complete })
    expect(rows.length).toBe(6 * 3 * 3)
    for (const r of rows) {
      expect(r.violations).toEqual([])
      expect(r.coordinator).toBe(r.n - 1)
    }
  })

  test("ring lists past 107 ids are reported, not hidden", () => {
    const r = runOne(Algorithm.Ring, 120, "worst", complete)
    expect(r.oversize).toBeGreaterThan(0)
    expect(r.violations.some((v) => v.includes("236-byte frame"))).toBe(true)
    expect(formatCsv([r])).toContain(`,${r.oversize},`)
  })

  mediumTest("--csv: a header and one line per run; --svg: one line per algorithm and family", () => {
    const dir = mkdtempSync(join(tmpdir(), "electlab-"))
    const svg = join(dir, "chart.svg")
    const r = electlab(["compare", "--sizes", "4,8", "--algorithms", "bully,ring", "--families", "worst,all", "--csv", "--svg", svg])
    expect(r.code).toBe(0)
    const lines = r.stdout.trim().split("\n")
    expect(lines[0]).toMatch(/^algorithm,n,family,messages,messages_without_ack,/)
    expect(lines.length).toBe(1 + 2 * 2 * 2)
    expect(lines).toContain("bully,8,worst,55,55,28,21,6,0,0,0,29,5,7,0,")
    const text = readFileSync(svg, "utf8")
    expect(text.startsWith("<svg")).toBe(true)
    expect(text.match(/<path /g)!.length).toBe(2 * 2)
    expect(formatSvg(runCompare({ algorithms: [Algorithm.Echo], sizes: [4, 8], families: ["best"], topology: complete }), complete)).toContain(
      "echo on complete",
    )
  })

  mediumTest("the table without --csv", () => {
    const r = electlab(["compare", "--sizes", "4", "--algorithms", "improved-bully", "--families", "worst"])
    expect(r.code).toBe(0)
    expect(r.stdout).toContain("algorithm       n  family  messages  no ACK  frames  time  coordinator  violations")
    expect(r.stdout).toMatch(/improved-bully {2}4 {2}worst {10}4 {7}4 {7}3 {5}2 {12}3 {2}none/)
  })

  mediumTest("bad flags name the problem", () => {
    expect(electlab(["compare", "--families", "typical"]).stderr).toContain("--families: unknown family 'typical'")
    expect(electlab(["compare", "--sizes", "1"]).stderr).toContain("--sizes: 1 is out of range")
    expect(electlab(["compare", "--algorithms", "raft"]).stderr).toContain("--algorithms: unknown algorithm 'raft'")
    expect(electlab(["compare", "--algorithms", "echo", "--sizes", "4,8", "--topology", "grid:2x2"]).stderr).toContain(
      "--topology (n=8): grid:2x2 needs 4 processes",
    )
  })
})
