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
import { checkCluster } from "../../src/core/checker"
import { algorithmName } from "../../src/core/frame"
import { descriptorOf } from "../../src/core/algorithms"
import { indexOfSorted, NO_NODE, Role, roleName } from "../../src/core/node"
import {
  applyEvent,
  cloneState,
  clocked,
  continueFaultFree,
  type Detection,
  detectionOf,
  enabledEvents,
  isDue,
  stepNode,
  type Event,
  EventType,
  inexactTexts,
  initialState,
  maxEpoch,
  type ModelConfig,
  processViews,
  setFrameDescriber,
  type State,
  stateKey,
  type StepRecord,
} from "./model"
import { IntList, StateSet } from "./key"

setFrameDescriber(describeFrame)

/** Heartbeat rounds the fault-free continuation may use to reconcile two coordinators. */
export const HEARTBEAT_ROUNDS = 3

export const PROPERTIES = ["eventual-agreement", "unique-coordinator", "valid-coordinator"] as const
export type Property = (typeof PROPERTIES)[number]

export interface SearchOptions extends ModelConfig {
  properties: Property[]
  /** Breadth first: most events on a shortest path; deeper states are not expanded (a lower limit than the default searches breadth first). */
  maxDepth: number
  /** States with a higher epoch are not expanded. */
  maxEpoch: number
  /** Stop after this many states (a guard for the machine's memory). */
  maxStates: number
  /** Steps the fault-free continuation may take before it counts as never settling. */
  continuationSteps: number
  /** Keep searching after the first violation (one counterexample per property). */
  all?: boolean
  /** Ideal model: the partial-order reduction (on unless false). */
  reduce?: boolean
  /** breadth: breadth first only (else depth first, breadth first when a violation or the depth limit is met). */
  order?: "depth" | "breadth"
  /** Called with each state visited (tests compare searches by it). */
  visit?: (s: State) => void
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
  /** depth: the depth-first search found no violation; breadth: the breadth-first one decided. */
  order: "depth" | "breadth"
  /** Why the search is not complete (empty when it is). */
  limits: string[]
  seconds: number
  statesPerSecond: number
  /** Peak memory the search used (heap and typed arrays, sampled every 10,000 states) over the states visited. */
  bytesPerState: number
  violations: Violation[]
}

/** The default depth limit (breadth first's layers). */
export const DEFAULT_MAX_DEPTH = 200

export function defaultOptions(config: ModelConfig, properties: Property[]): SearchOptions {
  return { ...config, properties, maxDepth: DEFAULT_MAX_DEPTH, maxEpoch: 12, maxStates: 10_000_000, continuationSteps: 2000 }
}

/** The first broken clause of `property` in state `s`, or "". */
function judge(s: State, property: Property, options: SearchOptions): string {
  if (property === "unique-coordinator") {
    const v = checkCluster(processViews(s)).violations.find((x) => x.startsWith("more than one coordinator"))
    return v ?? ""
  }
  if (property === "valid-coordinator") {
    if (s.errors.length > 0) return s.errors[0]
    return checkCluster(processViews(s)).violations.find((x) => x.includes("follows non-member")) ?? ""
  }
  const c = cloneState(s)
  const steps = continueFaultFree(c, options.continuationSteps, HEARTBEAT_ROUNDS)
  if (steps < 0) return `the fault-free continuation finds no quiet state in ${options.continuationSteps} steps`
  const verdict = checkCluster(processViews(c))
  if (verdict.violations.length === 0) return ""
  return `after the fault-free continuation (${steps} steps): ${verdict.violations.join("; ")}`
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
  // depth first only where it is known to match: the ideal model with timed detection (with
  // any-time detection and in the other models the tests found it wander or differ)
  const depthFirstFits = options.timing === "ideal" && detectionOf(options) === "timed"
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

/**
 * Depth first over the same states and transitions as breadthFirst (which successors a
 * state has depends on the state alone, reduction included); null when it met a violation
 * (breadth first finds its shortest trace).
 */
function depthFirst(options: SearchOptions): SearchResult | null {
  const started = performance.now()
  const inexactBefore = inexactTexts
  const root = initialState(options)
  const visited = new StateSet()
  const key = new Uint32Array(2)
  const memory = new MemoryGauge()
  const limits = new Set<string>()
  const reduce = options.timing === "ideal" && options.reduce !== false
  const judgesRoles = options.properties.includes("unique-coordinator")
  let transitions = 0
  let depth = 0
  const violated = (s: State) => options.properties.some((p) => judge(s, p, options) !== "")
  interface Step {
    s: State
    tried: Event[]
    waiting: Event[]
    stepper: number
    visible: boolean
    next: number
  }
  const expand = (s: State): Step | null => {
    if (maxEpoch(s) > options.maxEpoch) {
      limits.add(`epoch cap ${options.maxEpoch}`)
      return null
    }
    const enabled = enabledEvents(s, options)
    const stepper = reduce ? chooseStepper(s, enabled) : -1
    const tried: Event[] = []
    const waiting: Event[] = []
    for (const e of enabled) {
      const n = stepNode(s, e)
      if (n >= 0 && stepper >= 0 && n !== stepper) waiting.push(e)
      else tried.push(e)
    }
    return { s, tried, waiting, stepper, visible: false, next: 0 }
  }

  for (let i = 0; i < root.owned.length; i++) root.owned[i] = false
  stateKey(root, options.timing, key)
  visited.add(key[0], key[1])
  if (options.visit) options.visit(root)
  if (violated(root)) return null
  const stack: Step[] = []
  const first = expand(root)
  if (first) stack.push(first)
  let full = false
  while (stack.length > 0 && !full) {
    const f = stack[stack.length - 1]
    if (f.next >= f.tried.length) {
      stack.pop()
      continue
    }
    const e = f.tried[f.next++]
    transitions++
    const t = cloneState(f.s)
    applyEvent(t, e, options, false)
    if (f.stepper >= 0 && !f.visible && stepNode(f.s, e) === f.stepper && changesWhatIsJudged(f.s, t, f.stepper, judgesRoles)) {
      f.visible = true
      for (const w of f.waiting) f.tried.push(w)
    }
    stateKey(t, options.timing, key)
    if (visited.has(key[0], key[1])) continue
    if (visited.size >= options.maxStates) {
      limits.add(`state limit ${options.maxStates}`)
      full = true
      break
    }
    visited.add(key[0], key[1])
    if (options.visit) options.visit(t)
    if (stack.length > depth) depth = stack.length
    if (visited.size % 10_000 === 0) {
      memory.sample()
      if (options.progress && visited.size % 100_000 === 0) options.progress(visited.size, depth, (performance.now() - started) / 1000)
    }
    if (violated(t)) return null
    for (let i = 0; i < t.owned.length; i++) t.owned[i] = false
    const next = expand(t)
    if (next) stack.push(next)
  }
  if (inexactTexts !== inexactBefore) limits.add("a seen buffer half full (its abstraction may not be exact)")
  memory.sample()
  const seconds = (performance.now() - started) / 1000
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
    states: visited.size,
    transitions,
    depth,
    complete: limits.size === 0,
    reduced: reduce,
    order: "depth",
    limits: [...limits],
    seconds: Math.round(seconds * 1000) / 1000,
    statesPerSecond: Math.round(visited.size / Math.max(seconds, 1e-3)),
    bytesPerState: Math.round(memory.peak / visited.size),
    violations: [],
  }
}

function breadthFirst(options: SearchOptions): SearchResult {
  const started = performance.now()
  const inexactBefore = inexactTexts
  const root = initialState(options)
  const visited = new StateSet()
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
        if (visited.size >= options.maxStates) {
          limits.add(`state limit ${options.maxStates}`)
          break
        }
        visited.add(key[0], key[1])
        if (options.visit) options.visit(t)
        if (visited.size % 10_000 === 0) {
          memory.sample()
          if (options.progress && visited.size % 100_000 === 0) options.progress(visited.size, d + 1, (performance.now() - started) / 1000)
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
    algorithm: algorithmName(options.algorithm),
    nodes: options.nodes,
    timing: options.timing,
    detection: detectionOf(options),
    crashes: options.crashes,
    recoveries: options.recoveries,
    losses: options.losses,
    duplicates: options.duplicates,
    properties: options.properties,
    states: visited.size,
    transitions,
    depth,
    complete: limits.size === 0 && !stop,
    reduced: reduce,
    order: "breadth",
    limits: [...limits],
    seconds: Math.round(seconds * 1000) / 1000,
    statesPerSecond: Math.round(visited.size / Math.max(seconds, 1e-3)),
    bytesPerState: Math.round(memory.peak / visited.size),
    violations,
  }
}

/**
 * The lowest node with a step due (a delivery or a timer), when another node has an event
 * of its own that may wait; else -1 (no reduction: at the end of an instant everything is
 * tried, time included).
 */
function chooseStepper(s: State, enabled: Event[]): number {
  let lowest = -1
  for (const e of enabled) {
    const n = stepNode(s, e)
    if (n >= 0 && isDue(e) && (lowest < 0 || n < lowest)) lowest = n
  }
  if (lowest < 0) return -1
  for (const e of enabled) {
    const n = stepNode(s, e)
    if (n >= 0 && n !== lowest) return lowest
  }
  return -1
}

/**
 * True when node i's step from s to t changed what a checked property reads of a single
 * state: an error; following a non-member (valid-coordinator); taking or leaving the
 * coordinator role (unique-coordinator). Eventual agreement reads no single state: a state
 * the reduction skips finishes its instant into one it visits.
 */
function changesWhatIsJudged(s: State, t: State, i: number, roles: boolean): boolean {
  if (t.errors.length !== s.errors.length) return true
  const before = s.nodes[i]
  const after = t.nodes[i]
  if (roles && (before.crashed !== after.crashed || (before.role === Role.Coordinator) !== (after.role === Role.Coordinator))) return true
  return after.coordinator !== before.coordinator && after.coordinator !== NO_NODE && indexOfSorted(after.ids, after.coordinator) < 0
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
  // a recovered process takes over at once, before the old coordinator hears of it; a lost
  // answer, like a slow one under arbitrary delays, looks like a crash; an algorithm that
  // needs links in order (active-list-ring's concurrent elections) gets none from the
  // bounded model (the search found two coordinators there)
  const reorders = config.timing === "bounded" && descriptorOf(config.algorithm).needsFifoLinks
  if (clocked(config.timing) && config.recoveries === 0 && config.losses === 0 && !reorders) promised.push("unique-coordinator")
  return promised
}
