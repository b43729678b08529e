// `electlab lab`: the virtual lab, with the live dashboard or headless with a script.

import { existsSync } from "node:fs"
import { algorithmName } from "../../src/core/algorithms"
import { checkMembers, InputError, parseIdArgument, parseInteger, parseNumber } from "../config/input"
import { givenFlags, resolveCluster } from "../config/cluster-config"
import { median, nearestRank } from "./stats"
import { readManifest } from "../config/manifest"
import { runDashboard } from "./dashboard"
import { boardRoleName, type BoardState, type HeapKinds } from "./board-state"
import { type Failover, Lab, type LabOptions } from "./lab"
import { checkScriptBoards, readLabScript, runLabScript, type ScriptStep } from "./script"
import type { AppFigures } from "./app-tally"

export interface LabFlags {
  boards?: string
  ids?: string
  algorithm?: string
  manifest?: string
  loss: string
  delay: string
  seed: string
  headless?: boolean
  script?: string
  verbose?: boolean
  transport: string
  hostNodes?: string
  /** Port of the live web page; "0" turns it off. */
  web?: string
  failureDetector?: string
  /** bid-ring: each board's suitability in the order of the ids (default: the manifest's). */
  suitability?: string
  /** Timing (ms); default: the manifest's, or the bus's or WiFi's row of src/core/timing.ts. */
  heartbeat?: string
  failTimeout?: string
  answerTimeout?: string
  coordinatorTimeout?: string
  /** false with --no-auth */
  auth?: boolean
  hub?: string
  /** The program the boards run (default src/main.ts). */
  program?: string
  ballastKb?: string
}

export function labOptions(flags: LabFlags): LabOptions {
  const manifestFile = flags.manifest ?? (existsSync("devicescript.json") ? "devicescript.json" : undefined)
  const transport = parseTransport(flags.transport)
  const spec = resolveCluster({
    use: "lab",
    given: givenFlags(flags, "lab"),
    manifest: manifestFile ? { file: manifestFile, manifest: readManifest(manifestFile) } : null,
    network: transport === "mqtt" ? "wifi" : "bus",
  })
  return {
    ids: spec.ids,
    algorithm: spec.algorithm,
    group: spec.group,
    timing: spec.timing,
    suitability: spec.suitability,
    transport,
    hub: parseHub(flags),
    hostNodes: hostNodes(flags, spec.ids),
    loss: parseNumber(flags.loss, "--loss", 0, 0.9),
    delayMs: parseNumber(flags.delay, "--delay", 0, 10_000),
    seed: parseInteger(flags.seed, "--seed", 0, 2 ** 32 - 1),
    auth: flags.auth !== false,
    program: flags.program,
    ballastKb: parseInteger(flags.ballastKb ?? "0", "--ballast-kb", 0, 64),
  }
}

function parseHub(flags: LabFlags): "lab" | "devtools" {
  const hub = flags.hub ?? "lab"
  if (hub !== "lab" && hub !== "devtools") throw new InputError(`unknown hub '${hub}'; known: lab, devtools`, "--hub")
  if (hub === "devtools" && (Number(flags.loss) > 0 || Number(flags.delay) > 0))
    throw new InputError("loss and delay are injected by the lab's own hub: drop --hub devtools", "--hub")
  return hub
}

function parseTransport(text: string): "bus" | "mqtt" {
  if (text === "bus" || text === "mqtt") return text
  throw new InputError(`unknown transport '${text}'; known: bus, mqtt`, "--transport")
}

function hostNodes(flags: LabFlags, ids: number[]): number[] {
  if (flags.hostNodes === undefined) return []
  if (flags.transport !== "mqtt") throw new InputError("host nodes join over MQTT: add --transport mqtt", "--host-nodes")
  const hosts = parseIdArgument(flags.hostNodes, "--host-nodes")
  checkMembers(hosts, ids, "--host-nodes")
  return hosts
}

export interface LabSummary {
  algorithm: string
  transport: "bus" | "mqtt"
  agreement: boolean
  coordinator: number | null
  /** Each board as the lab saw it last (BoardState's figures), its role by name. */
  boards: (Omit<BoardState, "role" | "booted" | "nonce" | "registerRole" | "refusedWhy" | "heapKinds" | "programStarted"> & { role: string })[]
  /** Frames carried a tag (a key made for the run). */
  auth: boolean
  /** Every crash, recover, kill and restart, in order, with the time until the boards agreed again and `overlapMs`. */
  transitions: Failover[]
  /** Failovers only: the coordinator crashed or killed, until the boards agreed on another. */
  failoverStats: Stats | null
  /** Per kind of trigger: crash, recover, kill, restart. */
  statsByTrigger: Record<string, Stats>
  /** Programs the VMs stopped and restarted (out of memory, an uncaught exception): 0 in a healthy run. */
  panics: number
  /** What the event log said of each panic (board, exception, the innermost functions), the first PANIC_NOTES of them. */
  panicNotes: string[]
  /** The longest time more than one live board held the coordinator role in any transition, ms. */
  maxOverlapMs: number
  timing: LabOptions["timing"]
  /** KB of heap each board held from boot on (--ballast-kb). */
  ballastKb: number
  firmwareBytes: number
  bus: { frames: number; bytes: number; dropped: number }
  /** With --program: per board the application orders accepted and refused, messages received, and staleAccepted (must be 0). */
  app?: AppFigures[]
  /**
   * The most heap any board's program held after a collection (its ballast included), the
   * board, and the heap's size: 65,536 bytes, less the collector's own 12.
   */
  heap: { peakBytes: number | null; node: number | null; heapBytes: number; kinds: HeapKinds | null }
  /** A run that stopped: why, and the event log's last lines before it. */
  failed?: { reason: string; lastEvents: string[] }
}

interface Stats {
  count: number
  medianMs: number | null
  minMs: number | null
  maxMs: number | null
  p90Ms: number | null
  medianElectionFrames: number | null
  medianBusFrames: number | null
}

function stats(records: Failover[]): Stats {
  const durations = records.map((f) => f.durationMs!).sort((a, b) => a - b)
  return {
    count: records.length,
    medianMs: median(durations),
    minMs: nearestRank(durations, 0),
    maxMs: nearestRank(durations, 1),
    p90Ms: nearestRank(durations, 0.9),
    medianElectionFrames: median(records.map((f) => f.electionFrames)),
    medianBusFrames: median(records.map((f) => f.busFrames)),
  }
}

export function summarize(lab: Lab): LabSummary {
  const { agreed, coordinator } = lab.agreement()
  const done = lab.failovers.filter((f) => f.durationMs !== null)
  const statsByTrigger: Record<string, Stats> = {}
  for (const kind of ["crash", "recover", "kill", "restart"]) {
    const records = done.filter((f) => f.trigger.startsWith(kind + " "))
    if (records.length) statsByTrigger[kind] = stats(records)
  }
  // a failover: the coordinator itself went down and another took over
  const failovers = done.filter(
    (f) => /^(crash|kill) /.test(f.trigger) && f.coordinatorBefore !== null && f.trigger.endsWith(" " + f.coordinatorBefore),
  )
  return {
    algorithm: algorithmName(lab.options.algorithm),
    transport: lab.options.transport ?? "bus",
    agreement: agreed,
    coordinator,
    boards: [...lab.boards.values()].map((b) => ({
      node: b.node,
      powered: b.powered,
      role: boardRoleName(b),
      coordinator: b.coordinator,
      epoch: b.epoch,
      framesSent: b.framesSent,
      framesReceived: b.framesReceived,
      tx: b.tx,
      rx: b.rx,
      drops: b.drops,
      errors: b.errors,
      refused: b.refused,
      panics: b.panics,
      heapLive: b.heapLive,
      heapPeak: b.heapPeak,
      problem: b.problem,
    })),
    auth: lab.authKey !== null,
    transitions: lab.failovers,
    failoverStats: failovers.length ? stats(failovers) : null,
    statsByTrigger,
    panics: lab.panics,
    panicNotes: lab.panicNotes,
    maxOverlapMs: lab.failovers.reduce((m, f) => Math.max(m, f.overlapMs), 0),
    timing: lab.options.timing,
    ballastKb: lab.options.ballastKb ?? 0,
    firmwareBytes: lab.firmwareBytes,
    bus: { frames: lab.hub.frames, bytes: lab.hub.bytes, dropped: lab.hub.dropped },
    ...(lab.options.program ? { app: lab.app.figures(lab.options.ids) } : {}),
    heap: heapPeak(lab),
  }
}

/** Bytes the VM's collector can hand out: its 64 KB chunk less a header and the closing block. */
export const VM_HEAP_BYTES = 64 * 1024 - 12

function heapPeak(lab: Lab): LabSummary["heap"] {
  let peak: BoardState | null = null
  for (const b of lab.boards.values()) if (b.heapPeak !== null && (peak === null || b.heapPeak > peak.heapPeak!)) peak = b
  return { peakBytes: peak?.heapPeak ?? null, node: peak?.node ?? null, heapBytes: VM_HEAP_BYTES, kinds: peak?.heapKinds ?? null }
}

/** How many of the event log's last lines a stopped run prints with its summary. */
const LAST_EVENTS = 30

/** A headless run that stopped before its end, with the summary of what it saw until then. */
export class LabRunStopped extends Error {
  constructor(
    message: string,
    readonly summary: LabSummary,
  ) {
    super(message)
  }
}

const STOP_SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP"] as const

/** Headless: boot, wait for agreement, run the script, wait for agreement, report. */
export async function runHeadless(options: LabOptions, steps: ScriptStep[], file: string, verbose: boolean): Promise<LabSummary> {
  const lab = new Lab(options)
  let shown = 0
  const progress = setInterval(() => {
    if (!verbose) return
    for (const line of lab.logSince(shown)) process.stderr.write(`${line.at} ms ${line.text}\n`)
    shown = lab.logCount
  }, 200)
  // Ctrl-C, kill, or the terminal closing: stop the VMs and remove the build folder first
  const onSignal = (): void => void lab.stop().then(() => process.exit(130))
  for (const signal of STOP_SIGNALS) process.once(signal, onSignal)
  let started = false
  try {
    await lab.start()
    started = true
    await lab.waitForAgreement(60_000)
    await runLabScript(lab, steps, file)
    await lab.waitForAgreement(60_000)
    // the final counters as the boards' registers give them
    await lab.readRegisters()
    // reading them loads every board (12 VMs on two cores: a heartbeat handled late, a
    // follower suspecting): the summary's agreement is the boards' state once they settle
    await lab.waitForAgreement(60_000)
    return summarize(lab)
  } catch (e) {
    // a lab that never started (the build, the broker) has nothing to summarise
    if (!started) throw e
    const reason = (e as Error).message
    const lastEvents = lab.log.slice(-LAST_EVENTS).map((l) => `${l.at} ms ${l.text}`)
    throw new LabRunStopped(reason, { ...summarize(lab), failed: { reason, lastEvents } })
  } finally {
    clearInterval(progress)
    for (const signal of STOP_SIGNALS) process.removeListener(signal, onSignal)
    await lab.stop()
  }
}

/**
 * The live page beside a running lab, or null with `--web 0`: sim/web/command.ts startLiveWeb,
 * passed in by the CLI, since the web view imports the lab and not the other way round.
 */
export type StartLiveWeb = (lab: Lab, webFlag: string | undefined) => Promise<{ url: string; close(): Promise<void> } | null>

export async function runLabCommand(flags: LabFlags, startLiveWeb: StartLiveWeb): Promise<number> {
  const options = labOptions(flags)
  const steps = flags.script ? readLabScript(flags.script) : []
  if (flags.script && !flags.headless) throw new InputError("--script runs headless: add --headless")
  if (flags.script) checkScriptBoards(steps, options.ids, flags.script)
  if (flags.headless) {
    const summary = await runHeadless(options, steps, flags.script ?? "(no script)", !!flags.verbose).catch((e: Error) => {
      // what the run saw until it stopped, on stdout as a finished run's summary is
      if (e instanceof LabRunStopped) process.stdout.write(JSON.stringify(e.summary, null, 2) + "\n")
      throw e instanceof InputError ? e : new InputError(e.message, "lab")
    })
    process.stdout.write(JSON.stringify(summary, null, 2) + "\n")
    return summary.agreement ? 0 : 3
  }
  if (!process.stdin.isTTY || !process.stdout.isTTY)
    throw new InputError("the dashboard needs a terminal; use --headless (with --script FILE) otherwise")
  const lab = new Lab(options)
  process.stdout.write(`starting ${options.ids.length} boards (building the firmware, booting the VMs)...\n`)
  try {
    await lab.start()
  } catch (e) {
    await lab.stop()
    throw new InputError((e as Error).message, "lab")
  }
  const web = await startLiveWeb(lab, flags.web).catch(async (e: Error) => {
    await lab.stop()
    throw new InputError(e.message, "--web")
  })
  if (web) process.stdout.write(`live view: open ${web.url}\n`)
  await runDashboard(lab)
  await web?.close()
  if (web) process.stdout.write(`the live view was at ${web.url}\n`)
  return 0
}
