import { execFileSync, spawnSync } from "node:child_process"
import { writeFileSync, mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect } from "vitest"
import { simCommands } from "../sim/cli"
import { InputError } from "../sim/config/input"
import { readScenario, ScenarioRunner, parseScenario } from "../sim/simulator/scenario"
import { parseAlgorithm } from "../src/core/algorithms"
import { clusterOf } from "./commands"
// this file spans the tiers: `test` is the fast tier's; a test that starts the CLI is slower (test/tiers.ts)
import { mediumTest, test } from "./tiers"

const bin = join(import.meta.dirname, "..", "bin", "electlab.js")

function electlab(args: string[]) {
  const r = spawnSync(process.execPath, [bin, ...args], { encoding: "utf8" })
  return { code: r.status, stdout: r.stdout, stderr: r.stderr }
}

const base = { algorithm: "bully", topology: "complete", network: "ideal", seed: "1", loss: "0", chart: true }

function rejects(flags: Record<string, unknown>, message: RegExp) {
  expect(() => simCommands({ ...base, ...flags } as never)).toThrow(InputError)
  expect(() => simCommands({ ...base, ...flags } as never)).toThrow(message)
}

describe("electlab sim: the contract", () => {
  mediumTest("--json prints every field of the contract for bully (seed 004's case)", () => {
    const r = electlab(["sim", "--algorithm", "bully", "--nodes", "10", "--crash", "10", "--detect", "4", "--json"])
    expect(r.code).toBe(0)
    const out = JSON.parse(r.stdout)
    expect(out).toMatchObject({
      algorithm: "bully",
      network: "ideal",
      nodes: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10],
      crashed: [10],
      coordinator: 9,
      agreement: true,
      messages: { total: 44, byKind: { ELECTION: 21, OK: 15, COORDINATOR: 8 } },
      frames: 22,
      electionTime: 5,
      violations: [],
    })
  })

  mediumTest("--json for improved-bully gives the paper's 10 messages", () => {
    const r = electlab(["sim", "--algorithm", "improved-bully", "--nodes", "10", "--crash", "10", "--detect", "4", "--json"])
    expect(r.code).toBe(0)
    const out = JSON.parse(r.stdout)
    expect(out.messages).toEqual({ total: 10, byKind: { ELECTION: 1, OK: 1, COORDINATOR: 8 } })
    expect(out.coordinator).toBe(9)
    expect(out.frames).toBe(3)
  })

  mediumTest("without --json it prints the chart and the summary", () => {
    const r = electlab(["sim", "--ids", "0..7", "--crash", "7", "--detect", "4"])
    expect(r.code).toBe(0)
    expect(r.stdout).toContain("t=0 4 -> 5,6,7 ELECTION")
    expect(r.stdout).toContain("t=4 6 -> 0,1,2,3,4,5 COORDINATOR epoch=1")
    expect(r.stdout.trim().split("\n").at(-1)).toMatch(/^coordinator 6 · agreement yes · messages 15 /)
  })

  mediumTest("a bad flag names the problem, exits non-zero and prints nothing on stdout", () => {
    const r = electlab(["sim", "--algorithm", "raft", "--nodes", "5"])
    expect(r.code).toBe(2)
    expect(r.stdout).toBe("")
    expect(r.stderr).toContain("--algorithm: unknown algorithm 'raft'; known: bully, improved-bully")
  })

  mediumTest("an unknown option is refused by the parser", () => {
    const r = electlab(["sim", "--nodez", "5"])
    expect(r.code).not.toBe(0)
    expect(r.stderr).toContain("unknown option '--nodez'")
  })

  mediumTest("--help lists the flags", () => {
    const out = execFileSync(process.execPath, [bin, "sim", "--help"], { encoding: "utf8" })
    for (const flag of ["--algorithm", "--nodes", "--ids", "--crash", "--detect", "--topology", "--network", "--seed", "--scenario", "--json"])
      expect(out).toContain(flag)
  })

  mediumTest("a run that breaks an invariant exits 3 (nobody notices the crashed coordinator)", () => {
    const r = electlab(["sim", "--nodes", "4", "--crash", "4", "--json"])
    expect(r.code).toBe(3)
    expect(JSON.parse(r.stdout).violations).toEqual(["the agreed coordinator 4 is crashed"])
  })

  mediumTest("the failure detector finds a crashed coordinator by itself", () => {
    const r = electlab(["sim", "--algorithm", "improved-bully", "--nodes", "5", "--crash", "5", "--detector", "--json"])
    expect(r.code).toBe(0)
    const out = JSON.parse(r.stdout)
    expect(out.coordinator).toBe(4)
    expect(out.heartbeats).toBeGreaterThan(0)
  })
})

describe("electlab sim: every rejection path", () => {
  test("unknown algorithm", () => rejects({ algorithm: "paxos", nodes: "3" }, /--algorithm: unknown algorithm 'paxos'/))
  test("every algorithm of the design is implemented", () => {
    for (const algorithm of ["bully", "improved-bully", "ring", "active-list-ring", "bid-ring", "echo"])
      expect(clusterOf(simCommands({ ...base, algorithm, nodes: "3" } as never)).algorithm).toBe(parseAlgorithm(algorithm))
  })
  test("unknown network", () => rejects({ network: "lora", nodes: "3" }, /--network: unknown network 'lora'/))
  test("n below range", () => rejects({ nodes: "1" }, /--nodes: 1 is out of range 2\.\.10000/))
  test("n above range", () => rejects({ nodes: "10001" }, /--nodes: 10001 is out of range/))
  test("n not a number", () => rejects({ nodes: "ten" }, /--nodes: 'ten' is not a number/))
  test("n not whole", () => rejects({ nodes: "2.5" }, /--nodes: '2.5' is not a whole number/))
  test("--nodes and --ids together", () => rejects({ nodes: "3", ids: "1,2,3" }, /--nodes or --ids, not both/))
  test("neither --nodes nor --ids", () => rejects({}, /give --nodes N or --ids/))
  test("duplicate ids", () => rejects({ ids: "1,2,2" }, /--ids: duplicate process id 2/))
  test("an id that is not a number", () => rejects({ ids: "1,x" }, /--ids: 'x' is not a process id/))
  test("an empty id", () => rejects({ ids: "1,,2" }, /--ids: empty entry/))
  test("a backwards range", () => rejects({ ids: "5..2" }, /--ids: range 5\.\.2 runs backwards/))
  test("an id past 65534", () => rejects({ ids: "1,65535" }, /--ids: 65535 is out of range/))
  test("--crash id not in the cluster", () => rejects({ nodes: "5", crash: "6" }, /--crash: process 6 is not in the cluster \(ids 1\.\.5\)/))
  test("--detect id not in the cluster", () => rejects({ nodes: "5", detect: "9" }, /--detect: process 9 is not in the cluster/))
  test("a detector that is itself crashed", () => rejects({ nodes: "5", crash: "4,5", detect: "4" }, /--detect: process 4 is crashed \(--crash\) and cannot notice anything/))
  test("every process crashed", () => rejects({ nodes: "2", crash: "1,2" }, /--crash: every process is crashed/))
  test("bad seed", () => rejects({ nodes: "3", seed: "-1" }, /--seed: -1 is out of range/))
  test("bad loss", () => rejects({ nodes: "3", loss: "1.5" }, /--loss: 1\.5 is out of range 0\.\.1/))
  test("bad grid topology", () => rejects({ nodes: "3", topology: "grid:3" }, /--topology: 'grid:3' is not grid:RxC/))
  test("missing topology file", () => rejects({ nodes: "3", topology: "/nonexistent/edges.txt" }, /--topology: .* readable edge-list file/))
  test("--scenario with cluster flags", () => rejects({ scenario: "x.txt", nodes: "3" }, /--nodes cannot be combined with --scenario/))
  test("a bad edge-list file names the line", () => {
    const dir = mkdtempSync(join(tmpdir(), "electlab-"))
    const file = join(dir, "edges.txt")
    writeFileSync(file, "# edges\n1 2\n2 3 4\n")
    rejects({ nodes: "3", topology: file }, new RegExp(`${file}:3: expected two ids per edge`))
  })
})

describe("scenario files: errors name the file and line", () => {
  function runText(text: string) {
    return new ScenarioRunner("s.txt").run(parseScenario(text, "s.txt"))
  }
  test("unknown command", () => expect(() => runText("cluster nodes=3\nexplode 2\n")).toThrow("s.txt:2: unknown command 'explode'"))
  test("command before cluster", () => expect(() => runText("crash 2\n")).toThrow("s.txt:1: 'crash' before 'cluster'"))
  test("unknown cluster key", () => expect(() => runText("cluster nodes=3 speed=9\n")).toThrow("s.txt:1: unknown key 'speed'"))
  test("bad value", () => expect(() => runText("cluster nodes=3 seed=abc\n")).toThrow("s.txt:1: seed: 'abc' is not a number"))
  test("id outside the cluster", () => expect(() => runText("cluster nodes=3\ncrash 4\n")).toThrow("s.txt:2: process 4 is not in the cluster"))
  test("scheduling in the past", () => expect(() => runText("cluster nodes=3\nrun until=10\nat 5 crash 3\n")).toThrow("s.txt:3: time 5 is in the past"))
  test("separator without a command", () => expect(() => parseScenario("----\n", "s.txt")).toThrow("s.txt:1: '----' with no command"))
  test("heartbeat without a longer failure timeout", () =>
    expect(() => runText("cluster nodes=3 heartbeat=10\n")).toThrow("s.txt:1: failure-timeout must be longer than heartbeat"))
  test("a missing file", () => expect(() => readScenario("/nonexistent.txt")).toThrow("/nonexistent.txt: cannot read the scenario file"))
})

describe("electlab bench", () => {
  mediumTest("--quick --json runs the benchmark elections and reports their exact message counts", () => {
    const r = electlab(["bench", "--quick", "--json"])
    expect(r.code).toBe(0)
    const out = JSON.parse(r.stdout)
    expect(out.bully).toMatchObject({ n: 100, messages: 100 * 100 - 100 - 1, coordinator: 99 })
    expect(out.improvedBully).toMatchObject({ n: 100, messages: 100, coordinator: 99 })
    expect(out.throughput.messagesPerSecond).toBeGreaterThan(0)
  })
})

describe("electlab's output into a pipe its reader closes", () => {
  mediumTest("stops quietly with exit 0 when the reader has gone (`| head`, a pager quit)", async () => {
    const { spawn } = await import("node:child_process")
    for (const args of [["--help"], ["sim", "--algorithm", "bully", "--nodes", "12", "--crash", "12", "--detect", "1"]]) {
      const child = spawn(process.execPath, [bin, ...args])
      // the reader closes before the first byte: every write meets a closed pipe
      child.stdout.destroy()
      let stderr = ""
      child.stderr.on("data", (d) => (stderr += d))
      const code = await new Promise<number | null>((resolve) => child.on("close", resolve))
      expect(stderr, args.join(" ")).toBe("")
      expect(code, args.join(" ")).toBe(0)
    }
  })
})
