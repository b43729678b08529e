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
  type PathStep,
  type Property,
  visitRoot,
  violatesAny,
} from "./explore"
import { FingerprintTable, IntList, omissionOdds } from "./key"
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
  /** Called every 100,000 states (a long search says how far it got). */
  progress?: (states: number, depth: number, seconds: number) => void
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
  /** Bytes the key table took at the end. */
  tableBytes: number
  /** The odds that two states shared a fingerprint, one of them left out (about n^2 / 2^65). */
  omissionOdds: number
  violations: Violation[]
}

/** The default depth limit (breadth first's layers). */
export const DEFAULT_MAX_DEPTH = 200

export function defaultOptions(config: ModelConfig, properties: Property[]): SearchOptions {
  return { ...config, properties, maxDepth: DEFAULT_MAX_DEPTH, maxEpoch: 12, maxStates: 10_000_000, continuationSteps: 2000 }
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
  // depth first only where it is known to match: the ideal model with timed detection or
  // heartbeats (with any-time detection and in the other models the tests found it wander
  // or differ)
  const depthFirstFits = options.timing === "ideal" && detectionOf(options) !== "any"
  if (options.order === "breadth" || (options.order !== "depth" && !depthFirstFits) || options.maxDepth < DEFAULT_MAX_DEPTH)
    return breadthFirst(options)
  const started = performance.now()
  const result = depthFirst(options)
  if (result) return result
  const again = breadthFirst(options)
  again.seconds = Math.round(performance.now() - started) / 1000
  again.statesPerSecond = Math.round(again.states / Math.max(again.seconds, 1e-3))
  return again
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
  const visited = new MainVisited(options.memory ?? defaultMemory(), FingerprintTable.create(options.tableSlots))
  const key = new Uint32Array(2)
  const memory = new MemoryGauge()
  const helpers = options.visit || options.judged ? 0 : Math.max(0, (options.threads ?? defaultThreads()) - 1)
  const root = visitRoot(options, visited, key)
  if (options.visit) options.visit(root)
  if (violatesAny(root, options)) return null
  const stack: PathStep[] = []
  const limits = new Set<string>()
  const first = expand(root, null, options, limits, false)
  if (first) stack.push(first)
  let nextProgress = 100_000
  const report = (states: number) => {
    if (states < nextProgress) return
    nextProgress = states + 100_000
    memory.sample()
    if (options.progress) options.progress(states, depth, (performance.now() - started) / 1000)
  }
  let depth = 0
  let sampled = 0
  const own = explore(options, visited, stack, {
    reverse: false,
    stopped: () => visited.stopped(),
    judged: options.judged,
    visited: (s, path) => {
      if (options.visit) options.visit(s)
      if (path.length > depth) depth = path.length
      if (++sampled % 10_000 === 0) memory.sample()
      if (helpers > 0 && !visited.parallel && sampled >= (options.parallelAfter ?? PARALLEL_AFTER))
        visited.handOver(plainOptions(options), pathEvents(path), helpers)
      report(visited.size())
    },
  })
  if (own.violated || own.limits.size > 0) visited.stopAll()
  const results = visited.finish(report)
  memory.sample()
  for (const r of results) if (r.error) throw new Error(`a helper thread of the search failed: ${r.error}`)
  if (own.violated || results.some((r) => r.violated)) return null
  for (const l of own.limits) limits.add(l)
  let transitions = own.transitions
  let inexact = own.inexact
  let heaps = 0
  for (const r of results) {
    transitions += r.transitions
    inexact += r.inexact
    heaps += r.heapPeak
    if (r.depth > depth) depth = r.depth
    for (const l of r.limits) limits.add(l)
  }
  if (inexact > 0) limits.add("a seen buffer half full (its abstraction may not be exact)")
  const states = visited.size()
  const seconds = (performance.now() - started) / 1000
  return {
    ...resultHead(options),
    states,
    transitions,
    depth: Math.max(depth, own.depth),
    complete: limits.size === 0,
    reduced: options.timing === "ideal" && options.reduce !== false,
    instants: options.timing === "ideal" && options.reduce !== false && options.instants !== false,
    order: "depth",
    threads: 1 + results.length,
    limits: [...limits],
    seconds: Math.round(seconds * 1000) / 1000,
    statesPerSecond: Math.round(states / Math.max(seconds, 1e-3)),
    bytesPerState: Math.round((memory.peak + heaps) / states),
    ...storeFigures(visited.table, states),
    violations: [],
  }
}

/** What a helper thread needs: the options without the callbacks. */
function plainOptions(o: SearchOptions): ExploreOptions {
  const { algorithm, nodes, timing, crashes, recoveries, losses, duplicates, detection, tokens } = o
  const { properties, maxEpoch, maxStates, continuationSteps, reduce, instants } = o
  return { algorithm, nodes, timing, crashes, recoveries, losses, duplicates, detection, tokens, properties, maxEpoch, maxStates, continuationSteps, reduce, instants }
}

/** The events from the root along a path. */
function pathEvents(path: PathStep[]): Event[] {
  const events: Event[] = []
  for (const step of path) if (step.via) events.push(step.via)
  return events
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
          if (options.progress && size % 100_000 === 0) options.progress(size, d + 1, (performance.now() - started) / 1000)
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
