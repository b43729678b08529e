// Breadth-first search over the reachable states of the model (model.ts), each visited
// once by its hash, in the manner of DSLabs' search tests: the first violation found is
// on a shortest path from the initial state, rebuilt from parent links.
//
// Properties, judged by the core's one checker (src/core/checker.ts):
// - unique-coordinator: never two live processes in the coordinator role at once;
// - valid-coordinator: nobody follows a process outside the membership (not even for a
//   moment), and no node throws;
// - eventual-agreement: from every reachable state the fault-free continuation reaches
//   the campaign's property (one live coordinator, the highest live, all agreeing,
//   nobody electing): no dead ends.
//
// Reduction (ideal model only): what a node handles at an instant is fixed when the
// instant begins, so the steps of different nodes within it commute. Of the nodes with a
// step due, only the lowest takes its steps (each of them, in every order, with the loss or
// copy of a message for it) while the others wait; crashes, recoveries and detections are
// always tried, and at the end of an instant (no step due) everything is. When one of
// those steps changes what a checked property reads of a single state (changesWhatIsJudged),
// the others' steps are tried from that state too, so no order of two such changes is
// missed. Every state the full search reaches is then reached, or one that differs from it
// only by steps of that instant that change nothing the properties read (a partial-order
// reduction with ample sets; every cycle passes a tick, where everything is tried).
// `--no-reduction` turns it off; a test compares both.
//
// Limits: a depth limit and an epoch cap (epochs only grow). `complete` means no state
// was left unexpanded because of them: every state reachable within the fault budgets
// was visited.

import { describeFrame } from "../../src/core/chart"
import { algorithmName, descriptorOf } from "../../src/core/algorithms"
import { roleName } from "../../src/core/contract"
import {
  applyEvent,
  cloneState,
  clocked,
  type Detection,
  detectionOf,
  enabledEvents,
  stepNode,
  type Event,
  EventType,
  inexactTexts,
  initialState,
  maxEpoch,
  type ModelConfig,
  setFrameDescriber,
  type State,
  stateKey,
  type StepRecord,
} from "./model"
import {
  changesWhatIsJudged,
  chooseStepper,
  expand,
  explore,
  type ExploreOptions,
  judge,
  MEMORY_LIMIT,
  pathEvents,
  pathShare,
  type PathStep,
  replayPath,
  INTERRUPTED,
  stopsSearch,
  type Property,
  visitRoot,
  violatesAny,
} from "./explore"
import { FingerprintTable, IntList, omissionOdds } from "./key"
import { inexactRuns } from "./instant"
import { type CheckpointHead, readCheckpoint, searchIdentity, writeCheckpoint } from "./checkpoint"
import { rmSync } from "node:fs"
import { defaultMemory, defaultThreads, MainVisited } from "./parallel"

export { HEARTBEAT_ROUNDS, PROPERTIES, type Property } from "./explore"

setFrameDescriber(describeFrame)

export interface SearchOptions extends ExploreOptions {
  /** Breadth first: most events on a shortest path; deeper states are not expanded (a lower limit than the default searches breadth first). */
  maxDepth: number
  /** Keep searching after the first violation (one counterexample per property). */
  all?: boolean
  /** breadth: breadth first only (else depth first, breadth first when a violation or the depth limit is met). */
  order?: "depth" | "breadth"
  /** Threads of the depth-first search (default: every core); a search with `visit` runs on one. */
  threads?: number
  /** States the main thread visits alone before it starts its helpers (default PARALLEL_AFTER). */
  parallelAfter?: number
  /** Called with each state visited (tests compare searches by it). */
  visit?: (s: State) => void
  /** Depth first: called with each state judged without being kept (a loss at the end of an instant taken node by node). */
  judged?: (s: State) => void
  /** Slots the key table starts with (tests make it small, to see it grow). */
  tableSlots?: number
  /** The most bytes the key table may take (default: half the machine's memory). */
  memory?: number
  /** Called every `progressEvery` seconds (depth first) or 100,000 states (breadth first): a long search says how far it got. */
  progress?: (p: Progress) => void
  /** Seconds between progress reports (default 5). */
  progressEvery?: number
  /** Depth first: stop after this many seconds, over every run of a resumed search. */
  maxSeconds?: number
  /** Depth first: a shared flag; once another thread sets it, the search stops as at a limit (Ctrl-C). */
  interrupt?: Int32Array
  /** Depth first: write a checkpoint every `every` seconds and when a limit stops the search; `resume`: go on from the one in `file`. */
  checkpoint?: { file: string; every: number; resume?: boolean }
}

/** How far a search got. */
export interface Progress {
  states: number
  /** Since the last report. */
  statesPerSecond: number
  /** The main thread's path now, and the longest so far. */
  depth: number
  maxDepth: number
  /** Over every run of a resumed search. */
  seconds: number
  /** The process's resident memory, and the key table's part of it. */
  rss: number
  tableBytes: number
  /** How much of the search lies behind the threads' paths (pathShare; null breadth first): a rough guess. */
  share: number | null
  /** Seconds left by that guess (null when it says too little). */
  secondsLeft: number | null
}

/** Calls `report` every `every` seconds with the rate since the last call. */
class ProgressMeter {
  private lastT = 0
  constructor(
    private readonly report: (p: Progress) => void,
    private lastStates: number,
    private readonly every: number,
    private readonly before: number,
  ) {}

  tick(states: number, depth: number, maxDepth: number, t: number, tableBytes: number, share: number | null) {
    if (t - this.lastT < this.every) return
    const rate = (states - this.lastStates) / Math.max(t - this.lastT, 1e-3)
    this.lastT = t
    this.lastStates = states
    const seconds = this.before + t
    const secondsLeft = share !== null && share >= 0.001 && share < 1 ? (seconds * (1 - share)) / share : null
    this.report({ states, statesPerSecond: Math.round(rate), depth, maxDepth, seconds, rss: process.memoryUsage.rss(), tableBytes, share, secondsLeft })
  }
}

export interface Violation {
  property: Property
  /** The checker's words. */
  detail: string
  /** Shortest trace from the initial state, one line per step. */
  trace: string[]
  steps: StepRecord[]
}

export interface SearchResult {
  algorithm: string
  nodes: number
  timing: string
  detection: Detection
  crashes: number
  recoveries: number
  losses: number
  duplicates: number
  properties: Property[]
  states: number
  transitions: number
  /** Breadth first: the farthest state's distance; depth first: the longest path followed. */
  depth: number
  complete: boolean
  /** Whether the partial-order reduction was on. */
  reduced: boolean
  /** Whether instants were taken node by node (depth first in the ideal model: instant.ts). */
  instants: boolean
  /** depth: the depth-first search found no violation; breadth: the breadth-first one decided. */
  order: "depth" | "breadth"
  /** Threads that searched. */
  threads: number
  /** Why the search is not complete (empty when it is). */
  limits: string[]
  seconds: number
  statesPerSecond: number
  /** Peak memory the search used (heap and typed arrays, sampled every 10,000 states) over the states visited. */
  bytesPerState: number
  /** What the visited set keeps of a state: its 64-bit fingerprint. */
  store: "fingerprint64"
  /** States the checkpoint it resumed from held (0: a fresh search). */
  resumedFrom?: number
  /** The checkpoint left to resume from (a stopped search), else null. */
  checkpoint?: string | null
  /** Bytes the key table took at the end. */
  tableBytes: number
  /** The odds that two states shared a fingerprint, one of them left out (about n^2 / 2^65). */
  omissionOdds: number
  violations: Violation[]
}

/** The default state limit of a breadth-first search, which keeps whole states (not only keys). */
export const BREADTH_FIRST_MAX_STATES = 10_000_000

/** The default depth limit (breadth first's layers). */
export const DEFAULT_MAX_DEPTH = 200

export function defaultOptions(config: ModelConfig, properties: Property[]): SearchOptions {
  return { ...config, properties, maxDepth: DEFAULT_MAX_DEPTH, maxEpoch: 12, maxStates: BREADTH_FIRST_MAX_STATES, continuationSteps: 2000 }
}

/**
 * The search: depth first (a stack of the states on the current path, nothing else kept
 * but the visited keys), and breadth first from the start again when it meets a violation,
 * so that a violation comes with a shortest trace. The depth limit bounds breadth first's
 * layers; depth first needs none (the visited set ends every path) and cuts no path, so it
 * visits what a complete breadth-first search does. `order: "breadth"`, or a depth limit
 * below the default, searches breadth first only.
 */
export function search(options: SearchOptions): SearchResult {
  // the fencing tokens are kept beside the nodes only when judged (they are state)
  if (options.properties.includes("fenced") && !options.tokens) options = { ...options, tokens: "issued" }
  if (!searchesDepthFirst(options)) {
    if (options.checkpoint?.resume) throw new Error("only a depth-first search goes on from a checkpoint")
    return breadthFirst({ ...options, checkpoint: undefined })
  }
  const started = performance.now()
  const result = depthFirst(options)
  if (result) return result
  // the shortest trace, breadth first: whole states kept, within its own limit
  const again = breadthFirst({ ...options, maxStates: Math.min(options.maxStates, BREADTH_FIRST_MAX_STATES) })
  again.seconds = Math.round(performance.now() - started) / 1000
  again.statesPerSecond = Math.round(again.states / Math.max(again.seconds, 1e-3))
  return again
}

/** Whether `search` goes depth first (else breadth first from the start). */
export function searchesDepthFirst(options: SearchOptions): boolean {
  // depth first only where it is known to match: the ideal model with timed detection or
  // heartbeats (with any-time detection and in the other models the tests found it wander
  // or differ)
  const depthFirstFits = options.timing === "ideal" && detectionOf(options) !== "any"
  return !(options.order === "breadth" || (options.order !== "depth" && !depthFirstFits) || options.maxDepth < DEFAULT_MAX_DEPTH)
}

/** States the main thread visits alone before it starts helper threads (small searches never do). */
export const PARALLEL_AFTER = 20_000

/**
 * Depth first over the same states and transitions as breadthFirst (which successors a
 * state has depends on the state alone, reduction included), on `threads` threads once it
 * passes PARALLEL_AFTER states; null when it met a violation (breadth first finds its
 * shortest trace).
 */
function depthFirst(options: SearchOptions): SearchResult | null {
  const started = performance.now()
  const budget = options.memory ?? defaultMemory()
  const ckpt = options.checkpoint
  const resumed = ckpt?.resume ? readCheckpoint(ckpt.file, budget) : null
  if (resumed && resumed.head.search !== searchIdentity(options))
    throw new Error(`${ckpt!.file} is the checkpoint of another search: ${resumed.head.search}`)
  const visited = new MainVisited(budget, resumed?.table ?? FingerprintTable.create(options.tableSlots))
  const before = resumed ? resumed.head : { states: 0, transitions: 0, depth: 0, seconds: 0, limits: [] as string[], inexact: 0, paths: [[]] as Event[][] }
  const key = new Uint32Array(2)
  const memory = new MemoryGauge()
  const helpers = options.visit || options.judged ? 0 : Math.max(0, (options.threads ?? defaultThreads()) - 1)
  if (!resumed) {
    const root = visitRoot(options, visited, key)
    if (options.visit) options.visit(root)
    if (violatesAny(root, options)) return null
  }
  const limits = new Set<string>(before.limits)
  // the paths still to explore, each from the root (one, the root's, in a fresh search)
  const pending = before.paths.slice(0)
  let stack: PathStep[] = []
  let depth = before.depth
  let sampled = 0
  let loops = 0
  let transitions = 0
  let inexact = 0
  const clock = () => (performance.now() - started) / 1000
  let nextCheckpoint = ckpt ? ckpt.every : Infinity
  const progress = options.progress ? new ProgressMeter(options.progress, visited.size(), options.progressEvery ?? 5, before.seconds) : null

  const head = (paths: Event[][], transitions: number, inexact: number): CheckpointHead => ({
    search: searchIdentity(options),
    states: visited.size(),
    transitions: before.transitions + transitions,
    depth,
    seconds: before.seconds + clock(),
    limits: [...limits].filter((l) => !stopsSearch(l)),
    inexact: before.inexact + inexact,
    paths,
  })
  // a checkpoint now: this thread's path (at its loop top), those not yet begun, the helpers'
  const checkpointNow = (own: PathStep[]) => {
    const paths = own.length > 0 ? [pathEvents(own)] : []
    const helpers = visited.gather()
    paths.push(...pending, ...helpers.paths)
    writeCheckpoint(ckpt!.file, head(paths, transitions, inexactTexts + inexactRuns - inexactStart + helpers.inexact), visited.table)
    visited.release()
    nextCheckpoint = clock() + ckpt!.every
  }
  // the seen-buffer check's count on this thread so far (explore reports it when it returns)
  const inexactStart = inexactTexts + inexactRuns
  const timeUp = () => {
    if (options.interrupt && Atomics.load(options.interrupt, 0) !== 0) limits.add(INTERRUPTED)
    else if (options.maxSeconds === undefined || before.seconds + clock() < options.maxSeconds) return false
    else limits.add(`time limit ${options.maxSeconds} s`)
    visited.stopAll()
    return true
  }
  const tick = (own: PathStep[]) => {
    const t = clock()
    if (ckpt && t >= nextCheckpoint) checkpointNow(own)
    // a helper whose search ran dry takes a share of this thread's
    if (own.length > 0) visited.feedIdle(() => pathEvents(own))
    if (progress) {
      const [forward, backward] = visited.helperShares()
      progress.tick(visited.size(), own.length, Math.max(depth, own.length), t, visited.table.bytes(), Math.min(1, Math.max(pathShare(own), forward) + backward))
    }
  }
  const hooks = {
    reverse: false,
    stopped: (path: PathStep[]) => {
      if ((++loops & 1023) === 0) {
        tick(path)
        if (timeUp()) return true
      }
      return visited.stopped()
    },
    judged: options.judged,
    visited: (s: State, path: PathStep[]) => {
      if (options.visit) options.visit(s)
      if (path.length > depth) depth = path.length
      if (++sampled % 10_000 === 0) memory.sample()
      if (helpers > 0 && !visited.parallel && sampled >= (options.parallelAfter ?? PARALLEL_AFTER))
        visited.handOver(plainOptions(options), pathEvents(path), helpers)
    },
  }
  let violated = false
  let stoppedEarly = false
  for (;;) {
    while (pending.length > 0) {
      stack = replayPath(options, pending.shift()!, limits, false)
      const own = explore(options, visited, stack, hooks)
      transitions += own.transitions
      inexact += own.inexact
      if (own.depth > depth) depth = own.depth
      for (const l of own.limits) limits.add(l)
      if (own.violated) violated = true
      if (own.violated || [...limits].some(stopsSearch) || visited.stopped()) {
        stoppedEarly = true
        break
      }
    }
    // its own part done: a share of each busy helper's (their paths, taken as for a checkpoint)
    if (stoppedEarly || !visited.helpersBusy()) break
    const shared = visited.gather()
    visited.release()
    pending.push(...shared.paths)
    // (a helper at the end of its path has none to share: it is about to run dry)
    if (pending.length === 0) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 5)
  }
  if (stoppedEarly) visited.stopAll()
  const results = visited.finish(() => {
    tick([])
    timeUp()
  })
  memory.sample()
  for (const r of results) if (r.error) throw new Error(`a helper thread of the search failed: ${r.error}`)
  if (violated || results.some((r) => r.violated)) return null
  let heaps = 0
  const open: Event[][] = stack.length > 0 && stoppedEarly ? [pathEvents(stack)] : []
  open.push(...pending)
  for (const r of results) {
    transitions += r.transitions
    inexact += r.inexact
    heaps += r.heapPeak
    if (r.depth > depth) depth = r.depth
    for (const l of r.limits) limits.add(l)
    open.push(...r.pending)
  }
  if (before.inexact + inexact > 0) limits.add("a seen buffer half full (its abstraction may not be exact)")
  const states = visited.size()
  const complete = limits.size === 0
  if (ckpt) {
    // a stopped search leaves its checkpoint to resume from; a finished one has none left
    if (!complete && open.length > 0) writeCheckpoint(ckpt.file, head(open, transitions, inexact), visited.table)
    else rmSync(ckpt.file, { force: true })
  }
  const seconds = before.seconds + clock()
  return {
    ...resultHead(options),
    states,
    transitions: before.transitions + transitions,
    depth,
    complete,
    reduced: options.timing === "ideal" && options.reduce !== false,
    instants: options.timing === "ideal" && options.reduce !== false && options.instants !== false,
    order: "depth",
    threads: 1 + results.length,
    limits: [...limits],
    seconds: Math.round(seconds * 1000) / 1000,
    statesPerSecond: Math.round((states - before.states) / Math.max(clock(), 1e-3)),
    bytesPerState: Math.round((memory.peak + heaps) / Math.max(1, states - before.states)),
    ...storeFigures(visited.table, states),
    resumedFrom: before.states,
    checkpoint: ckpt && !complete && open.length > 0 ? ckpt.file : null,
    violations: [],
  }
}

/** What a helper thread needs: the options without the callbacks. */
function plainOptions(o: SearchOptions): ExploreOptions {
  const { algorithm, nodes, timing, crashes, recoveries, losses, duplicates, detection, tokens } = o
  const { properties, maxEpoch, maxStates, continuationSteps, reduce, instants } = o
  return { algorithm, nodes, timing, crashes, recoveries, losses, duplicates, detection, tokens, properties, maxEpoch, maxStates, continuationSteps, reduce, instants }
}


function storeFigures(table: FingerprintTable, states: number) {
  return { store: "fingerprint64" as const, tableBytes: table.bytes(), omissionOdds: omissionOdds(states) }
}

function resultHead(options: SearchOptions) {
  return {
    algorithm: algorithmName(options.algorithm),
    nodes: options.nodes,
    timing: options.timing,
    detection: detectionOf(options),
    crashes: options.crashes,
    recoveries: options.recoveries,
    losses: options.losses,
    duplicates: options.duplicates,
    properties: options.properties,
  }
}

function breadthFirst(options: SearchOptions): SearchResult {
  const started = performance.now()
  const inexactBefore = inexactTexts
  const root = initialState(options)
  const visited = FingerprintTable.create(options.tableSlots)
  const budget = options.memory ?? defaultMemory()
  let full = false
  const key = new Uint32Array(2)
  // per state visited: its parent's index and the event from it (packed), for the trace
  const parent = new IntList()
  const via = new IntList()
  const memory = new MemoryGauge()
  const violations: Violation[] = []
  const found = new Set<Property>()
  const limits = new Set<string>()
  let transitions = 0
  let depth = 0

  const consider = (s: State, index: number): boolean => {
    for (const p of options.properties) {
      if (found.has(p)) continue
      const detail = judge(s, p, options)
      if (detail === "") continue
      found.add(p)
      violations.push({ property: p, detail, ...rebuildTrace(options, pathTo(index, parent, via)) })
      if (!options.all || found.size === options.properties.length) return true
    }
    return false
  }

  for (let i = 0; i < root.owned.length; i++) root.owned[i] = false
  stateKey(root, options.timing, key)
  visited.add(key[0], key[1])
  let size = 1
  parent.push(-1)
  via.push(packEvent({ type: EventType.Tick, a: 0, b: 0 }))
  const reduce = options.timing === "ideal" && options.reduce !== false
  const judgesRoles = options.properties.includes("unique-coordinator")
  if (options.visit) options.visit(root)
  let stop = consider(root, 0)
  let frontier: { s: State; index: number }[] = [{ s: root, index: 0 }]
  let d = -1
  while (frontier.length > 0 && !stop) {
    const next: { s: State; index: number }[] = []
    d++
    for (const { s, index } of frontier) {
      if (stop) break
      if (d >= options.maxDepth) {
        limits.add(`depth limit ${options.maxDepth}`)
        continue
      }
      if (maxEpoch(s) > options.maxEpoch) {
        limits.add(`epoch cap ${options.maxEpoch}`)
        continue
      }
      const enabled = enabledEvents(s, options)
      const waiting: Event[] = []
      const stepper = reduce ? chooseStepper(s, enabled) : -1
      let visible = false
      const tried: Event[] = []
      for (const e of enabled) {
        const n = stepNode(s, e)
        if (n >= 0 && stepper >= 0 && n !== stepper) waiting.push(e)
        else tried.push(e)
      }
      for (let k = 0; k < tried.length && !stop; k++) {
        const e = tried[k]
        transitions++
        const t = cloneState(s)
        applyEvent(t, e, options, false)
        if (stepper >= 0 && !visible && stepNode(s, e) === stepper && changesWhatIsJudged(s, t, stepper, judgesRoles)) {
          visible = true
          for (const w of waiting) tried.push(w)
        }
        stateKey(t, options.timing, key)
        if (visited.has(key[0], key[1])) continue
        if (size >= options.maxStates) {
          limits.add(`state limit ${options.maxStates}`)
          break
        }
        if (full) {
          limits.add(MEMORY_LIMIT)
          break
        }
        if (visited.add(key[0], key[1]) > 0 && !visited.relieve(budget)) full = true
        size++
        if (options.visit) options.visit(t)
        if (size % 10_000 === 0) {
          memory.sample()
          if (options.progress && size % 100_000 === 0) {
            const seconds = (performance.now() - started) / 1000
            const rss = process.memoryUsage.rss()
            options.progress({ states: size, statesPerSecond: Math.round(size / seconds), depth: d + 1, maxDepth: d + 1, seconds, rss, tableBytes: visited.bytes(), share: null, secondsLeft: null })
          }
        }
        const ti = parent.length
        parent.push(index)
        via.push(packEvent(e))
        if (d + 1 > depth) depth = d + 1
        if (consider(t, ti)) {
          stop = true
          break
        }
        for (let i = 0; i < t.owned.length; i++) t.owned[i] = false
        next.push({ s: t, index: ti })
      }
    }
    frontier = next
  }
  if (inexactTexts !== inexactBefore) limits.add("a seen buffer half full (its abstraction may not be exact)")
  memory.sample()
  const seconds = (performance.now() - started) / 1000
  return {
    ...resultHead(options),
    states: size,
    transitions,
    depth,
    complete: limits.size === 0 && !stop,
    reduced: reduce,
    instants: false,
    order: "breadth",
    threads: 1,
    limits: [...limits],
    seconds: Math.round(seconds * 1000) / 1000,
    statesPerSecond: Math.round(size / Math.max(seconds, 1e-3)),
    bytesPerState: Math.round(memory.peak / size),
    ...storeFigures(visited, size),
    violations,
  }
}

function pathTo(index: number, parent: IntList, via: IntList): Event[] {
  const path: Event[] = []
  for (let i = index; parent.get(i) >= 0; i = parent.get(i)) path.push(unpackEvent(via.get(i)))
  return path.reverse()
}

/** An event in one integer: type (4 bits), timer (4 bits), message or node index (the rest). */
function packEvent(e: Event): number {
  return e.type | (e.b << 4) | (e.a << 8)
}

function unpackEvent(w: number): Event {
  return { type: w & 15, a: w >>> 8, b: (w >>> 4) & 15 }
}

/** The search's memory: the heap and typed arrays in use, above what was in use when it began. */
class MemoryGauge {
  private base: number
  peak = 0
  constructor() {
    const m = process.memoryUsage()
    this.base = m.heapUsed + m.arrayBuffers
  }
  sample() {
    const m = process.memoryUsage()
    const used = m.heapUsed + m.arrayBuffers - this.base
    if (used > this.peak) this.peak = used
  }
}

/** Replays `path` from the initial state, recording each step for the trace and the scenario writer. */
export function rebuildTrace(config: ModelConfig, path: Event[]): { trace: string[]; steps: StepRecord[] } {
  const s = initialState(config)
  const steps: StepRecord[] = []
  const trace: string[] = []
  for (const e of path) {
    const rec = applyEvent(s, e, config, true)!
    steps.push(rec)
    trace.push(`${steps.length}. ${rec.text}`)
  }
  trace.push(`then: ${describeRoles(s)}`)
  return { trace, steps }
}

export function describeRoles(s: State): string {
  return s.nodes.map((n) => (n.crashed ? `${n.id} crashed` : `${n.id} ${roleName(n.role)} of ${n.coordinator}`)).join(", ")
}

/**
 * What an algorithm promises under a model, the default of `electlab check` (the table in
 * docs/algorithms.md, "Exhaustive check", each line backed by test/check.test.ts).
 */
export function promisedProperties(config: ModelConfig): Property[] {
  const promised: Property[] = ["valid-coordinator"]
  // liveness needs delays below the timeouts
  if (clocked(config.timing)) promised.unshift("eventual-agreement")
  // without heartbeats a recovered process takes over at once, before the old coordinator hears of it; a lost
  // answer, like a slow one under arbitrary delays, looks like a crash; an algorithm that
  // needs links in order (active-list-ring's concurrent elections) gets none from the
  // bounded model (the search found two coordinators there)
  const reorders = config.timing === "bounded" && descriptorOf(config.algorithm).needsFifoLinks
  // with heartbeats a recovered process claims the role through the handover (handover.ts):
  // the sitting coordinator resigns first
  const handover = detectionOf(config) === "heartbeats"
  if (clocked(config.timing) && (config.recoveries === 0 || handover) && config.losses === 0 && !reorders) promised.push("unique-coordinator")
  return promised
}
