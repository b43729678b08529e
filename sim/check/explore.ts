// The depth-first exploration that one thread of the search runs (search.ts runs it on the
// main thread, search-worker.ts on each helper): a stack of the states on the current path,
// each expanded once by the thread that first put its key into the visited set. With a
// shared set every state is expanded by exactly one thread, so the threads together visit
// every reachable state however they interleave; each takes the successors in its own order
// so that they part ways at once.

import { checkCluster } from "../../src/core/checker"
import { indexOfSorted, NO_NODE, Role } from "../../src/core/contract"
import { fencedOut } from "./fence"
import { expandInstant, idealContinuationAgrees, type InstantExpansion, inexactRuns, instantApplies, type InstantRules } from "./instant"
import {
  applyEvent,
  cloneState,
  ContinuationMemo,
  continueFaultFree,
  continueIdeal,
  idealContinuationApplies,
  hasDueStep,
  type Event,
  enabledEvents,
  EventType,
  inexactTexts,
  initialState,
  isDue,
  maxEpoch,
  type ModelConfig,
  processViews,
  type State,
  stateKey,
  stepNode,
} from "./model"

/** The limit a search meets when its table is full within the memory budget. */
export const MEMORY_LIMIT = "the key table full within its memory budget (--memory)"
/** The limit a search stopped by Ctrl-C reports. */
export const INTERRUPTED = "interrupted (Ctrl-C)"

/** Heartbeat rounds the fault-free continuation may use to reconcile two coordinators. */
export const HEARTBEAT_ROUNDS = 3

export const PROPERTIES = ["eventual-agreement", "unique-coordinator", "valid-coordinator", "fenced"] as const
export type Property = (typeof PROPERTIES)[number]

/** What a thread of the search needs to know (plain data: it crosses to the helpers). */
export interface ExploreOptions extends ModelConfig {
  properties: Property[]
  /** States with a higher epoch are not expanded. */
  maxEpoch: number
  /** Stop after this many states (a guard for the machine's memory). */
  maxStates: number
  /** Steps the fault-free continuation may take before it counts as never settling. */
  continuationSteps: number
  /** Ideal model: the partial-order reduction (on unless false). */
  reduce?: boolean
  /** Ideal model, depth first: each instant node by node where it applies (instant.ts; on unless false or without the reduction). */
  instants?: boolean
}

/**
 * The first broken clause of `property` in state `s`, or "". `full` false: only what the
 * state itself shows (the caller judges its fault-free continuation through a successor).
 */
export function judge(s: State, property: Property, options: ExploreOptions, full = true, key: Uint32Array | null = null): string {
  if (property === "fenced") {
    if (!s.fence) throw new Error("the fenced property needs the model's tokens (ModelConfig.tokens)")
    if (s.fence.broken) return s.fence.broken
    if (!full) return ""
    const c = cloneState(s)
    // every message before any timer, in every model: the schedule that finds a follower
    // fenced off its coordinator with raw tokens; one that does not settle is eventual
    // agreement's to report
    if (continueFaultFree(c, options.continuationSteps, HEARTBEAT_ROUNDS, options.timing === "ideal") < 0 || checkCluster(processViews(c)).violations.length > 0) return ""
    const out = c.fence!.broken || fencedOut(c.fence!, c.nodes)
    return out ? `after the fault-free continuation: ${out}` : ""
  }
  if (property === "unique-coordinator") {
    const v = checkCluster(processViews(s)).violations.find((x) => x.startsWith("more than one coordinator"))
    return v ?? ""
  }
  if (property === "valid-coordinator") {
    if (s.errors.length > 0) return s.errors[0]
    return checkCluster(processViews(s)).violations.find((x) => x.includes("follows non-member")) ?? ""
  }
  const ideal = idealContinuationApplies(s, options)
  if (ideal && idealContinuationAgrees(s, options.continuationSteps, HEARTBEAT_ROUNDS, continuationRules(options), memoFor(options), key)) return ""
  const c = cloneState(s)
  const steps = ideal ? continueIdeal(c, options.continuationSteps, HEARTBEAT_ROUNDS) : continueFaultFree(c, options.continuationSteps, HEARTBEAT_ROUNDS, options.timing === "ideal")
  if (steps < 0) return `the fault-free continuation finds no ${s.nodes[0].timing.heartbeatInterval > 0 ? "settled" : "quiet"} state in ${options.continuationSteps} steps`
  const verdict = checkCluster(processViews(c))
  if (verdict.violations.length === 0) return ""
  return `after the fault-free continuation (${steps} steps): ${verdict.violations.join("; ")}`
}

/**
 * The lowest node with a step due (a delivery or a timer), when another node has an event
 * of its own that may wait; else -1 (no reduction: at the end of an instant everything is
 * tried, time included).
 */
export function chooseStepper(s: State, enabled: Event[]): number {
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
export function changesWhatIsJudged(s: State, t: State, i: number, roles: boolean): boolean {
  if (t.errors.length !== s.errors.length) return true
  const before = s.nodes[i]
  const after = t.nodes[i]
  if (roles && (before.crashed !== after.crashed || (before.role === Role.Coordinator) !== (after.role === Role.Coordinator))) return true
  return after.coordinator !== before.coordinator && after.coordinator !== NO_NODE && indexOfSorted(after.ids, after.coordinator) < 0
}

/** Where a thread records the keys it visited: its own set, or the table all threads share. */
export interface Visited {
  /** Adds the key; false when it was there already. */
  add(lo: number, hi: number): boolean
  /** States visited so far, by every thread. */
  size(): number
  /** True when the table is full within its memory budget (the search stops). */
  full(): boolean
}

/** A state on the current path, with the successors still to try. */
export interface PathStep {
  s: State
  tried: Event[]
  waiting: Event[]
  stepper: number
  /** A step of the stepper changed what is judged: the waiting steps are tried too. */
  visible: boolean
  next: number
  /** The event that led here from the step below (null at the root). */
  via: Event | null
  /** The instant taken node by node: the runs of its lowest node with a step due lead to the successors (tried and waiting are empty). */
  instant: InstantExpansion | null
  /** Losses whose states are judged, not kept (expand). */
  judgedOnly: Event[]
}

export interface ExploreHooks {
  /** Take each state's successors last first (a second thread's order). */
  reverse: boolean
  /**
   * True when the search should end now (another thread met a violation or a limit). Called
   * at the top of the loop, where every state this thread put in the table is expanded or
   * on `stack`: the place to take a checkpoint.
   */
  stopped(stack: PathStep[]): boolean
  /** A new state was visited (not yet expanded); the stack is the path to it. */
  visited(s: State, path: PathStep[]): void
  /** A state was judged without being kept (a loss at the end of an instant). */
  judged?(s: State): void
}

export interface ExploreResult {
  transitions: number
  /** The longest path followed. */
  depth: number
  limits: Set<string>
  /** A state broke a property (breadth first finds the shortest trace). */
  violated: boolean
  /** States whose key left out remembered seqs while a buffer was half full. */
  inexact: number
}

/** `full` false: eventual agreement and the continuation's part of fenced are judged through a successor. */
export function violatesAny(s: State, options: ExploreOptions, full = true, key: Uint32Array | null = null): boolean {
  for (const p of options.properties) {
    if (!full && p === "eventual-agreement") continue
    if (judge(s, p, options, full, key) !== "") return true
  }
  return false
}

/** The initial state, its key put in the visited set. */
export function visitRoot(options: ExploreOptions, visited: Visited, key: Uint32Array): State {
  const root = initialState(options)
  for (let i = 0; i < root.owned.length; i++) root.owned[i] = false
  stateKey(root, options.timing, key)
  visited.add(key[0], key[1])
  return root
}

/** The state's successors to try (null when the epoch cap stops it). */
export function expand(s: State, via: Event | null, options: ExploreOptions, limits: Set<string>, reverse: boolean): PathStep | null {
  if (maxEpoch(s) > options.maxEpoch) {
    limits.add(`epoch cap ${options.maxEpoch}`)
    return null
  }
  const reduce = options.timing === "ideal" && options.reduce !== false
  if (reduce && options.instants !== false) {
    const instant = expandInstant(s, instantRules(options), reverse)
    if (instant) return { s, tried: [], waiting: [], stepper: -1, visible: false, next: 0, via, instant, judgedOnly: [] }
  }
  const enabled = enabledEvents(s, options)
  const stepper = reduce ? chooseStepper(s, enabled) : -1
  const tried: Event[] = []
  const waiting: Event[] = []
  const judgedOnly: Event[] = []
  // at the end of an instant taken node by node, a loss is the loss at the start of the
  // next, which the receiver's runs take: its state is judged, not kept
  const lossesWait = reduce && options.instants !== false && !hasDueStep(s) && instantApplies(s, instantRules(options))
  for (const e of enabled) {
    const n = stepNode(s, e)
    if (lossesWait && e.type === EventType.Lose) judgedOnly.push(e)
    else if (n >= 0 && stepper >= 0 && n !== stepper) waiting.push(e)
    else tried.push(e)
  }
  if (reverse) {
    tried.reverse()
    waiting.reverse()
  }
  return { s, tried, waiting, stepper, visible: false, next: 0, via, instant: null, judgedOnly }
}

/** Each options' continuation memo (one per thread: each has its own module). */
const memos = new WeakMap<ExploreOptions, ContinuationMemo>()
export function memoFor(options: ExploreOptions): ContinuationMemo {
  let m = memos.get(options)
  if (!m) {
    m = new ContinuationMemo(21)
    memos.set(options, m)
  }
  return m
}

/** The rules the fault-free continuation's instants are composed by: no step is visible (the search's own where they are the same, so that they share its runs). */
function continuationRules(options: ExploreOptions): InstantRules {
  const r = instantRules(options)
  if (!r.roles) return r
  let c = continuationRulesOf.get(options)
  if (!c) {
    c = { config: options, roles: false }
    continuationRulesOf.set(options, c)
  }
  return c
}
const continuationRulesOf = new WeakMap<ExploreOptions, InstantRules>()

/** The rules of the instant taken node by node for these options (one object per options: instant.ts keeps runs by it). */
const rulesOf = new WeakMap<ExploreOptions, InstantRules>()
function instantRules(options: ExploreOptions): InstantRules {
  let r = rulesOf.get(options)
  if (!r) {
    r = { config: options, roles: options.properties.includes("unique-coordinator") }
    rulesOf.set(options, r)
  }
  return r
}

/**
 * Judges the state `e` leads to from s, and the states further losses lead to (each loss
 * at the end of an instant waits for the next, which takes it); true on a violation.
 */
function judgeLoss(s: State, e: Event, options: ExploreOptions, hooks: ExploreHooks, count: () => void): boolean {
  const t = cloneState(s)
  applyEvent(t, e, options, false)
  count()
  if (hooks.judged) hooks.judged(t)
  if (violatesAny(t, options, true)) return true
  if (t.losses >= options.losses) return false
  for (const f of enabledEvents(t, options)) if (f.type === EventType.Lose && f.a >= e.a && judgeLoss(t, f, options, hooks, count)) return true
  return false
}

/** The limits that stop a search before it is complete (others, like the epoch cap, only prune). */
export function stopsSearch(limit: string): boolean {
  return limit.startsWith("state limit") || limit.startsWith("time limit") || limit === MEMORY_LIMIT || limit === INTERRUPTED
}

/** The events from the root along a path. */
export function pathEvents(path: PathStep[]): Event[] {
  const events: Event[] = []
  for (const step of path) if (step.via) events.push(step.via)
  return events
}

/**
 * How much of the tree below the path's first step lies behind it, by the place of each
 * step among its siblings in the thread's own order (0 to 1). A guess: subtrees differ in
 * size, and states met before are not counted.
 */
export function pathShare(path: PathStep[]): number {
  let share = 0
  let weight = 1
  for (const step of path) {
    const [taken, count] = step.instant ? step.instant.position() : [step.next, step.tried.length]
    if (count === 0) break
    share += (weight * Math.max(0, taken - 1)) / count
    weight /= count
  }
  return Math.min(1, share)
}

/** Rebuilds the path a thread handed over (its events from the root), each step to be expanded again. */
export function replayPath(options: ExploreOptions, vias: Event[], limits: Set<string>, reverse: boolean): PathStep[] {
  const stack: PathStep[] = []
  let s = initialState(options)
  for (let i = 0; i < s.owned.length; i++) s.owned[i] = false
  let step = expand(s, null, options, limits, reverse)
  if (step) stack.push(step)
  for (const e of vias) {
    const t = cloneState(s)
    applyEvent(t, e, options, false)
    for (let i = 0; i < t.owned.length; i++) t.owned[i] = false
    step = expand(t, e, options, limits, reverse)
    if (step) stack.push(step)
    s = t
  }
  return stack
}

/** Depth first from the path on `stack` until it is empty, a violation, a limit or a stop. */
export function explore(options: ExploreOptions, visited: Visited, stack: PathStep[], hooks: ExploreHooks): ExploreResult {
  const inexactBefore = inexactTexts
  const runsBefore = inexactRuns
  const key = new Uint32Array(2)
  const limits = new Set<string>()
  const judgesRoles = options.properties.includes("unique-coordinator")
  const ideal = options.timing === "ideal"
  let transitions = 0
  let depth = 0
  let violated = false
  while (stack.length > 0) {
    const f = stack[stack.length - 1]
    let t: State
    let e: Event
    if (f.judgedOnly.length > 0) {
      if (hooks.stopped(stack)) break
      if (judgeLoss(f.s, f.judgedOnly.pop()!, options, hooks, () => transitions++)) {
        violated = true
        break
      }
      continue
    }
    if (f.instant) {
      if (hooks.stopped(stack)) break
      const end = f.instant.next()
      if (!end) {
        stack.pop()
        continue
      }
      t = end.state
      e = end.via
    } else {
      if (f.next >= f.tried.length) {
        stack.pop()
        continue
      }
      if (hooks.stopped(stack)) break
      e = f.tried[f.next++]
      t = cloneState(f.s)
      applyEvent(t, e, options, false)
      if (f.stepper >= 0 && !f.visible && stepNode(f.s, e) === f.stepper && changesWhatIsJudged(f.s, t, f.stepper, judgesRoles)) {
        f.visible = true
        for (const w of f.waiting) f.tried.push(w)
      }
    }
    transitions++
    const exact = stateKey(t, options.timing, key)
    if (visited.size() >= options.maxStates) {
      limits.add(`state limit ${options.maxStates}`)
      break
    }
    if (visited.full()) {
      limits.add(MEMORY_LIMIT)
      break
    }
    if (!visited.add(key[0], key[1])) continue
    if (stack.length > depth) depth = stack.length
    hooks.visited(t, stack)
    for (let i = 0; i < t.owned.length; i++) t.owned[i] = false
    const next = expand(t, e, options, limits, hooks.reverse)
    // the continuation first finishes the instant: a state with a step due has the verdict
    // of the end it comes to, which the search visits (the reduction keeps every end)
    const full = !ideal || !hasDueStep(t)
    if (violatesAny(t, options, full, exact ? key : null)) {
      violated = true
      break
    }
    if (next) stack.push(next)
  }
  return { transitions, depth, limits, violated, inexact: inexactTexts - inexactBefore + inexactRuns - runsBefore }
}
