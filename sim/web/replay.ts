// Replay for the web view: runs a scenario (a golden file or a made-up cluster) on the core's
// deterministic engine, one visible event per step, with the user's interventions (crash or
// recover a process at a step, drop a message in flight). Going to any step re-runs from the
// seed: same scenario, same interventions, same trace. Runs in the browser and in Node.

import type { Engine, NetworkModel } from "../../src/core/engine"
import { type TraceRecord, TraceType } from "../../src/core/trace"
import { Algorithm, type Frame, Kind, kindName } from "../../src/core/frame"
import { algorithmName, descriptorNamed } from "../../src/core/algorithms"
import { roleName } from "../../src/core/contract"
import { formatRecord, formatTime } from "../simulator/msc"
import { type Block, parseScenario, ScenarioRunner } from "../simulator/scenario"

export type Intervention =
  | { kind: "crash" | "recover"; node: number; atStep: number }
  /** Lose message copy number `message` (see ReplayMessage.index), chosen at step `atStep`. */
  | { kind: "drop"; message: number; atStep: number }

export interface ReplayMessage {
  /** Copy number in send order (one per destination of a send): stable under re-runs. */
  index: number
  src: number
  dst: number
  kind: string
  heartbeat: boolean
  sentAt: number
  sentStep: number
  /** Arrival time as the network model decided; -1 when lost. */
  arriveAt: number
  /** Step at which it reached its destination (live or crashed); -1 while in flight or lost. */
  doneStep: number
  lost: boolean
  /** Lost because the user dropped it. */
  droppedByUser: boolean
}

export interface ProcessView {
  id: number
  role: string
  coordinator: number
  epoch: number
}

export interface ReplayStep {
  time: number
  /** What the step printed: chart lines, command output. */
  lines: string[]
  /** Each process after the step. */
  processes: ProcessView[]
}

/** One happening for the ShiViz export: a local event, a send or a receipt of a message copy. */
export interface ReplayEvent {
  step: number
  node: number
  type: "local" | "send" | "receive"
  message: number
  text: string
}

export interface ReplayRun {
  title: string
  /** Chart lines before step 1 (the `cluster` command's line). */
  steps: ReplayStep[]
  messages: ReplayMessage[]
  events: ReplayEvent[]
  /** Summary lines this run printed, with the golden file's expected line when it has one. */
  summaries: { actual: string; expected: string | null }[]
  /** Set when the run stopped on an error (bad scenario). */
  error: string | null
  /** True when the run reached the end of the scenario (not cut at a step limit). */
  complete: boolean
  ids: number[]
  algorithm: string
}

export interface ReplaySource {
  /** Name shown and used in messages, e.g. "tanenbaum-bully". */
  name: string
  text: string
  /** The file it came from: a relative topology file is looked for beside it. */
  file?: string
}

/** A made-up cluster: the highest process crashes and the lowest notices. */
export function customScenario(algorithm: string, n: number, topology?: string): ReplaySource {
  const topo = topology && descriptorNamed(algorithm)?.usesGraph ? ` topology=${topology}` : ""
  const text = [
    `# ${algorithm}, ${n} processes: ${n} (the coordinator) crashes, 1 notices`,
    `cluster algorithm=${algorithm} nodes=${n}${topo}`,
    `crash ${n}`,
    `detect 1`,
    `settle`,
    `summary`,
    `status`,
  ].join("\n")
  return { name: `${algorithm}-${n}${topo ? "-" + topology : ""}`, text }
}

class StopReplay extends Error {}

/** Loses the chosen copies and notes every copy the engine sends. */
class TappedNetwork implements NetworkModel {
  count = 0
  constructor(
    private inner: NetworkModel,
    private drops: Set<number>,
    private onCopy: (index: number, src: number, dst: number, frame: Frame, now: number, delay: number, dropped: boolean) => void,
  ) {}
  delay(src: number, dst: number, frame: Frame, now: number): number {
    const index = this.count++
    let delay = this.inner.delay(src, dst, frame, now)
    const dropped = this.drops.has(index) && delay >= 0
    if (dropped) delay = -1
    this.onCopy(index, src, dst, frame, now, delay, dropped)
    return delay
  }
  frames(to: number[], frame: Frame): number {
    return this.inner.frames(to, frame)
  }
}

/**
 * Runs `source` with `interventions` up to `limit` steps (all of them by default).
 * Step 0 is the state after the `cluster` command.
 */
export function runReplay(source: ReplaySource, interventions: Intervention[] = [], limit = Infinity, maxSteps = 20_000): ReplayRun {
  const run: ReplayRun = {
    title: source.name,
    steps: [],
    messages: [],
    events: [],
    summaries: [],
    error: null,
    complete: false,
    ids: [],
    algorithm: "",
  }
  let blocks: Block[]
  try {
    blocks = parseScenario(source.text, source.file ?? source.name)
  } catch (e) {
    run.error = (e as Error).message
    return run
  }
  const runner = new ScenarioRunner(source.file ?? source.name)
  const drops = new Set(interventions.filter((i) => i.kind === "drop").map((i) => (i as { message: number }).message))
  let engine: Engine | null = null
  // message copies waiting for delivery, by frame object then destination
  const pending = new Map<Frame, Map<number, number>>()
  let pendingLines: string[] = []

  const snapshot = (): ProcessView[] =>
    engine!.nodes.map((n) => ({
      id: n.id,
      role: n.crashed ? "crashed" : roleName(n.role),
      coordinator: n.coordinator,
      epoch: n.epoch,
    }))
  const stepIndex = () => run.steps.length
  const endStep = (lines: string[]) => {
    run.steps.push({ time: engine ? engine.now : 0, lines, processes: engine ? snapshot() : [] })
    for (const i of interventions)
      if ((i.kind === "crash" || i.kind === "recover") && i.atStep === run.steps.length - 1) intervene(i.kind, i.node)
    if (run.steps.length - 1 >= limit || run.steps.length > maxSteps) throw new StopReplay()
  }
  const intervene = (kind: "crash" | "recover", node: number) => {
    pendingLines = []
    if (kind === "crash") engine!.crash(node)
    else engine!.recover(node)
    const lines = pendingLines
    pendingLines = []
    endStep(lines.length ? lines : [`t=${formatTime(engine!.now)} ${node} ${kind === "crash" ? "is already down" : "is already up"}`])
  }
  const delivered = (frame: Frame, dst: number) => {
    const byDst = pending.get(frame)
    const index = byDst?.get(dst)
    if (index === undefined) return
    byDst!.delete(dst)
    if (byDst!.size === 0) pending.delete(frame)
    const m = run.messages[index]
    m.doneStep = stepIndex()
    run.events.push({ step: stepIndex(), node: dst, type: "receive", message: index, text: `receive ${m.kind} from ${m.src}` })
  }
  const onRecord = (r: TraceRecord) => {
    const line = formatRecord(r)
    if (line !== null) pendingLines.push(line)
    switch (r.type) {
      case TraceType.DroppedAtCrashed:
        delivered(r.frame, r.dst)
        break
      case TraceType.Timeout:
      case TraceType.Crash:
      case TraceType.Recover:
      case TraceType.Detect:
      case TraceType.RoleChange:
        if (line !== null)
          run.events.push({ step: stepIndex(), node: r.node, type: "local", message: -1, text: line.replace(/^t=\S+ /, "") })
        break
    }
  }
  const attach = (e: Engine) => {
    engine = e
    run.ids = [...e.ids]
    const own = e.tracer
    e.tracer = (r) => {
      if (own) own(r)
      onRecord(r)
    }
    const network = new TappedNetwork(e.network, drops, (index, src, dst, frame, now, delay, dropped) => {
      const m: ReplayMessage = {
        index,
        src,
        dst,
        kind: kindName(frame.kind),
        heartbeat: frame.kind === Kind.HEARTBEAT,
        sentAt: now,
        sentStep: stepIndex(),
        arriveAt: delay < 0 ? -1 : now + delay,
        doneStep: -1,
        lost: delay < 0,
        droppedByUser: dropped,
      }
      run.messages.push(m)
      run.events.push({ step: stepIndex(), node: src, type: "send", message: index, text: `send ${m.kind} to ${dst}` })
      if (delay >= 0) {
        let byDst = pending.get(frame)
        if (!byDst) pending.set(frame, (byDst = new Map()))
        byDst.set(dst, index)
      }
    })
    ;(e as { network: NetworkModel }).network = network
    for (const node of e.nodes) {
      const receive = node.receive.bind(node)
      node.receive = (frame, now, out) => {
        delivered(frame, node.id)
        return receive(frame, now, out)
      }
    }
  }
  /** One engine event per step; events that print nothing join the next one. */
  const stepEngine = (until: number): boolean => {
    const e = engine!
    pendingLines = []
    for (;;) {
      const next = e.nextEventTime()
      if (next < 0 || next > until) {
        if (pendingLines.length) endStep(pendingLines)
        return false
      }
      e.step()
      if (pendingLines.length) {
        const lines = pendingLines
        pendingLines = []
        endStep(lines)
        return true
      }
    }
  }

  try {
    for (const b of blocks) {
      const where = `${source.file ?? source.name}:${b.line}`
      const [verb, ...args] = b.command.split(/\s+/)
      if (engine && (verb === "settle" || verb === "run")) {
        let until = Infinity
        if (verb === "run") {
          const kv = Object.fromEntries(args.map((a) => a.split("=")))
          if (kv.until !== undefined) until = Number(kv.until)
          else if (kv.for !== undefined) until = engine.now + Number(kv.for)
          else runner.runCommand(b.command, where) // let the runner name the mistake
        }
        while (stepEngine(until));
        if (verb === "run" && until > engine.now) engine.runUntil(until)
        continue
      }
      pendingLines = []
      // a copy: the runner's tracer keeps appending to the array it returned
      const output = [...runner.runCommand(b.command, where)]
      if (verb === "cluster") {
        attach(runner.engine!)
        run.algorithm = b.command.match(/algorithm=(\S+)/)?.[1] ?? algorithmName(Algorithm.Bully)
      }
      if (verb === "summary")
        run.summaries.push({ actual: output[0], expected: b.expected && b.expected.length ? b.expected[0] : null })
      endStep(output)
    }
    run.complete = true
  } catch (e) {
    if (!(e instanceof StopReplay)) run.error = (e as Error).message
  }
  return run
}

/** The trace printed up to and including `step`, one line each. */
export function traceUpTo(run: ReplayRun, step: number): string[] {
  return run.steps.slice(0, step + 1).flatMap((s) => s.lines)
}

/** Message copies sent at or before `step` and not yet delivered after it. */
export function inFlight(run: ReplayRun, step: number): ReplayMessage[] {
  return run.messages.filter((m) => m.sentStep <= step && !m.lost && (m.doneStep < 0 || m.doneStep > step))
}

/** Counts of election messages (heartbeats apart) sent up to `step`, by kind. */
export function countsUpTo(run: ReplayRun, step: number): Record<string, number> {
  const counts: Record<string, number> = {}
  for (const m of run.messages) if (m.sentStep <= step && !m.heartbeat) counts[m.kind] = (counts[m.kind] ?? 0) + 1
  return counts
}
