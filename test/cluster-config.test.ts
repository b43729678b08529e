// The one cluster resolver (sim/config/cluster-config.ts) and the timing table
// (src/core/timing.ts): the same manifest gives the simulator, the lab and host nodes the
// same cluster, and errors name the flag, the manifest path or the scenario line.
import { spawnSync } from "node:child_process"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, test } from "vitest"
import { simCommands } from "../sim/cli"
import { buildProgram } from "../sim/cli"
import { defaultSpec } from "../sim/config/cluster-spec"
import { CLUSTER_OPTIONS, clusterArguments, type ClusterUse, givenFlags, optionKeys, resolveCluster } from "../sim/config/cluster-config"
import { labOptions } from "../sim/lab/command"
import { configSource } from "../sim/lab/firmware-image"
import { checkManifest } from "../sim/config/manifest"
import { nodeConfig, type NodeFlags } from "../sim/node/command"
import { liveScenario } from "../sim/web/export"
import { runReplay } from "../sim/web/replay"
import { parseScenario, ScenarioRunner } from "../sim/simulator/scenario"
import { Algorithm } from "../src/core/frame"
import { defaultTiming, idealTiming } from "../src/core/timing"
import { clusterOf } from "./commands"

const bin = join(import.meta.dirname, "..", "bin", "electlab.js")

/** A manifest file: bid-ring on three boards, board 1 the most suitable. */
function manifestFile(extra: Record<string, unknown> = {}, boards?: unknown[]): string {
  const file = join(mkdtempSync(join(tmpdir(), "electlab-")), "devicescript.json")
  const manifest = {
    group: 3,
    algorithm: "bid-ring",
    transport: "bus",
    boards: boards ?? [
      { name: "a", nodeId: 1, suitability: 5 },
      { name: "b", nodeId: 2 },
      { name: "c", nodeId: 3 },
    ],
    ...extra,
  }
  writeFileSync(file, JSON.stringify(manifest))
  return file
}

const labFlags = { loss: "0", delay: "0", seed: "1", transport: "bus" }

describe("the manifest's suitability reaches every driver", () => {
  test("sim --manifest: a bid-ring election that suitability decides (board 1 wins, not 3)", () => {
    const file = manifestFile()
    expect(clusterOf(simCommands({ chart: true, manifest: file, detect: "2" })).suitability).toEqual([5, 0, 0])
    const r = spawnSync(process.execPath, [bin, "sim", "--manifest", file, "--detect", "2", "--json"], { encoding: "utf8" })
    expect(r.status).toBe(0)
    const out = JSON.parse(r.stdout)
    expect(out).toMatchObject({
      algorithm: "bid-ring",
      coordinator: 1,
      agreement: true,
      // 2 initiates: ELECTION and its ACK round the ring of 3, then COORDINATOR and its ACK
      messages: { total: 12, byKind: { ELECTION: 3, COORDINATOR: 3, ACK: 6 } },
      violations: [],
    })
  })

  test("sim: the manifest's suitability follows the node ids, whatever order --ids gives", () => {
    const spec = clusterOf(simCommands({ chart: true, manifest: manifestFile(), ids: "3,1,2", detect: "2" }))
    expect(spec.ids).toEqual([3, 1, 2])
    expect(spec.suitability).toEqual([0, 5, 0])
  })

  test("sim: --suitability beats the manifest; another algorithm ignores the manifest's", () => {
    const file = manifestFile()
    expect(clusterOf(simCommands({ chart: true, manifest: file, suitability: "0,0,9" })).suitability).toEqual([0, 0, 9])
    expect(clusterOf(simCommands({ chart: true, manifest: file, algorithm: "bully" })).suitability).toBeUndefined()
  })

  test("lab: the manifest's suitability goes into the options and into the compiled firmware's entry", () => {
    const options = labOptions({ ...labFlags, manifest: manifestFile() })
    expect(options.algorithm).toBe(Algorithm.BidRing)
    expect(options.suitability).toEqual([5, 0, 0])
    expect(options.group).toBe(3)
    const entry = configSource({ ...options, authKey: undefined })
    expect(entry).toContain("suitability: [5, 0, 0][[1, 2, 3].indexOf(nodeId)] ?? 0,")
    // without suitability the entry is as before
    expect(configSource({ ...options, suitability: undefined })).toContain("suitability: 0,")
  })

  test("node: a host node takes its own board's suitability from the manifest, or from --suitability", () => {
    const file = manifestFile()
    const flags = { transport: "mqtt", prefix: "electlab", manifest: file }
    expect(nodeConfig({ ...flags, id: "1" }, "mqtt://127.0.0.1:1883").suitability).toBe(5)
    expect(nodeConfig({ ...flags, id: "2" }, "mqtt://127.0.0.1:1883").suitability).toBe(0)
    expect(nodeConfig({ ...flags, id: "3", ids: "1,2,3", suitability: "0,0,7" }, "mqtt://127.0.0.1:1883").suitability).toBe(7)
    expect(nodeConfig({ ...flags, id: "1" }, "mqtt://127.0.0.1:1883")).toMatchObject({ group: 3, algorithm: Algorithm.BidRing, ids: [1, 2, 3] })
  })

  test("the live view's export: the lab's suitability and detector go into the scenario, which elects the same board", () => {
    const timing = { ...defaultTiming("bus"), failureDetector: "adaptive" }
    const text = liveScenario({ algorithm: "bid-ring", ids: [1, 2, 3], transport: "bus", timing, suitability: [5, 0, 0] }, [], 3000)
    expect(text).toContain(" failure-detector=adaptive suitability=5,0,0\n")
    const run = runReplay({ name: "live", text })
    expect(run.error).toBeNull()
    expect(run.summaries[0].actual).toMatch(/^coordinator 1 · agreement yes/)
  })
})

describe("one timing table per transport", () => {
  test("the rows: ideal in ticks, bus and WiFi in ms as docs/scenarios.md documents", () => {
    expect(defaultTiming("ideal")).toEqual({ answerTimeout: 3, coordinatorTimeout: 5, heartbeatInterval: 10, failureTimeout: 25, failureDetector: "fixed" })
    const board = { answerTimeout: 200, coordinatorTimeout: 400, heartbeatInterval: 250, failureTimeout: 800, failureDetector: "fixed" }
    expect(defaultTiming("bus")).toEqual(board)
    expect(defaultTiming("wifi")).toEqual(board)
    expect(idealTiming()).toEqual({ answerTimeout: 3, coordinatorTimeout: 5, heartbeatInterval: 0, failureTimeout: 0 })
  })

  test("every driver starts from it: manifest, sim, scenario, lab, node", () => {
    const m = checkManifest({ group: 1, algorithm: "bully", transport: "mqtt", mqtt: { broker: "mqtt://h:1883" }, boards: [{ name: "a", nodeId: 1 }, { name: "b", nodeId: 2 }] }, "m.json")
    expect(m.timing).toEqual({ heartbeatMs: 250, failureTimeoutMs: 800, answerTimeoutMs: 200, coordinatorTimeoutMs: 400, failureDetector: "fixed" })
    // sim: without --detector no heartbeats; with it the table's
    expect(clusterOf(simCommands({ chart: true, nodes: "3", network: "bus" })).timing).toEqual({ answerTimeout: 200, coordinatorTimeout: 400, heartbeatInterval: 0, failureTimeout: 0 })
    expect(clusterOf(simCommands({ chart: true, nodes: "3", network: "wifi", detector: true })).timing).toEqual(defaultTiming("wifi"))
    expect(clusterOf(simCommands({ chart: true, nodes: "3", detector: true })).timing).toEqual(defaultTiming("ideal"))
    const runner = new ScenarioRunner("s.txt")
    runner.run(parseScenario("cluster nodes=3 network=bus\n", "s.txt"))
    expect(runner.spec!.timing).toEqual({ answerTimeout: 200, coordinatorTimeout: 400, heartbeatInterval: 0, failureTimeout: 0 })
    expect(labOptions({ ...labFlags, manifest: undefined, transport: "mqtt", ids: "1,2" }).timing).toEqual(defaultTiming("wifi"))
    expect(nodeConfig({ transport: "mqtt", prefix: "p", id: "1", ids: "1,2", manifest: manifestFile() }, "b").timing).toEqual(defaultTiming("bus"))
  })

  test("flags beat the manifest, the manifest beats the table", () => {
    const file = manifestFile({ timing: { heartbeatMs: 100, failureTimeoutMs: 500 } })
    const config = nodeConfig({ transport: "mqtt", prefix: "p", id: "1", manifest: file, answerTimeout: "50", coordinatorTimeout: "90" }, "b")
    expect(config.timing).toEqual({ answerTimeout: 50, coordinatorTimeout: 90, heartbeatInterval: 100, failureTimeout: 500, failureDetector: "fixed" })
  })
})

describe("errors name the flag, the manifest path or the scenario line", () => {
  test("a flag", () => {
    expect(() => nodeConfig({ transport: "mqtt", prefix: "p", id: "1", ids: "1,2", heartbeat: "900" }, "b")).toThrow(
      "--heartbeat: --fail-timeout must be longer than --heartbeat",
    )
    expect(() => labOptions({ ...labFlags, boards: "13" })).toThrow("--boards: 13 is out of range 2..12")
  })

  test("a manifest path", () => {
    const boards = Array.from({ length: 13 }, (_, i) => ({ name: `b${i}`, nodeId: i + 1 }))
    const file = manifestFile({}, boards)
    expect(() => labOptions({ ...labFlags, manifest: file })).toThrow(`${file}: boards: the firmware joins labs of at most 12 boards, got 13`)
    expect(() => simCommands({ chart: true, manifest: file, algorithm: "ring", suitability: "1" })).toThrow(
      "--suitability: applies to bid-ring only",
    )
  })

  test("a scenario line", () => {
    const run = (text: string) => new ScenarioRunner("s.txt").run(parseScenario(text, "s.txt"))
    expect(() => run("# c\ncluster nodes=3 answer-timeout=9 coordinator-timeout=5\n")).toThrow(
      "s.txt:2: coordinator-timeout must be longer than answer-timeout",
    )
    expect(() => run("cluster nodes=3 boards=4\n")).toThrow("s.txt:1: unknown key 'boards'")
  })

  test("given flags are the cluster options the command takes, by their commander names", () => {
    const given = givenFlags({ failTimeout: "300", loss: "0.5", seed: "2", json: true }, "node")
    expect([...given.entries()]).toEqual([["failure-timeout", { text: "300", where: "--fail-timeout" }]])
    expect(resolveCluster({ use: "sim", given: givenFlags({ nodes: "2", loss: "0.5" }, "sim") }).loss).toBe(0.5)
  })
})

describe("a cluster option is one entry of the table", () => {
  const helpOf = (command: string) => {
    const c = buildProgram().commands.find((x) => x.name() === command)!
    return c.options.map((o) => o.long)
  }

  test("each command offers exactly the table's options for its use", () => {
    for (const use of ["sim", "node", "lab"] as ClusterUse[]) {
      const flags = helpOf(use)
      for (const o of CLUSTER_OPTIONS) expect(flags.includes(o.flag), `${use} ${o.flag}`).toBe(o.uses.includes(use) || otherMeaning(use, o.flag))
    }
  })

  test("a new entry reaches the commands that use it, the scenario line and the spec, with no other edit", () => {
    CLUSTER_OPTIONS.push({
      key: "test-budget",
      flag: "--test-budget",
      arg: "n",
      help: "an option made up by this test",
      uses: ["sim", "scenario", "node"],
      parse: (text: string) => Number(text),
      apply: (spec, value) => (spec.messageBudget = value as number),
    })
    try {
      expect(helpOf("sim")).toContain("--test-budget")
      expect(helpOf("node")).toContain("--test-budget")
      expect(helpOf("lab")).not.toContain("--test-budget")
      expect(optionKeys("scenario")).toContain("test-budget")
      expect(resolveCluster({ use: "sim", given: givenFlags({ nodes: "2", testBudget: "7" }, "sim") }).messageBudget).toBe(7)
    } finally {
      CLUSTER_OPTIONS.pop()
    }
  })
})

describe("the arguments the lab gives a host node", () => {
  /** The node command's flags object (commander's attribute names) from an argument list. */
  const flagsOf = (args: string[]) => {
    const c = buildProgram().commands.find((x) => x.name() === "node")!
    c.parseOptions(args)
    return c.opts<NodeFlags>()
  }
  const timing = { ...defaultTiming("wifi"), heartbeatInterval: 300, failureTimeout: 900, answerTimeout: 210, coordinatorTimeout: 420, failureDetector: "adaptive" as const }

  test.each([
    ["bid-ring with suitability", { algorithm: Algorithm.BidRing, ids: [4, 2, 9], group: 7, timing, suitability: [3, 0, 8] }],
    ["bid-ring without: zeros, so a manifest's cannot fill them in", { algorithm: Algorithm.BidRing, ids: [1, 2], group: 2, timing }],
    ["improved-bully", { algorithm: Algorithm.ImprovedBully, ids: [1, 2, 3, 12], group: 1, timing: defaultTiming("wifi") }],
  ])("read back by the node command, they give the lab's cluster: %s", (_, given) => {
    const spec = { ...defaultSpec(), ...given }
    // a manifest in the way (bid-ring, group 3, boards 1..3, board 1's suitability 5) must change nothing
    const flags = { ...flagsOf(clusterArguments(spec, "node")), manifest: manifestFile() }
    spec.ids.forEach((id, k) => {
      const config = nodeConfig({ ...flags, id: String(id) }, "mqtt://127.0.0.1:1883")
      expect(config).toMatchObject({ nodeId: id, algorithm: spec.algorithm, ids: spec.ids, group: spec.group, timing: spec.timing })
      expect(config.suitability).toBe(spec.suitability?.[k] ?? 0)
    })
  })

  test("an option a host node takes without a writer is an error, not a flag left out", () => {
    CLUSTER_OPTIONS.push({ key: "test-only", flag: "--test-only", arg: "n", help: "made up by this test", uses: ["node"], parse: (text: string) => text })
    try {
      expect(() => clusterArguments(defaultSpec(), "node")).toThrow(/test-only has no writer/)
    } finally {
      CLUSTER_OPTIONS.pop()
    }
  })
})

/** The lab's own --loss and --seed are its bus faults, not the cluster's. */
function otherMeaning(use: ClusterUse, flag: string): boolean {
  return use === "lab" && (flag === "--loss" || flag === "--seed")
}
