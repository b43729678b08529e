// The `electlab` command line. `sim` is a contract (see docs/scenarios.md): flags,
// --json fields and message kind names are relied on by tests and users' scripts.
// Each command loads its own modules when it runs: `electlab node` on a small machine carries
// neither the lab nor the browser.

import { Command, CommanderError } from "commander"
import { algorithmName, descriptorOf } from "../src/core/algorithms"
import { countsByKindName } from "../src/core/chart"
import { NO_NODE } from "../src/core/contract"
import {
  checkMembers,
  InputError,
  MAX_NODES,
  MIN_NODES,
  parseAlgorithmName,
  parseIdArgument,
  parseInteger,
  parseNumber,
  parseNumberList,
} from "./config/input"
import { addClusterOptions } from "./config/cli-options"
import { givenFlags, namesWhere, resolveCluster } from "./config/cluster-config"
import { hasLinkFaults, noLinkFaults, parsePartition } from "./simulator/faults"
import type { CampaignFlags } from "./campaign/command"
import { registerCheckCommand } from "./check/command"
import { readScenario, type ScenarioCommand, ScenarioRunner } from "./simulator/scenario"
import { allAlgorithms, DEFAULT_SIZES, FAMILIES, formatCsv, formatSvg, formatTable, parseFamilies, runCompare } from "./simulator/compare"
import { neighborsFor, parseTopology } from "./config/topology"
import { checkGolden, describeMismatch } from "./simulator/golden"
import type { LabFlags } from "./lab/command"
import type { NodeFlags } from "./node/command"
import { readManifest } from "./config/manifest"
import type { SoakFlags } from "./lab/soak-command"
import type { SizeFlags } from "./lab/image-size"
import { readKeyFile, writeKeyFile } from "./auth/keys"
import type { BundleFlags, FlashFlags } from "./project/project"
import type { BuildCheck } from "./project/check"
import type { DoctorFlags } from "./project/doctor"
import { DEFAULT_PROGRAM, defaultProgram } from "./lab/program"
import { PROJECT } from "./config/root"
import { readdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"

const GOLDEN_DIR = join(import.meta.dirname, "..", "test", "scenarios")

interface SimFlags {
  algorithm?: string
  nodes?: string
  ids?: string
  crash?: string
  detect?: string
  topology?: string
  suitability?: string
  network?: string
  seed?: string
  scenario?: string
  json?: boolean
  loss?: string
  detector?: boolean
  failureDetector?: string
  until?: string
  maxEvents?: string
  chart: boolean
  manifest?: string
  duplicate?: string
  reorder?: string
  spike?: string
  spikeDelay?: string
  partition?: string
  freeze?: string
}

/** What `electlab sim --json` prints (the contract's fields, then extras). */
export interface SimReport {
  algorithm: string
  network: string
  nodes: number[]
  crashed: number[]
  coordinator: number | null
  agreement: boolean
  messages: { total: number; byKind: Record<string, number> }
  frames: number
  electionTime: number
  violations: string[]
  heartbeats: number
  lost: number
  seed: number
  endTime: number
}

/** The `sim` flags as typed scenario commands, each flag checked by name. */
export function simCommands(flags: SimFlags): ScenarioCommand[] {
  const scenarioOnly = ["nodes", "ids", "crash", "detect", "detector", "until", "manifest", "suitability", "duplicate", "reorder", "spike", "spikeDelay", "partition", "freeze"] as const
  if (flags.scenario) {
    for (const key of scenarioOnly)
      if (flags[key] !== undefined)
        throw new InputError(`--${key} cannot be combined with --scenario; put it in the file`)
    return []
  }
  const spec = resolveCluster({
    use: "sim",
    given: givenFlags(flags, "sim"),
    manifest: flags.manifest ? { file: flags.manifest, manifest: readManifest(flags.manifest) } : null,
    detector: !!flags.detector,
  })
  const ids = spec.ids
  const crashed = flags.crash !== undefined ? parseIdArgument(flags.crash, "--crash") : []
  checkMembers(crashed, ids, "--crash")
  let detect: number[] | "all" | null = null
  if (flags.detect !== undefined) {
    if (flags.detect === "all") detect = "all"
    else {
      detect = parseIdArgument(flags.detect, "--detect")
      checkMembers(detect, ids, "--detect")
      for (const id of detect)
        if (crashed.includes(id))
          throw new InputError(`process ${id} is crashed (--crash) and cannot notice anything`, "--detect")
    }
  }
  if (crashed.length === ids.length) throw new InputError("every process is crashed", "--crash")

  const commands: ScenarioCommand[] = [{ verb: "cluster", spec }, ...faultCommands(flags, ids)]
  if (crashed.length) commands.push({ verb: "crash", ids: crashed })
  if (detect) commands.push({ verb: "detect", ids: detect })
  if (flags.detector || flags.until !== undefined) {
    const until = flags.until !== undefined ? parseNumber(flags.until, "--until", 0, 1e12) : spec.network === "ideal" ? 200 : 10000
    commands.push({ verb: "run", until })
  } else {
    commands.push({ verb: "settle", maxEvents: flags.maxEvents ? parseInteger(flags.maxEvents, "--max-events", 1, 1e12) : null })
  }
  commands.push({ verb: "summary" })
  return commands
}

/** The fault flags as scenario commands, checked here so errors name the flag. */
function faultCommands(flags: SimFlags, ids: number[]): ScenarioCommand[] {
  const commands: ScenarioCommand[] = []
  const faults = noLinkFaults()
  if (flags.duplicate !== undefined) faults.duplicate = parseNumber(flags.duplicate, "--duplicate", 0, 1)
  if (flags.reorder !== undefined) faults.reorder = parseNumber(flags.reorder, "--reorder", 0, 1e9)
  if (flags.spike !== undefined) {
    faults.spike = parseNumber(flags.spike, "--spike", 0, 1)
    if (flags.spikeDelay === undefined) throw new InputError("--spike needs --spike-delay (how long a spike adds)", "--spike")
  }
  if (flags.spikeDelay !== undefined) faults.spikeDelay = parseNumber(flags.spikeDelay, "--spike-delay", 0, 1e9)
  if (hasLinkFaults(faults)) commands.push({ verb: "faults", faults })
  if (flags.partition !== undefined)
    commands.push({ verb: "partition", cuts: parsePartition(flags.partition, ids, "--partition"), text: flags.partition })
  if (flags.freeze !== undefined) {
    const m = /^([^:]+):(.+)$/.exec(flags.freeze)
    if (!m) throw new InputError(`expected ID:DURATION, e.g. 5:300, got '${flags.freeze}'`, "--freeze")
    const frozen = parseIdArgument(m[1], "--freeze")
    checkMembers(frozen, ids, "--freeze")
    commands.push({ verb: "freeze", ids: frozen, duration: parseNumber(m[2], "--freeze", 0.001, 1e12) })
  }
  return commands
}

function runSim(flags: SimFlags): number {
  const runner = new ScenarioRunner(flags.scenario ?? "sim")
  const lines: string[] = []
  if (flags.scenario) {
    const blocks = readScenario(flags.scenario)
    // (a loop, not push(...out): a large cluster's chart overflows the call stack)
    for (const out of runner.run(blocks)) for (const line of out) lines.push(line)
    if (!runner.lastSummary) {
      for (const line of runner.runCommand("summary", `${flags.scenario}: end`)) lines.push(line)
    }
  } else {
    for (const command of simCommands(flags)) for (const line of runner.execute(command, "sim")) lines.push(line)
  }
  const s = runner.lastSummary!
  const engine = runner.engine!
  const spec = runner.spec!
  if (flags.json) {
    const report: SimReport = {
      algorithm: algorithmName(spec.algorithm),
      network: spec.network,
      nodes: [...engine.ids],
      crashed: s.crashed,
      coordinator: s.coordinator === NO_NODE ? null : s.coordinator,
      agreement: s.agreement,
      messages: { total: s.messages, byKind: countsByKindName(s.byKind) },
      frames: s.frames,
      electionTime: Math.round(s.electionTime * 1000) / 1000,
      violations: s.violations,
      heartbeats: s.heartbeats,
      lost: s.lost,
      seed: spec.seed,
      endTime: engine.now,
    }
    process.stdout.write(JSON.stringify(report) + "\n")
  } else {
    const chart = flags.chart ? lines : lines.slice(-1)
    process.stdout.write(chart.join("\n") + "\n")
  }
  // a scenario's `check` (stability included) fails the run too
  return s.violations.length === 0 && !runner.lastCheck?.length ? 0 : 3
}

interface CompareFlags {
  sizes: string
  algorithms?: string
  families: string
  topology: string
  csv?: boolean
  svg?: string
}

function runCompareCommand(flags: CompareFlags): number {
  const sizes = parseNumberList(flags.sizes, "--sizes", MIN_NODES, MAX_NODES)
  const algorithms = flags.algorithms
    ? flags.algorithms.split(",").map((name) => parseAlgorithmName(name.trim(), "--algorithms"))
    : allAlgorithms()
  const families = parseFamilies(flags.families)
  const topology = parseTopology(flags.topology, "--topology")
  if (algorithms.some((a) => descriptorOf(a).usesGraph)) for (const n of sizes) neighborsFor(topology, Array.from({ length: n }, (_, i) => i + 1), `--topology (n=${n})`)
  const rows = runCompare({ algorithms, sizes, families, topology })
  process.stdout.write(flags.csv ? formatCsv(rows) : formatTable(rows, topology))
  if (flags.svg) writeFileSync(flags.svg, formatSvg(rows, topology))
  return 0
}

function runGolden(files: string[], update: boolean): number {
  const list = files.length
    ? files
    : readdirSync(GOLDEN_DIR)
        .filter((f) => f.endsWith(".txt"))
        .sort()
        .map((f) => join(GOLDEN_DIR, f))
  let failed = 0
  for (const file of list) {
    const r = checkGolden(file, update)
    if (r.rewritten) process.stdout.write(`rewrote ${file} (${r.mismatches.length} blocks changed)\n`)
    else if (r.mismatches.length) {
      failed++
      for (const m of r.mismatches) process.stdout.write(describeMismatch(file, m) + "\n\n")
    } else process.stdout.write(`ok ${file}\n`)
  }
  return failed ? 1 : 0
}

/**
 * The project's checks before a command builds (sim/project/check.ts): true when it may go on;
 * else each problem is printed on one line and the exit code is 1, before anything is built.
 */
async function projectReady(command: string, check: BuildCheck): Promise<boolean> {
  const { checkBeforeBuild } = await import("./project/check")
  if (checkBeforeBuild(command, check, (line) => process.stderr.write(line + "\n"))) return true
  process.exitCode = 1
  return false
}

/** The page that explains each command; its help ends by naming it. */
const DETAILS: Record<string, string> = {
  sim: "docs/scenarios.md",
  manifest: "docs/lab-guide.md",
  node: "docs/wifi.md",
  settings: "docs/lab-guide.md",
  keygen: "docs/security.md",
  lab: "docs/lab.md",
  view: "docs/lab.md",
  golden: "docs/scenarios.md",
  compare: "docs/scenarios.md",
  campaign: "docs/scenarios.md",
  check: "docs/check.md",
  "bench:failover": "docs/benchmarks.md",
  soak: "docs/benchmarks.md",
  bench: "docs/benchmarks.md",
  size: "docs/image-size.md",
  init: "docs/api.md",
  doctor: "docs/api.md",
  bundle: "docs/api.md",
  flash: "docs/api.md",
}

export function buildProgram(): Command {
  const program = new Command()
  program
    .name("electlab")
    .description("Coordinator election for ESP32 boards: simulator, lab and tools")
    .showHelpAfterError()
    .exitOverride()
  addClusterOptions(program.command("sim").description("run one election scenario in the deterministic simulator"), "sim")
    .option("--crash <list>", "processes down at time 0")
    .option("--detect <list>", "processes that notice the coordinator's failure at time 0, or 'all'")
    .option("--duplicate <p>", "probability that a message arrives twice (0..1)")
    .option("--reorder <d>", "extra delay drawn from [0, d) per message, so messages overtake each other")
    .option("--spike <p>", "probability of a delay spike (0..1); with --spike-delay")
    .option("--spike-delay <d>", "how long a delay spike adds (0.5..1.5 times this)")
    .option("--partition <spec>", "cut links from time 0: 1,2|3,4,5 (both ways) or 1,2->3 (one way)")
    .option("--freeze <id:d>", "process id is up but neither hears nor sends for d from time 0, e.g. 5:300")
    .option("--detector", "turn the heartbeat failure detector on and run for a fixed time")
    .option("--until <t>", "run until this time instead of until quiet")
    .option("--max-events <n>", "give up settling after this many events")
    .option("--scenario <file>", "run a scenario file (see test/scenarios/)")
    .option("--manifest <file>", "take node ids, algorithm, group and timing from a lab manifest (devicescript.json)")
    .option("--json", "print one JSON object instead of the chart")
    .option("--no-chart", "print only the summary line")
    .action((flags: SimFlags) => {
      process.exitCode = runSim(flags)
    })
  program
    .command("manifest")
    .description("check a lab manifest and list its boards")
    .argument("[file]", "the manifest", "devicescript.json")
    .action((file: string) => {
      const m = readManifest(file)
      const lines = [
        `${file}: group ${m.group}, ${m.algorithm} over ${m.transport}, ${m.boards.length} boards`,
        `timing: heartbeat ${m.timing.heartbeatMs} ms, failure timeout ${m.timing.failureTimeoutMs} ms (${m.timing.failureDetector} detector), T ${m.timing.answerTimeoutMs} ms, T' ${m.timing.coordinatorTimeoutMs} ms`,
        ...m.boards.map(
          (b) =>
            `  node ${b.nodeId}: ${b.name}${b.board ? ` (${b.board})` : ""}${b.deviceId ? ` device ${b.deviceId}` : ""}` +
            (b.suitability !== undefined ? ` suitability ${b.suitability}` : ""),
        ),
      ]
      process.stdout.write(lines.join("\n") + "\n")
    })
  addClusterOptions(program.command("node").description("a host node: the same core over MQTT, so a laptop takes part in the boards' election"), "node")
    .option("--transport <name>", "mqtt (the only transport a host node has)", "mqtt")
    .option("--broker <url>", "mqtt://HOST:PORT")
    .option("--id <n>", "this node's id")
    .option("--prefix <p>", "topic prefix", "electlab")
    .option("--manifest <file>", "lab manifest (default: ./devicescript.json when present)")
    .option("--observe", "take no part: print the cluster's state as frames go by")
    .option("--stdin-control", "read 'crash' and 'recover' lines on stdin")
    .option("--key-file <file>", "the group key (electlab keygen): authenticate every frame")
    .option("--mqtt-user <name>", "broker user name, when the broker checks passwords")
    .option("--mqtt-password-file <file>", "file holding the broker password")
    .action(async (flags: NodeFlags) => {
      const { runNodeCommand } = await import("./node/command")
      await runNodeCommand(flags)
    })
  program
    .command("settings")
    .description("a board's DeviceScript settings from the lab manifest (see docs/lab-guide.md)")
    .requiredOption("--board <name>", "the board's name in the manifest")
    .option("--manifest <file>", "the manifest", "devicescript.json")
    .option("--write", "write .env.defaults and .env.local for `devs deploy`")
    .option("--key-file <file>", "the group key (electlab keygen), deployed as the secret AUTH_KEY in .env.local")
    .action(async (flags: { board: string; manifest: string; write?: boolean; keyFile?: string }) => {
      const manifest = readManifest(flags.manifest)
      const { boardSettings, bundleCommand, previewText, writeBoardSettings } = await import("./project/settings")
      const s = boardSettings(manifest, flags.board, flags.manifest)
      if (flags.keyFile) s.board.AUTH_KEY = readKeyFile(flags.keyFile, "--key-file")
      if (flags.write) {
        writeBoardSettings(s, flags.board)
        const secret = flags.keyFile ? " (it holds the group key: readable by you only, keep it out of git)" : ""
        process.stdout.write(`wrote .env.defaults and .env.local for ${flags.board}${secret}\n`)
      } else process.stdout.write(previewText(s, flags.keyFile))
      process.stdout.write(`# its image, with ${manifest.algorithm} alone: ${bundleCommand(manifest, flags.board)}\n`)
    })
  program
    .command("init")
    .description("prepare this project for electlab: devicescript.json, the bus service, the board definitions, a starter src/main.ts")
    .action(async () => {
      const { initProject, STARTER_BESIDE } = await import("./project/project")
      const r = initProject(PROJECT)
      const lines = [
        ...r.wrote.map((f) => `wrote ${f}`),
        ...r.replaced.map((f) => `replaced ${f} (devs init's starter, which starts no election) with electlab's starter`),
        ...r.kept.map((f) => `kept ${f} (already there)`),
      ]
      if (r.wrote.includes(STARTER_BESIDE))
        lines.push(`your src/main.ts stays as it is; electlab's starter is ${STARTER_BESIDE}: npx electlab lab --program ${STARTER_BESIDE}`)
      lines.push("next: npx electlab lab (five simulated boards running src/main.ts)")
      process.stdout.write(lines.join("\n") + "\n")
    })
  program
    .command("doctor")
    .description("check this project end to end: Node, the DeviceScript CLI, the manifest, the bus service, board definitions, the program, key files, the broker")
    .option("--manifest <file>", "the manifest", "devicescript.json")
    .option("--program <file>", "the program the boards run", "src/main.ts")
    .option("--key-file <file>", "the group key's file (default: the project's *.key files and .env.local)")
    .option("--json", "print the checks as JSON")
    .action(async (flags: DoctorFlags, command: Command) => {
      const { runDoctor } = await import("./project/doctor")
      const given = (name: string) => command.getOptionValueSource(name) === "cli"
      process.exitCode = await runDoctor(
        { ...flags, manifest: given("manifest") ? flags.manifest : undefined, program: given("program") ? flags.program : undefined },
        (line) => process.stdout.write(line + "\n"),
      )
    })
  program
    .command("bundle")
    .description("for every board of the manifest, its image: the program with that board's settings, and with the DeviceScript runtime to flash")
    .option("--manifest <file>", "the manifest", "devicescript.json")
    .option("--program <file>", "the program the boards run", "src/main.ts")
    .option("--key-file <file>", "the group key (electlab keygen): frames authenticated")
    .option("--out <folder>", "where the images go (owner-only: they hold the key)", ".electlab/bundles")
    .option("--bytecode-only", "only the program's bytecode (.devs), without the runtime that devs bundle downloads")
    .action(async (flags: BundleFlags, command: Command) => {
      const program = { file: flags.program, given: command.getOptionValueSource("program") === "cli" }
      if (!(await projectReady("bundle", { manifest: flags.manifest, program, algorithm: { source: "manifest" } }))) return
      const { bundleBoards } = await import("./project/project")
      process.exitCode = await bundleBoards(flags, (line) => process.stdout.write(line + "\n"))
    })
  program
    .command("flash")
    .description("flash a board's bundle with devs flash (the board on USB)")
    .option("--board <name>", "the board's name in the manifest")
    .option("--all", "every board of the manifest, one after another")
    .option("--manifest <file>", "the manifest", "devicescript.json")
    .option("--out <folder>", "where electlab bundle put the images", ".electlab/bundles")
    .option("--port <path>", "the serial port (default: devs flash finds the board)")
    .option("--dry-run", "print the devs flash command lines only")
    .action(async (flags: FlashFlags) => {
      if (!(await projectReady("flash", { manifest: flags.manifest, program: null, algorithm: null }))) return
      const { flashBoards } = await import("./project/project")
      process.exitCode = await flashBoards(flags, (line) => process.stdout.write(line + "\n"))
    })
  program
    .command("keygen")
    .description("write a new group key for authenticated frames (keep it out of git)")
    .option("--out <file>", "where to write it", "electlab.key")
    .action((flags: { out: string }) => {
      writeKeyFile(flags.out)
      process.stdout.write(`wrote a new group key to ${flags.out}; give it to boards with 'electlab settings --key-file ${flags.out}' and to host nodes with '--key-file ${flags.out}'\n`)
    })
  addClusterOptions(program.command("lab").description("the virtual lab: DeviceScript VMs running the firmware on one local bus"), "lab")
    .option("--manifest <file>", "lab manifest (default: ./devicescript.json when present)")
    .option("--loss <p>", "probability that the bus loses a frame copy", "0")
    .option("--delay <ms>", "delay the bus adds to every frame", "0")
    .option("--seed <s>", "seed of the bus faults", "1")
    .option("--headless", "no dashboard: run --script, print a JSON summary")
    .option("--script <file>", "timed events for --headless: a file, or the name of one in sim/lab/scripts/ (failover-10)")
    .option("--verbose", "headless: print the lab's event log on stderr")
    .option("--transport <name>", "bus (the Jacdac bus) or mqtt (WiFi through a local mosquitto)", "bus")
    .option("--host-nodes <list>", "with mqtt: these ids run as host nodes (electlab node) instead of VMs")
    .option("--web <port>", "port of the live web view on 127.0.0.1 (0: off)", "8090")
    .option("--no-auth", "no group key: frames travel unauthenticated")
    .option("--hub <which>", "lab: the lab's own bus hub; devtools: a running `devs devtools` on 127.0.0.1:8082", "lab")
    .option("--program <file>", "the program every board runs, on the election API (default src/main.ts), e.g. examples/sensor-summary/src/main.ts")
    .option("--ballast-kb <kb>", "each board holds this many KB of its heap from boot on (headroom measurement)", "0")
    .action(async (flags: LabFlags) => {
      const program = { file: flags.program ?? defaultProgram(), given: flags.program !== undefined }
      if (!(await projectReady("lab", { manifest: flags.manifest, program, algorithm: { source: "lab", flag: flags.algorithm } }))) return
      const [{ runLabCommand }, { startLiveWeb }] = await Promise.all([import("./lab/command"), import("./web/command")])
      process.exitCode = await runLabCommand(flags, startLiveWeb)
    })
  program
    .command("size")
    .description("build a board image and show what its function code is spent on (the VM takes 64 KB)")
    .option("--algorithm <name>", "the algorithm the image carries (default: every algorithm, the tables for the one with the least room)")
    .option("--program <file>", "the program on the election API (default src/main.ts), e.g. examples/sensor-summary/src/main.ts")
    .option("--transport <name>", "bus or mqtt (WiFi: the larger image)", "mqtt")
    .option("--boards <n>", "boards in the group", "12")
    .option("--no-key", "no group key: frames unauthenticated")
    .option("--no-logins", "with mqtt: no broker logins compiled in")
    .option("--failure-detector <name>", "fixed or adaptive", "adaptive")
    .option("--ballast-kb <kb>", "heap each board holds from boot on (as the lab's --ballast-kb)", "0")
    .option("--top <n>", "rows of the per-file, function and string tables", "20")
    .option("--json", "print the census as JSON")
    .option("--heap", "measure the heap instead: each algorithm on --boards VMs in the virtual lab, on the bus and over MQTT (or --transport), each transition once; the most any board's program held after a collection, against its budget")
    .action(async (flags: SizeFlags & { heap?: boolean }, command: Command) => {
      const program = { file: flags.program ?? DEFAULT_PROGRAM, given: flags.program !== undefined }
      // every algorithm in turn unless --algorithm names one: the program's is compared with that one only
      const algorithm = flags.algorithm !== undefined ? { source: "flag" as const, flag: flags.algorithm } : null
      if (!(await projectReady("size", { program, algorithm }))) return
      if (flags.heap) {
        const { runHeapCommand } = await import("./lab/heap-size")
        process.exitCode = await runHeapCommand({ ...flags, transportGiven: command.getOptionValueSource("transport") === "cli" })
        return
      }
      const { runSizeCommand } = await import("./lab/image-size")
      process.exitCode = await runSizeCommand(flags)
    })
  program
    .command("view")
    .description("the web replay: golden scenarios and made-up clusters on the core's engine in the browser")
    .option("--web <port>", "port on 127.0.0.1 (0: any free port)", "8090")
    .action(async (flags: { web: string }) => {
      const { runViewCommand } = await import("./web/command")
      process.exitCode = await runViewCommand(flags)
    })
  program
    .command("golden")
    .description("check golden scenario files against their expected output")
    .argument("[files...]", "scenario files", [])
    .option("--update", "rewrite the expected parts with the actual output (review the diff!)")
    .action((files: string[], flags: { update?: boolean }) => {
      process.exitCode = runGolden(files, !!flags.update)
    })
  program
    .command("compare")
    .description("every algorithm on the same clusters: messages, frames and election time side by side")
    .option("--sizes <list>", "cluster sizes n", DEFAULT_SIZES.join(","))
    .option("--algorithms <list>", "algorithms to compare (default: all)")
    .option("--families <list>", `failure scenarios: ${FAMILIES.join(", ")}`, FAMILIES.join(","))
    .option("--topology <t>", `the graph of ${namesWhere((d) => d.usesGraph)}: ring | complete | grid:RxC | FILE`, "complete")
    .option("--csv", "print CSV instead of the table")
    .option("--svg <file>", "also write a log-log chart of messages against n")
    .action((flags: CompareFlags) => {
      process.exitCode = runCompareCommand(flags)
    })
  program
    .command("campaign")
    .description("seeded fault campaign: pass rates of the election property per algorithm and fault family")
    .option("--algorithms <list>", "algorithms to run (default: all)")
    .option("--families <list>", "fault families (default: all): coordinator-crash, false-suspicion, crashes, link-faults, partitions, mixed")
    .option("--seeds <n>", "runs per algorithm and family", "100")
    .option("--seed <s>", "first seed", "1")
    .option("--workers <n>", "worker processes (default: one per core)")
    .option("--json", "print the report as JSON")
    .option("--replay <seed>", "print one run's schedule and trace (with --algorithm and --family)")
    .option("--algorithm <name>", "with --replay or --write: the algorithm")
    .option("--family <name>", "with --replay or --write: the fault family")
    .option("--write <file>", "write the run of --replay SEED as a scenario file (shrunk while it still fails)")
    .option("--no-shrink", "with --write: keep every fault")
    .option("--failure-detector <name>", "fixed (the failure timeout, default) or adaptive")
    .option("--delivery <d>", "destinations (a frame for several reaches those it names, default) or shared (a broadcast reaches every process, as the boards' bus and broker deliver it)")
    .option("--timing <name>", "wifi (heartbeat 250 ms, failure timeout 800 ms, T 300, T' 600; default) or bus (50, 250, 40, 100)")
    .action(async (flags: CampaignFlags) => {
      const { runCampaignCommand } = await import("./campaign/command")
      process.exitCode = await runCampaignCommand(flags)
    })
  registerCheckCommand(program)
  program
    .command("bench:failover")
    .description("failover time of a 3-member etcd cluster against our improved Bully over MQTT")
    .option("--trials <n>", "trials per side and failure", "20")
    .option("--no-auth", "host nodes without a group key: a last will is taken at once, unchecked")
    .option("--through-tsx", "host nodes run as `electlab node` does, through tsx (larger processes, slower to die), not from a bundle")
    .option("--json", "print the figures as JSON")
    .action(async (flags: { trials: string; json?: boolean; auth: boolean; throughTsx?: boolean }) => {
      const { formatFailoverReport, runFailoverBench } = await import("./bench/failover")
      const report = await runFailoverBench(parseInteger(flags.trials, "--trials", 1, 1000), undefined, flags.auth, !flags.throughTsx)
      process.stdout.write((flags.json ? JSON.stringify(report, null, 2) : formatFailoverReport(report)) + "\n")
    })
  program
    .command("soak")
    .description("the virtual lab at steady state on a busy machine: count false suspicions (elections while the coordinator is alive)")
    .option("--transports <list>", "bus, mqtt or both in turn", "bus,mqtt")
    .option("--minutes <m>", "length of each run", "10")
    .option("--burn <n>", "CPU-burning processes kept running meanwhile", "2")
    .option("--boards <n>", "number of boards", "5")
    .option("--failure-detector <name>", "fixed or adaptive", "adaptive")
    .option("--heartbeat <ms>", "coordinator heartbeat period (default: the manifest's)")
    .option("--fail-timeout <ms>", "failure timeout, the adaptive detector's ceiling (default: the manifest's)")
    .action(async (flags: SoakFlags) => {
      if (!(await projectReady("soak", { program: { file: defaultProgram(), given: false }, algorithm: { source: "manifest" } }))) return
      const { runSoakCommand } = await import("./lab/soak-command")
      process.exitCode = await runSoakCommand(flags)
    })
  program
    .command("bench")
    .description("measure simulator throughput and a 1000-process Bully election")
    .option("--json", "print the figures as JSON")
    .option("--quick", "smaller runs (for tests)")
    .action(async (flags: { json?: boolean; quick?: boolean }) => {
      const { runBench } = await import("./bench/simulator")
      runBench(flags)
    })
  for (const command of program.commands) {
    const page = DETAILS[command.name()]
    if (page) command.addHelpText("after", `\nDetails: ${page}`)
  }
  program.addHelpText("after", "\nDetails: README.md (every command, the folders) and the pages in docs/")
  return program
}

export async function main(argv: string[]): Promise<void> {
  // a reader that stops early (`| head`, a pager quit) closes the pipe: stop quietly, as Unix tools do
  process.stdout.on("error", (e: NodeJS.ErrnoException) => {
    if (e.code !== "EPIPE") throw e
    process.exit(process.exitCode ?? 0)
  })
  const program = buildProgram()
  try {
    await program.parseAsync(argv)
  } catch (e) {
    if (e instanceof CommanderError) {
      process.exitCode = e.exitCode
      return
    }
    if (e instanceof InputError) {
      process.stderr.write(`electlab: ${e.message}\n`)
      process.exitCode = 2
      return
    }
    throw e
  }
}
