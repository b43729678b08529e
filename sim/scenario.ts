// Scenario files: commands, each optionally followed by `----` and its expected output
// (the model is etcd raft's testdata/*.txt). The CLI runs them (`--scenario`), the golden
// tests run them and compare, and `npm run golden:update` rewrites the expected parts.
//
//   # comment
//   cluster algorithm=bully ids=0..7        set up; every process knows the highest is coordinator
//                                            (echo: topology=ring|complete|grid:RxC|FILE;
//                                             bid-ring: suitability=5,0,0 aligned with the ids)
//   crash 7                                  crash now (also: recover IDS, detect IDS|all)
//   at 20 recover 7                          schedule for time 20 (any fault command below too)
//   faults loss=0.1 duplicate=0.05 spike=0.02 spike-delay=50 reorder=3   link faults from now on;
//                                            `faults none` ends them (see sim/faults.ts)
//   partition 1,2|3,4,5                      groups that cannot reach each other (unnamed: one more group);
//   partition 1,2->3                         one way only; partitions add up until `heal`
//   heal                                     every link works again
//   freeze 5 for=300                         5 is up but neither hears nor sends; its timers fire when it thaws
//   storm for=500 crashes=4 down=100         random crashes, each recovered within `down` (seeded)
//   check stable-since=900                   the checker's verdict now, and nothing changed since 900
//                                            (cluster keys message-budget=N and instant-events=N bound storms and spins)
//   settle                                   run until nothing is pending
//   run until=100 | run for=50               run for a while (needed with heartbeats on)
//   status                                   each process's role and coordinator
//   summary                                  totals since the last summary; then reset them
//   script delays=1.5,x,0.25+2               the n-th message sent from now on takes the n-th delay
//                                            (x: lost; A+B: and a copy after B); see sim/check/script.ts
//   ----
//   expected output, up to a blank line

import { type Engine, type TraceRecord, type Summary } from "../src/core/engine"
import { NO_NODE, Role, roleName } from "../src/core/node"
import {
  boardTiming,
  buildEngine,
  checkIds,
  checkMembers,
  type ClusterSpec,
  defaultSpec,
  describeIds,
  InputError,
  keyValues,
  readInputFile,
  MAX_NODES,
  MIN_NODES,
  parseAlgorithmName,
  parseIdList,
  parseInteger,
  parseNetworkName,
  parseNumber,
  parseNumberList,
} from "./cluster"
import { formatRecord, formatSummary, formatTime } from "./msc"
import { Algorithm, algorithmName } from "../src/core/frame"
import type { DetectorName } from "../src/core/failure-detector"
import { parseDetectorName } from "./detector-option"
import { existsSync } from "node:fs"
import { dirname } from "node:path"
import { neighborsFor, parseTopology, describeTopology } from "./topology"
import { type FaultyNetwork, parseLinkFaults, parsePartition } from "./faults"
import { Rng } from "./rng"
import { applyScript } from "./check/script"

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

/** Runs scenario commands one by one, collecting what each one printed. */
export class ScenarioRunner {
  engine: Engine | null = null
  spec: ClusterSpec | null = null
  private output: string[] = []
  /** The last summary taken (for --json). */
  lastSummary: Summary | null = null

  constructor(
    private file: string,
    private options: RunOptions = {},
  ) {}

  run(blocks: Block[]): string[][] {
    return blocks.map((b) => this.runCommand(b.command, `${this.file}:${b.line}`))
  }

  runCommand(command: string, where: string): string[] {
    this.output = []
    const [verb, ...args] = command.split(/\s+/)
    if (verb !== "cluster" && !this.engine)
      throw new InputError(`'${verb}' before 'cluster': the first command must set up the cluster`, where)
    switch (verb) {
      case "cluster":
        this.cluster(args, where)
        break
      case "crash":
      case "recover":
      case "detect":
        this.act(verb, this.ids(args, where, verb === "detect"), where)
        break
      case "at":
        this.schedule(args, where)
        break
      case "faults":
      case "partition":
      case "heal":
      case "freeze":
        this.fault(verb, args, this.engine!.now, where)
        break
      case "storm":
        this.storm(args, where)
        break
      case "settle":
        this.settle(args, where)
        break
      case "run":
        this.runFor(args, where)
        break
      case "status":
        this.status()
        break
      case "summary":
        this.summary()
        break
      case "check":
        this.check(args, where)
        break
      case "script":
        applyScript(this.engine!, args, where)
        break
      default:
        throw new InputError(
          `unknown command '${verb}'; known: cluster, crash, recover, detect, at, faults, partition, heal, freeze, storm, settle, run, status, summary, check, script`,
          where,
        )
    }
    return this.output
  }

  private cluster(args: string[], where: string) {
    if (this.engine) throw new InputError("a scenario has one 'cluster' command", where)
    const spec = defaultSpec()
    const kv = keyValues(args, where)
    let timingSet = false
    let topology: string | null = null
    let suitability: string | null = null
    let messageBudget = 0
    let instantEvents = 0
    let detector: DetectorName | null = null
    for (const [key, value] of kv) {
      const at = `${where}: ${key}`
      switch (key) {
        case "algorithm":
          spec.algorithm = parseAlgorithmName(value, at)
          break
        case "ids":
          spec.ids = parseIdList(value, at)
          break
        case "nodes": {
          const n = parseInteger(value, at, MIN_NODES, MAX_NODES)
          spec.ids = Array.from({ length: n }, (_, i) => i + 1)
          break
        }
        case "network":
          spec.network = parseNetworkName(value, at)
          if (!timingSet && spec.network !== "ideal") spec.timing = boardTiming()
          break
        case "seed":
          spec.seed = parseInteger(value, at, 0, 2 ** 32 - 1)
          break
        case "group":
          spec.group = parseInteger(value, at, 0, 255)
          break
        case "loss":
          spec.loss = parseNumber(value, at, 0, 1)
          break
        case "answer-timeout":
          spec.timing.answerTimeout = parseNumber(value, at, 0.001, 1e9)
          timingSet = true
          break
        case "coordinator-timeout":
          spec.timing.coordinatorTimeout = parseNumber(value, at, 0.001, 1e9)
          timingSet = true
          break
        case "heartbeat":
          spec.timing.heartbeatInterval = parseNumber(value, at, 0, 1e9)
          timingSet = true
          break
        case "failure-timeout":
          spec.timing.failureTimeout = parseNumber(value, at, 0, 1e9)
          timingSet = true
          break
        case "failure-detector":
          detector = parseDetectorName(value, at)
          break
        case "topology":
          topology = value
          break
        case "suitability":
          suitability = value
          break
        case "message-budget":
          messageBudget = parseInteger(value, at, 1, 1e12)
          break
        case "instant-events":
          instantEvents = parseInteger(value, at, 1, 1e12)
          break
        default:
          throw new InputError(
            `unknown key '${key}'; known: algorithm, ids, nodes, network, seed, group, loss, answer-timeout, coordinator-timeout, heartbeat, failure-timeout, failure-detector, topology, suitability, message-budget, instant-events`,
            where,
          )
      }
    }
    // after the loop: network= may replace the timing
    if (detector) spec.timing.failureDetector = detector
    if (!kv.has("ids") && !kv.has("nodes")) throw new InputError("cluster needs ids= or nodes=", where)
    if (kv.has("ids") && kv.has("nodes")) throw new InputError("give ids= or nodes=, not both", where)
    checkIds(spec.ids, `${where}: ${kv.has("ids") ? "ids" : "nodes"}`)
    if (spec.timing.heartbeatInterval > 0 && !(spec.timing.failureTimeout > spec.timing.heartbeatInterval))
      throw new InputError("failure-timeout must be longer than heartbeat", where)
    let about = ""
    if (topology !== null) {
      const at = `${where}: topology`
      if (spec.algorithm !== Algorithm.Echo)
        throw new InputError("applies to echo only (ring algorithms follow the order of the ids, the bullies reach everybody)", at)
      const t = parseTopology(topology, at, this.baseDir())
      spec.neighbors = neighborsFor(t, spec.ids, at)
      spec.topology = describeTopology(t)
      about = ` on ${spec.topology}`
    }
    if (suitability !== null) {
      const at = `${where}: suitability`
      if (spec.algorithm !== Algorithm.BidRing) throw new InputError("applies to bid-ring only", at)
      const list = parseNumberList(suitability, at, 0, 65535)
      if (list.length !== spec.ids.length)
        throw new InputError(`${list.length} values for ${spec.ids.length} processes (one per id, in the order of the ids)`, at)
      spec.suitability = list
      about = `, suitability ${list.join(",")}`
    }
    const ascending = spec.ids.every((id, i) => i === 0 || id > spec.ids[i - 1])
    if (!ascending && spec.algorithm >= Algorithm.Ring && spec.algorithm <= Algorithm.BidRing)
      about = ` in ring order ${spec.ids.join(",")}` + about
    this.spec = spec
    this.engine = buildEngine(spec)
    this.engine.messageBudget = messageBudget
    if (instantEvents > 0) this.engine.maxEventsPerInstant = instantEvents
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

  private ids(args: string[], where: string, allowAll: boolean): number[] {
    if (args.length !== 1) throw new InputError("expected one id list, such as 3 or 1,2", where)
    const spec = this.spec!
    if (allowAll && args[0] === "all") return this.engine!.nodes.filter((n) => !n.crashed).map((n) => n.id)
    const ids = parseIdList(args[0], where)
    checkMembers(ids, spec.ids, where)
    return ids
  }

  private act(verb: string, ids: number[], where: string) {
    const engine = this.engine!
    for (const id of ids) {
      const node = engine.node(id)!
      if (verb === "detect" && node.crashed)
        throw new InputError(`process ${id} is crashed and cannot notice anything`, where)
      if (verb === "crash") engine.crash(id)
      else if (verb === "recover") engine.recover(id)
      else engine.detect(id)
    }
  }

  private schedule(args: string[], where: string) {
    const usage = "expected: at TIME crash|recover|detect IDS, or at TIME faults|partition|heal|freeze ..."
    if (args.length < 2) throw new InputError(usage, where)
    const engine = this.engine!
    const time = parseNumber(args[0], where, 0, 1e12)
    if (time < engine.now) throw new InputError(`time ${time} is in the past (now ${engine.now})`, where)
    const verb = args[1]
    if (verb === "faults" || verb === "partition" || verb === "heal" || verb === "freeze") {
      this.fault(verb, args.slice(2), time, where)
      return
    }
    if (args.length !== 3) throw new InputError(usage, where)
    const ids = this.ids([args[2]], where, false)
    for (const id of ids) {
      if (verb === "crash") engine.scheduleCrash(time, id)
      else if (verb === "recover") engine.scheduleRecover(time, id)
      else if (verb === "detect") engine.scheduleDetect(time, id)
      else throw new InputError(`cannot schedule '${verb}'; use crash, recover or detect`, where)
    }
  }

  /** The network's fault layer (every engine built from a spec has one). */
  private get faultLayer(): FaultyNetwork {
    return this.engine!.network as FaultyNetwork
  }

  private fault(verb: string, args: string[], time: number, where: string) {
    const engine = this.engine!
    if (verb === "faults") {
      this.faultLayer.at({ time, type: "links", faults: parseLinkFaults(args, where) })
    } else if (verb === "partition") {
      if (args.length !== 1) throw new InputError("expected: partition 1,2|3,4 or partition 1,2->3", where)
      this.faultLayer.at({ time, type: "partition", cuts: parsePartition(args[0], this.spec!.ids, where), text: args[0] })
    } else if (verb === "heal") {
      if (args.length !== 0) throw new InputError("heal takes no arguments", where)
      this.faultLayer.at({ time, type: "heal" })
    } else {
      if (args.length !== 2 || !args[1].startsWith("for="))
        throw new InputError("expected: freeze IDS for=DURATION", where)
      const ids = this.ids([args[0]], where, false)
      const duration = parseNumber(args[1].slice(4), `${where}: for`, 0.001, 1e12)
      for (const id of ids) engine.scheduleFreeze(time, id, duration)
    }
  }

  /** Random crash/recover pairs over the next `for` time units, drawn from the cluster's seed. */
  private storm(args: string[], where: string) {
    const kv = keyValues(args, where)
    for (const key of kv.keys())
      if (!["for", "crashes", "down"].includes(key))
        throw new InputError(`unknown key '${key}'; known: for, crashes, down`, where)
    if (!kv.has("for") || !kv.has("crashes")) throw new InputError("expected: storm for=DURATION crashes=N [down=MAX]", where)
    const engine = this.engine!
    const span = parseNumber(kv.get("for")!, `${where}: for`, 0.001, 1e12)
    const crashes = parseInteger(kv.get("crashes")!, `${where}: crashes`, 1, 100000)
    const down = kv.has("down") ? parseNumber(kv.get("down")!, `${where}: down`, 0.001, 1e12) : span / 4
    const rng = new Rng((this.spec!.seed * 2654435761 + engine.now * 1000 + crashes) >>> 0)
    const ids = this.spec!.ids
    for (let k = 0; k < crashes; k++) {
      const id = ids[Math.floor(rng.next() * ids.length)]
      const at = engine.now + rng.next() * span
      engine.scheduleCrash(at, id)
      engine.scheduleRecover(at + rng.next() * down, id)
    }
  }

  private settle(args: string[], where: string) {
    const kv = keyValues(args, where)
    for (const key of kv.keys())
      if (key !== "max-events") throw new InputError(`unknown key '${key}'; known: max-events`, where)
    const max = kv.has("max-events")
      ? parseInteger(kv.get("max-events")!, where, 1, 1e12)
      : (this.options.maxEvents ?? DEFAULT_MAX_EVENTS)
    if (!this.engine!.settle(max)) {
      if (this.engine!.stalled) this.output.push(`simulated time stalls: ${this.engine!.stalled}`)
      else this.output.push(`not settled after ${max} events (t=${formatTime(this.engine!.now)})`)
    }
  }

  private runFor(args: string[], where: string) {
    const kv = keyValues(args, where)
    const engine = this.engine!
    if (kv.size !== 1 || !(kv.has("until") || kv.has("for")))
      throw new InputError("expected: run until=TIME or run for=DURATION", where)
    const until = kv.has("until")
      ? parseNumber(kv.get("until")!, where, 0, 1e12)
      : engine.now + parseNumber(kv.get("for")!, where, 0, 1e12)
    engine.runUntil(until)
    if (engine.stalled) this.output.push(`simulated time stalls: ${engine.stalled}`)
  }

  /** Last verdict of `check`: the violations, stability included. */
  lastCheck: string[] | null = null

  private check(args: string[], where: string) {
    const kv = keyValues(args, where)
    for (const key of kv.keys())
      if (key !== "stable-since") throw new InputError(`unknown key '${key}'; known: stable-since`, where)
    const engine = this.engine!
    const violations = engine.summary().violations
    if (kv.has("stable-since")) {
      const since = parseNumber(kv.get("stable-since")!, `${where}: stable-since`, 0, 1e12)
      const last = engine.lastChange()
      if (last > since) violations.push(`the state changed at t=${formatTime(last)}, after t=${formatTime(since)}`)
    }
    this.lastCheck = violations
    this.output.push(`check: ${violations.length ? violations.join("; ") : "ok"}`)
  }

  private status() {
    for (const node of this.engine!.nodes) {
      const who = node.coordinator === NO_NODE ? "none" : String(node.coordinator)
      const line =
        node.role === Role.Crashed
          ? `${node.id} crashed`
          : `${node.id} ${roleName(node.role)}, coordinator ${who}, epoch ${node.epoch}`
      this.output.push(line)
    }
  }

  private summary() {
    const s = this.engine!.summary()
    this.lastSummary = s
    this.output.push(formatSummary(s))
    this.engine!.resetStats()
  }

  private trace(r: TraceRecord) {
    const line = formatRecord(r)
    if (line !== null) this.output.push(line)
  }
}

