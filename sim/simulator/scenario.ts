// Scenario files: commands, each optionally followed by `----` and its expected output
// (the model is etcd raft's testdata/*.txt). The CLI runs them (`--scenario`), the golden
// tests run them and compare, and `npm run golden:update` rewrites the expected parts.
// Each line is read into a typed ScenarioCommand (`parseCommand`; the `cluster` keys by the
// one resolver, sim/config/cluster-config.ts); `electlab sim` builds the same commands from flags.
//
//   # comment
//   cluster algorithm=bully ids=0..7        set up; every process knows the highest is coordinator
//                                            (echo: topology=ring|complete|grid:RxC|FILE;
//                                             bid-ring: suitability=5,0,0 aligned with the ids)
//   crash 7                                  crash now (also: recover IDS, detect IDS|all)
//   at 20 recover 7                          schedule for time 20 (any fault command below too)
//   faults loss=0.1 duplicate=0.05 spike=0.02 spike-delay=50 reorder=3   link faults from now on;
//                                            also delay=D (added, in order), scale=F (stretched);
//   faults on=3,4 reorder=300                on the links of 3 and 4 only, on top of those for all;
//                                            `faults none` ends them all (see sim/simulator/faults.ts)
//   partition 1,2|3,4,5                      groups that cannot reach each other (unnamed: one more group);
//   partition 1,2->3                         one way only; partitions add up until `heal`
//   heal                                     every link works again
//   freeze 5 for=300                         5 is up but neither hears nor sends; its timers fire when it thaws
//   storm for=500 crashes=4 down=100         random crashes, each recovered within `down` (seeded)
//   check stable-since=900                   the checker's verdict now, and nothing changed since 900
//                                            (cluster keys message-budget=N, in-flight-budget=N and instant-events=N
//                                             bound storms and spins;
//                                             delivery=shared: a broadcast reaches every process, as on the boards)
//   settle                                   run until nothing is pending
//   run until=100 | run for=50               run for a while (needed with heartbeats on)
//   status                                   each process's role and coordinator
//   summary                                  totals since the last summary; then reset them
//   script delays=1.5,x,0.25+2               the n-th message sent from now on takes the n-th delay
//                                            (x: lost; A+B: and a copy after B); see sim/simulator/script.ts
//   ----
//   expected output, up to a blank line

import { type Engine } from "../../src/core/engine"
import type { TraceRecord } from "../../src/core/trace"
import { formatStatus } from "../../src/core/chart"
import { algorithmName, descriptorOf } from "../../src/core/algorithms"
import { buildEngine } from "./cluster"
import type { ClusterSpec } from "../config/cluster-spec"
import {
  checkMembers,
  describeIds,
  InputError,
  keyValues,
  readInputFile,
  parseIdArgument,
  parseInteger,
  parseNumber,
} from "../config/input"
import { givenScenario, resolveCluster } from "../config/cluster-config"
import { formatRecord, formatSummary, formatTime } from "./msc"
import { existsSync } from "node:fs"
import { dirname } from "node:path"
import { type Cut, type FaultyNetwork, type LinkFaults, parseLinkFaults, parsePartition } from "./faults"
import { Rng } from "./rng"
import { applyScript, parseScript, type ScriptedDelay } from "./script"
import { lastChangeOf, type Summary, summarize } from "../../src/core/summary"

export interface Block {
  /** 1-based line of the command. */
  line: number
  command: string
  /** Expected output lines, or null when the file gives none. */
  expected: string[] | null
}

export const SEPARATOR = "----"

export function parseScenario(text: string, file: string): Block[] {
  const lines = text.split("\n")
  const blocks: Block[] = []
  let i = 0
  while (i < lines.length) {
    const raw = lines[i].trim()
    if (raw === "" || raw.startsWith("#")) {
      i++
      continue
    }
    if (raw === SEPARATOR)
      throw new InputError("'----' with no command above it", `${file}:${i + 1}`)
    const block: Block = { line: i + 1, command: raw, expected: null }
    i++
    if (i < lines.length && lines[i].trim() === SEPARATOR) {
      i++
      const expected: string[] = []
      while (i < lines.length && lines[i].trim() !== "") expected.push(lines[i++].trimEnd())
      block.expected = expected
    }
    blocks.push(block)
  }
  return blocks
}

export function readScenario(file: string): Block[] {
  return parseScenario(readInputFile(file, "scenario file"), file)
}

/** Writes blocks back with their actual output as the expected part. */
export function renderScenario(header: string[], blocks: Block[], outputs: string[][]): string {
  const parts: string[] = []
  if (header.length) parts.push(header.join("\n"))
  blocks.forEach((b, i) => {
    parts.push([b.command, SEPARATOR, ...outputs[i]].join("\n"))
  })
  return parts.join("\n\n") + "\n"
}

/** Leading comment lines of a scenario file, kept when it is rewritten. */
export function scenarioHeader(text: string): string[] {
  const header: string[] = []
  for (const line of text.split("\n")) {
    if (line.startsWith("#") || (line.trim() === "" && header.length > 0)) header.push(line)
    else break
  }
  while (header.length && header[header.length - 1].trim() === "") header.pop()
  return header
}

export interface RunOptions {
  /** Overrides applied to the `cluster` command (CLI flags beat the file). */
  maxEvents?: number
  /** No chart: skip formatting every trace record (the campaign's many runs). */
  quiet?: boolean
}

const DEFAULT_MAX_EVENTS = 50_000_000

/** Commands that `at TIME` can schedule. */
export type TimedCommand =
  | { verb: "crash" | "recover" | "detect"; ids: number[] }
  | { verb: "faults"; faults: LinkFaults }
  | { verb: "partition"; cuts: Cut[]; text: string }
  | { verb: "heal" }
  | { verb: "freeze"; ids: number[]; duration: number }

/** One scenario command, checked and typed: what a scenario line or the `sim` flags turn into. */
export type ScenarioCommand =
  | { verb: "cluster"; spec: ClusterSpec }
  | { verb: "crash" | "recover"; ids: number[] }
  | { verb: "detect"; ids: number[] | "all" }
  | { verb: "at"; time: number; command: TimedCommand }
  | { verb: "faults"; faults: LinkFaults }
  | { verb: "partition"; cuts: Cut[]; text: string }
  | { verb: "heal" }
  | { verb: "freeze"; ids: number[]; duration: number }
  | { verb: "storm"; span: number; crashes: number; down: number | null }
  | { verb: "settle"; maxEvents: number | null }
  | { verb: "run"; until: number } | { verb: "run"; for: number }
  | { verb: "status" }
  | { verb: "summary" }
  | { verb: "check"; stableSince: number | null }
  | { verb: "script"; delays: ScriptedDelay[] }

const VERBS = "cluster, crash, recover, detect, at, faults, partition, heal, freeze, storm, settle, run, status, summary, check, script"

/**
 * Reads one scenario line into a typed command. `spec`: the cluster set up so far (null
 * before `cluster`), against which ids are checked; `baseDir`: where relative files are.
 */
export function parseCommand(command: string, where: string, spec: ClusterSpec | null, baseDir?: string): ScenarioCommand {
  const [verb, ...args] = command.split(/\s+/)
  if (verb === "cluster") {
    if (spec) throw new InputError("a scenario has one 'cluster' command", where)
    const given = givenScenario(keyValues(args, where), where)
    return { verb, spec: resolveCluster({ use: "scenario", given, baseDir, where }) }
  }
  if (!spec) {
    if (!VERBS.split(", ").includes(verb)) throw new InputError(`unknown command '${verb}'; known: ${VERBS}`, where)
    throw new InputError(`'${verb}' before 'cluster': the first command must set up the cluster`, where)
  }
  switch (verb) {
    case "crash":
    case "recover":
      return { verb, ids: idList(args, where, spec) }
    case "detect":
      return { verb, ids: args.length === 1 && args[0] === "all" ? "all" : idList(args, where, spec) }
    case "at":
      return parseAt(args, where, spec)
    case "faults":
    case "partition":
    case "heal":
    case "freeze":
      return parseFault(verb, args, where, spec)
    case "storm": {
      const kv = keyValues(args, where)
      for (const key of kv.keys())
        if (!["for", "crashes", "down"].includes(key)) throw new InputError(`unknown key '${key}'; known: for, crashes, down`, where)
      if (!kv.has("for") || !kv.has("crashes")) throw new InputError("expected: storm for=DURATION crashes=N [down=MAX]", where)
      return {
        verb,
        span: parseNumber(kv.get("for")!, `${where}: for`, 0.001, 1e12),
        crashes: parseInteger(kv.get("crashes")!, `${where}: crashes`, 1, 100000),
        down: kv.has("down") ? parseNumber(kv.get("down")!, `${where}: down`, 0.001, 1e12) : null,
      }
    }
    case "settle": {
      const kv = keyValues(args, where)
      for (const key of kv.keys()) if (key !== "max-events") throw new InputError(`unknown key '${key}'; known: max-events`, where)
      return { verb, maxEvents: kv.has("max-events") ? parseInteger(kv.get("max-events")!, where, 1, 1e12) : null }
    }
    case "run": {
      const kv = keyValues(args, where)
      if (kv.size !== 1 || !(kv.has("until") || kv.has("for"))) throw new InputError("expected: run until=TIME or run for=DURATION", where)
      return kv.has("until")
        ? { verb, until: parseNumber(kv.get("until")!, where, 0, 1e12) }
        : { verb, for: parseNumber(kv.get("for")!, where, 0, 1e12) }
    }
    case "status":
    case "summary":
      return { verb }
    case "check": {
      const kv = keyValues(args, where)
      for (const key of kv.keys()) if (key !== "stable-since") throw new InputError(`unknown key '${key}'; known: stable-since`, where)
      return { verb, stableSince: kv.has("stable-since") ? parseNumber(kv.get("stable-since")!, `${where}: stable-since`, 0, 1e12) : null }
    }
    case "script":
      return { verb, delays: parseScript(args, where) }
    default:
      throw new InputError(`unknown command '${verb}'; known: ${VERBS}`, where)
  }
}

function idList(args: string[], where: string, spec: ClusterSpec): number[] {
  if (args.length !== 1) throw new InputError("expected one id list, such as 3 or 1,2", where)
  const ids = parseIdArgument(args[0], where)
  checkMembers(ids, spec.ids, where)
  return ids
}

function parseAt(args: string[], where: string, spec: ClusterSpec): ScenarioCommand {
  const usage = "expected: at TIME crash|recover|detect IDS, or at TIME faults|partition|heal|freeze ..."
  if (args.length < 2) throw new InputError(usage, where)
  const time = parseNumber(args[0], where, 0, 1e12)
  const verb = args[1]
  if (verb === "faults" || verb === "partition" || verb === "heal" || verb === "freeze")
    return { verb: "at", time, command: parseFault(verb, args.slice(2), where, spec) }
  if (args.length !== 3) throw new InputError(usage, where)
  const ids = idList([args[2]], where, spec)
  if (verb !== "crash" && verb !== "recover" && verb !== "detect")
    throw new InputError(`cannot schedule '${verb}'; use crash, recover or detect`, where)
  return { verb: "at", time, command: { verb, ids } }
}

function parseFault(verb: "faults" | "partition" | "heal" | "freeze", args: string[], where: string, spec: ClusterSpec): TimedCommand {
  if (verb === "faults") return { verb, faults: parseLinkFaults(args, where, spec.ids) }
  if (verb === "partition") {
    if (args.length !== 1) throw new InputError("expected: partition 1,2|3,4 or partition 1,2->3", where)
    return { verb, cuts: parsePartition(args[0], spec.ids, where), text: args[0] }
  }
  if (verb === "heal") {
    if (args.length !== 0) throw new InputError("heal takes no arguments", where)
    return { verb }
  }
  if (args.length !== 2 || !args[1].startsWith("for=")) throw new InputError("expected: freeze IDS for=DURATION", where)
  return { verb, ids: idList([args[0]], where, spec), duration: parseNumber(args[1].slice(4), `${where}: for`, 0.001, 1e12) }
}

/** Runs scenario commands one by one, collecting what each one printed. */
export class ScenarioRunner {
  engine: Engine | null = null
  spec: ClusterSpec | null = null
  private output: string[] = []
  /** The last summary taken (for --json). */
  lastSummary: Summary | null = null
  /** Last verdict of `check`: the violations, stability included. */
  lastCheck: string[] | null = null

  constructor(
    private file: string,
    private options: RunOptions = {},
  ) {}

  run(blocks: Block[]): string[][] {
    return blocks.map((b) => this.runCommand(b.command, `${this.file}:${b.line}`))
  }

  /** Reads a scenario line and runs it. */
  runCommand(command: string, where: string): string[] {
    return this.execute(parseCommand(command, where, this.spec, this.baseDir()), where)
  }

  /** Runs one typed command; `where` names it in errors found while running (a time in the past). */
  execute(command: ScenarioCommand, where: string): string[] {
    this.output = []
    if (command.verb === "cluster") this.cluster(command.spec, where)
    else {
      const engine = this.engine
      if (!engine) throw new InputError(`'${command.verb}' before 'cluster': the first command must set up the cluster`, where)
      switch (command.verb) {
        case "crash":
        case "recover":
        case "detect":
        case "faults":
        case "partition":
        case "heal":
        case "freeze":
          this.timed(command.verb === "detect" && command.ids === "all" ? { verb: "detect", ids: this.liveIds() } : (command as TimedCommand), engine.now, false, where)
          break
        case "at":
          if (command.time < engine.now) throw new InputError(`time ${command.time} is in the past (now ${engine.now})`, where)
          this.timed(command.command, command.time, true, where)
          break
        case "storm":
          this.storm(command.span, command.crashes, command.down ?? command.span / 4)
          break
        case "settle":
          this.settle(command.maxEvents ?? this.options.maxEvents ?? DEFAULT_MAX_EVENTS)
          break
        case "run":
          engine.runUntil("until" in command ? command.until : engine.now + command.for)
          if (engine.stalled) this.output.push(`simulated time stalls: ${engine.stalled}`)
          break
        case "status":
          this.status()
          break
        case "summary":
          this.summary()
          break
        case "check":
          this.check(command.stableSince)
          break
        case "script":
          applyScript(engine, command.delays)
          break
      }
    }
    return this.output
  }

  private cluster(spec: ClusterSpec, where: string) {
    if (this.engine) throw new InputError("a scenario has one 'cluster' command", where)
    let about = ""
    if (spec.topology !== undefined) about = ` on ${spec.topology}`
    if (spec.suitability) about = `, suitability ${spec.suitability.join(",")}`
    const ascending = spec.ids.every((id, i) => i === 0 || id > spec.ids[i - 1])
    if (!ascending && descriptorOf(spec.algorithm).usesRingOrder) about = ` in ring order ${spec.ids.join(",")}` + about
    this.spec = spec
    this.engine = buildEngine(spec)
    if (!this.options.quiet) this.engine.tracer = (r) => this.trace(r)
    else this.engine.digesting = false
    const top = Math.max(...spec.ids)
    this.output.push(
      `${algorithmName(spec.algorithm)} on ${spec.network}: ${describeIds(spec.ids)}${about}; coordinator ${top}`,
    )
  }

  /** The folder of the scenario file, where a relative edge-list file is looked for. */
  private baseDir(): string | undefined {
    return existsSync(this.file) ? dirname(this.file) : undefined
  }

  private liveIds(): number[] {
    return this.engine!.nodes.filter((n) => !n.crashed).map((n) => n.id)
  }

  /** A command now (`time` is the engine's clock) or scheduled for later. */
  private timed(command: TimedCommand, time: number, later: boolean, where: string) {
    const engine = this.engine!
    switch (command.verb) {
      case "crash":
      case "recover":
      case "detect":
        for (const id of command.ids) {
          if (command.verb === "detect" && !later && engine.node(id)!.crashed)
            throw new InputError(`process ${id} is crashed and cannot notice anything`, where)
          if (command.verb === "crash") later ? engine.scheduleCrash(time, id) : engine.crash(id)
          else if (command.verb === "recover") later ? engine.scheduleRecover(time, id) : engine.recover(id)
          else later ? engine.scheduleDetect(time, id) : engine.detect(id)
        }
        break
      case "faults":
        this.faultLayer.at({ time, type: "links", faults: command.faults })
        break
      case "partition":
        this.faultLayer.at({ time, type: "partition", cuts: command.cuts, text: command.text })
        break
      case "heal":
        this.faultLayer.at({ time, type: "heal" })
        break
      case "freeze":
        for (const id of command.ids) engine.scheduleFreeze(time, id, command.duration)
        break
    }
  }

  /** The network's fault layer (every engine built from a spec has one). */
  get faultLayer(): FaultyNetwork {
    return this.engine!.network as FaultyNetwork
  }

  /** Random crash/recover pairs over the next `span` time units, drawn from the cluster's seed. */
  private storm(span: number, crashes: number, down: number) {
    const engine = this.engine!
    const rng = new Rng((this.spec!.seed * 2654435761 + engine.now * 1000 + crashes) >>> 0)
    const ids = this.spec!.ids
    for (let k = 0; k < crashes; k++) {
      const id = ids[Math.floor(rng.next() * ids.length)]
      const at = engine.now + rng.next() * span
      engine.scheduleCrash(at, id)
      engine.scheduleRecover(at + rng.next() * down, id)
    }
  }

  private settle(max: number) {
    if (!this.engine!.settle(max)) {
      if (this.engine!.stalled) this.output.push(`simulated time stalls: ${this.engine!.stalled}`)
      else this.output.push(`not settled after ${max} events (t=${formatTime(this.engine!.now)})`)
    }
  }

  private check(stableSince: number | null) {
    const engine = this.engine!
    const violations = summarize(engine).violations
    if (stableSince !== null) {
      const last = lastChangeOf(engine)
      if (last > stableSince) violations.push(`the state changed at t=${formatTime(last)}, after t=${formatTime(stableSince)}`)
    }
    this.lastCheck = violations
    this.output.push(`check: ${violations.length ? violations.join("; ") : "ok"}`)
  }

  private status() {
    for (const node of this.engine!.nodes) this.output.push(formatStatus(node))
  }

  private summary() {
    const s = summarize(this.engine!)
    this.lastSummary = s
    this.output.push(formatSummary(s))
    this.engine!.resetStats()
  }

  private trace(r: TraceRecord) {
    const line = formatRecord(r)
    if (line !== null) this.output.push(line)
  }
}

