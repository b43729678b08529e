// The state model of `electlab check`: a small cluster of the real core's nodes, the
// messages in flight and the armed timers, with the events that may happen next under a
// timing model. A state is cloned by its nodes' own fields (no hook in the core) and
// hashed on a canonical text of them, times taken relative to the clock.
//
// Timing models (see docs/algorithms.md, "Exhaustive check"):
// - arbitrary: any message in flight may be delivered next; a node's timers fire in the
//   order of its own clock (the armed timer due first, ties in any order), and the clocks
//   of different nodes are unrelated. A message is handled at its receiver's clock.
// - bounded: one clock; a message is delivered at most DELAY_BOUND after it was sent; a
//   timer fires exactly when due; events due at the same instant happen in any order;
//   time moves on only when nothing is due.
// - ideal: the ideal network's timing (every message takes exactly DELAY_BOUND) with the
//   order left open: everything due at the same instant happens in any order, except that
//   each link (sender to receiver) keeps its order, as the bus (one wire) and the broker (a
//   publisher's messages in turn) do. A message sent at an instant is never handled in it,
//   so what a node has to handle at an instant is fixed when the instant begins: the nodes
//   are independent within it, which the search's reduction uses (search.ts).
// Environment: at most K crashes (any live node, any time), K recoveries, L losses and
// D duplications of a message in flight; a live follower whose coordinator is crashed
// notices it ("detect"): `timed` (the ideal model's default), exactly DETECT_DELAY after it
// began to follow an absent one, as a fixed timeout on heartbeats that all come on time
// would; `any`, at any point (a perfect failure detector, the other models' default). The
// fault-free continuation also lets a follower of a live process that does not lead
// notice it, once nothing else is pending (a failure timeout longer than any election).
// `heartbeats`: no detect events; the nodes run their own failure detector (heartbeats
// every 10 ticks, the fixed 25-tick timeout of the ideal profile), and with it the
// handover a recovered or contesting process uses to take the role (handover.ts). Heartbeats
// are messages like any other: they may be lost, and they interleave with the election.

import { createCluster, descriptorOf, labelsOf } from "../../src/core/algorithms"
import { AckLink } from "../../src/core/ack-link"
import { defaultTiming, idealTiming } from "../../src/core/timing"
import { firstSeqs, frameTextNamed, keyedSeq, keyFrame, keyRingField, ringFieldText, type TextContext, textContext } from "./abstraction"
import { cloneFenceState, type FenceState, fenceText, keyFence, maxTokenEpoch, newFenceState, settleTokens, type TokenRule } from "./fence"
import { keyEnd, keyNumber, keyStart, keyString, keyWord, TAG_ARRAY, TAG_END, TAG_FALSE, TAG_FLOAT, TAG_NONE, TAG_NULL, TAG_OBJECT, TAG_STRING, TAG_TRUE } from "./key"
import { fieldOf, fieldsOf } from "./fields"
import { hintsOf } from "./hints"
import { checkCluster, type ProcessView, viewOf } from "../../src/core/checker"
import { BROADCAST, type Frame, Kind, makeFrame } from "../../src/core/frame"
import {
  type Action,
  ActionType,
  indexOfSorted,
  MAX_TIMERS,
  NO_NODE,
  Role,
  type Timing,
} from "../../src/core/contract"
import type { ElectionNode } from "../../src/core/node"
import { timerName } from "../../src/core/trace"
import { stepBefore, stepProblems } from "../../src/core/self-check"

export const TIMING_MODELS = ["arbitrary", "bounded", "ideal"] as const
export type TimingModel = (typeof TIMING_MODELS)[number]

/** When a follower notices that its coordinator crashed: when its detector times out, or at any point. */
export const DETECTIONS = ["timed", "any", "heartbeats"] as const
export type Detection = (typeof DETECTIONS)[number]

/** Bounded model: most time a message spends in flight; ideal model: the time it spends (the ideal network's one tick). */
export const DELAY_BOUND = 1
/** The cluster's seed, as `electlab sim --seed` takes it: decides each node's jitter stream like the engine. */
export const CHECK_SEED = 1
export const CHECK_GROUP = 1

export interface ModelConfig {
  algorithm: number
  nodes: number
  timing: TimingModel
  crashes: number
  recoveries: number
  losses: number
  duplicates: number
  /** Default: timed in the ideal model, any in the others (timed and heartbeats need one clock). */
  detection?: Detection
  /** Keep fencing tokens beside the nodes (the `fenced` property; fence.ts): the API's, or the election's raw (epoch, id). */
  tokens?: TokenRule
}

export function detectionOf(config: ModelConfig): Detection {
  return config.detection ?? (config.timing === "ideal" ? "timed" : "any")
}

/** True for the models with one clock that only moves when nothing is due. */
export function clocked(timing: TimingModel): boolean {
  return timing !== "arbitrary"
}

export interface Message {
  /** Index of the destination. */
  dst: number
  frame: Frame
  /** Sender's clock when sent (bounded model: the one clock). */
  sent: number
  /** Creation number, for traces only (not hashed). */
  uid: number
}

export interface State {
  nodes: ElectionNode[]
  /** Per node clock; in the bounded model all equal. */
  clocks: number[]
  /** deadlines[i * MAX_TIMERS + t]: when node i's timer t is due, or -1. */
  deadlines: number[]
  /** In canonical order (sorted by their text). */
  messages: Message[]
  crashes: number
  recoveries: number
  losses: number
  duplicates: number
  /** Exceptions thrown by nodes, and transient clause breaks seen while applying actions. */
  errors: string[]
  nextUid: number
  /** owned[i]: node i is this state's own copy (changed in place); else shared, copied before a change. */
  owned: boolean[]
  /** The first seq each ring node gives (abstraction.ts); shared, never changed. */
  firstSeq: number[]
  /** Timed detection: since when node i is a live follower of an absent coordinator, or -1. */
  absentSince: number[]
  /** The election API's fencing tokens (fence.ts), or null when the search does not judge them. */
  fence: FenceState | null
}

export enum EventType {
  Deliver = 1,
  Fire = 2,
  Crash = 3,
  Recover = 4,
  Detect = 5,
  Lose = 6,
  Duplicate = 7,
  Tick = 8,
  /** The rest of an instant, node by node (instant.ts): `steps`, one node's run after another. */
  Instant = 9,
}

/** One step. `a`: message position or node index; `b`: timer id. */
export interface Event {
  type: EventType
  a: number
  b: number
  /** Instant: its steps, each naming its message by link and place (positions differ between states). */
  steps?: RunStep[]
}

/**
 * A step of one node's run within an instant (instant.ts): a delivery or loss names its
 * message by receiver, sender id and place on that link; a timer by node and id; a crash
 * or recovery by node.
 */
export interface RunStep {
  type: EventType
  node: number
  src: number
  ord: number
  timer: number
}

/** What applying one event did, for traces and the scenario writer. */
export interface StepRecord {
  event: Event
  /** Text of the step, e.g. "deliver ELECTION 1->3". */
  text: string
  /** The acting node's clock when it acted (bounded: the one clock). */
  time: number
  /** uid of the message delivered, lost or duplicated; -1 otherwise. */
  uid: number
  /** uid of a duplicate's new copy; -1 otherwise. */
  copyUid: number
  /** Messages created: uid each. */
  sent: number[]
  /** Timers set (delay) and armed timers cancelled (delay -1) by this step, in order. */
  timerOps: { node: number; timer: number; delay: number }[]
}

// The core's node fields the search treats specially, each list read from a typed accessor
// (fields.ts): a field renamed in the core is renamed here or breaks the build, instead of
// silently changing what the search hashes. Here the fields every node has; an algorithm's
// own come from its module's hints (hints.ts).

/**
 * Fields of a class a node holds that hold deadlines: hashed relative to the node's clock,
 * a deadline already reached as 0 (an acknowledged link only asks whether one has come).
 */
const ACK_LINK_TIMES = fieldsOf<AckLink>((l) => [l.deadlines])
/** Fields of a node that never change after construction, or that only count (not state). */
const NODE_SKIPPED = fieldsOf<ElectionNode>((n) => [
  n.id,
  n.ids,
  n.index,
  n.ringOrder,
  n.group,
  n.timing,
  n.algorithm,
  n.ignored,
  // the fixed detector (the only one the check runs) holds its timeout and nothing else
  n.detector,
  // numbers heartbeats for the adaptive detector only (frames' heartbeat seqs: abstraction.ts)
  n.heartbeatSeq,
  // the time of the event being handled, set on every entry: not state between events
  n.clock,
  // set on every frame before it is read (node.ts receive, fencing)
  n.epochBeforeFrame,
])
/**
 * When the coordinator was last heard: read only by the heartbeat watch. Without heartbeats
 * left out; with them hashed as its age, capped at the failure timeout (older is as old:
 * the watch suspects at once, and a claim sees no sitting coordinator).
 */
const NODE_HEARD = fieldsOf<ElectionNode>((n) => [n.lastHeardFromCoordinator, n.leadHeardAt])
/** Times a timer waits until: hashed as the time left, 0 once past (past is past). */
const NODE_UNTIL = fieldsOf<ElectionNode>((n) => [n.claimedUntil, n.claimUntil])
/** Counters that the code only compares below a bound: hashed capped (the deadline's backoff). */
const NODE_CAPPED: Record<string, number> = { [fieldOf<ElectionNode>((n) => n.restarts)]: 2 }
/** Fields every node of a cluster shares: a clone keeps the original's. */
const NODE_SHARED = fieldsOf<ElectionNode>((n) => [n.ids, n.ringOrder, n.timing])

const HEARD_FIELDS = new Set<string>(NODE_HEARD)
const UNTIL_FIELDS = new Set<string>(NODE_UNTIL)

/** The fields one algorithm's nodes have treated apart: every node's and its own hints'. */
interface FieldSets {
  skipped: Set<string>
  /** Fields a clone keeps the original's of. */
  shared: Set<string>
  /** Times only ever compared for equality with a later event's time: hashed as now or past (or none). */
  instants: Set<string>
  capped: Record<string, number>
  /**
   * Since when a process believes each process down: read only with heartbeats on (a ring
   * process probes one again a round trip R after it marked it down, ring-base.ts
   * believedDown). Without heartbeats left out; with them hashed per process as the age of
   * a down mark, capped (the ring: at R; older is as old), nothing for a process not marked.
   */
  downSince: Set<string>
  /** Times hashed as their age capped, with heartbeats only (CheckHints.aged). */
  aged: Set<string>
  /** Fields the ring abstraction writes (abstraction.ts). */
  rewritten: Set<string>
}
const fieldSetsByAlgorithm: FieldSets[] = []

function fieldSetsOf(node: ElectionNode): FieldSets {
  let f = fieldSetsByAlgorithm[node.algorithm]
  if (f) return f
  const h = hintsOf(node.algorithm)
  f = {
    skipped: new Set<string>([...NODE_SKIPPED, ...h.skipped]),
    shared: new Set<string>([...NODE_SHARED, ...h.shared]),
    instants: new Set<string>(h.instants),
    capped: { ...NODE_CAPPED, ...h.capped },
    downSince: new Set<string>(h.downSince.slice(0, 1)),
    aged: new Set<string>(h.aged),
    rewritten: new Set<string>(h.seqs),
  }
  fieldSetsByAlgorithm[node.algorithm] = f
  return f
}

/** A process's down marks' ages as hashed (FieldSets.downSince), or null: left out (heartbeats off). */
function downAges(node: ElectionNode, clock: number): number[] | null {
  const h = hintsOf(node.algorithm)
  if (node.timing.heartbeatInterval <= 0 || !h.downSinceOf || !h.downCap) return null
  const [since, down] = h.downSinceOf(node)
  const cap = h.downCap(node)
  return down.map((d, i) => (d ? Math.min(timeValue(clock - since[i]), cap) : -1))
}
/** A hinted time's age as hashed (FieldSets.aged): -1 for none; null: left out (heartbeats off). */
function agedAge(node: ElectionNode, v: number, clock: number): number | null {
  if (node.timing.heartbeatInterval <= 0) return null
  if (v < 0) return -1
  const cap = hintsOf(node.algorithm).ageCap!(node)
  const age = timeValue(clock - v)
  return age < cap ? age : cap
}

/** Time fields of the classes a node holds, by prototype (the ring's link has its own key, abstraction.ts). */
const NESTED_TIMES = new Map<object, Set<string>>([[AckLink.prototype, new Set<string>(ACK_LINK_TIMES)]])

/** The nodes' timing: the ideal profile's, with its failure detector only when the model runs heartbeats. */
export function checkTiming(detection: Detection = "timed"): Timing {
  return detection === "heartbeats" ? defaultTiming("ideal")! : idealTiming()
}

/** A heard-at time's age as hashed (NODE_HEARD); null: left out (heartbeats off). */
function heardAge(node: ElectionNode, v: number, clock: number): number | null {
  const t = node.timing
  if (t.heartbeatInterval <= 0) return null
  const age = timeValue(clock - v)
  return age < t.failureTimeout ? age : t.failureTimeout
}

/** An instant as hashed (INSTANT_FIELDS): 0 at the clock, 1 before it, -1 for none. */
function instantKey(v: number, clock: number): number {
  return v < 0 ? -1 : v === clock ? 0 : 1
}

/** A wait-until time as hashed (NODE_UNTIL): the time left, 0 once past. */
function timeLeft(v: number, clock: number): number {
  const left = timeValue(v - clock)
  return left > 0 ? left : 0
}

export function initialState(config: ModelConfig): State {
  const ids: number[] = []
  for (let i = 1; i <= config.nodes; i++) ids.push(i)
  const timing = checkTiming(detectionOf(config))
  const state: State = {
    nodes: [],
    clocks: [],
    deadlines: [],
    messages: [],
    crashes: 0,
    recoveries: 0,
    losses: 0,
    duplicates: 0,
    errors: [],
    nextUid: 0,
    owned: [],
    firstSeq: [],
    absentSince: [],
    fence: config.tokens ? newFenceState(config.nodes, config.tokens) : null,
  }
  // built as the engine builds them, seeds included, so that a written scenario replays the same draws
  for (const node of createCluster({ algorithm: config.algorithm, ids, group: CHECK_GROUP, timing, seed: CHECK_SEED }).nodes) {
    state.nodes.push(node)
    state.clocks.push(0)
    state.owned.push(true)
    state.absentSince.push(-1)
    for (let t = 0; t < MAX_TIMERS; t++) state.deadlines.push(-1)
  }
  state.firstSeq = firstSeqs(state.nodes)
  for (let i = 0; i < state.nodes.length; i++) {
    const out: Action[] = []
    const before = stepBefore(state.nodes[i])
    state.nodes[i].start(0, out)
    for (const problem of stepProblems(state.nodes[i], before, out, true)) state.errors.push(problem)
    applyActions(state, i, out, null)
  }
  if (detectionOf(config) === "timed") updateAbsence(state)
  if (state.fence) settleTokens(state.fence, state.nodes)
  return state
}

// ---- cloning ----

function cloneValue(v: unknown): unknown {
  if (v === null || typeof v !== "object") return v
  if (Array.isArray(v)) {
    // the hot case: an array of numbers or booleans, copied whole
    let flat = true
    for (let i = 0; i < v.length && flat; i++) flat = v[i] === null || typeof v[i] !== "object"
    if (flat) return v.slice(0)
    const a = new Array(v.length)
    for (let i = 0; i < v.length; i++) a[i] = cloneValue(v[i])
    return a
  }
  const src = v as Record<string, unknown>
  const proto = Object.getPrototypeOf(v) as object
  // a class's instances share their fields: its cloner; a plain object is copied by its keys
  if (proto !== Object.prototype && proto !== null) return clonerFor(src, false)(src, cloneValue)
  const copy = Object.create(proto) as Record<string, unknown>
  for (const k in src) copy[k] = cloneValue(src[k])
  return copy
}

type Cloner = (src: Record<string, unknown>, deep: (v: unknown) => unknown) => Record<string, unknown>
/** One cloner per class, made from its fields: copies them in one order (one shape), no lookups. */
const cloners = new Map<object, Cloner>()

function clonerFor(node: object, top: boolean): Cloner {
  const proto = Object.getPrototypeOf(node) as object
  let cloner = cloners.get(proto)
  if (cloner) return cloner
  const lines = ["const c = Object.create(proto)"]
  const shared = top ? fieldSetsOf(node as ElectionNode).shared : new Set<string>()
  for (const k of Object.keys(node)) {
    const f = JSON.stringify(k)
    if (top && shared.has(k)) lines.push(`c[${f}] = s[${f}]`)
    else lines.push(`{ const v = s[${f}]; c[${f}] = v === null || typeof v !== "object" ? v : deep(v) }`)
  }
  lines.push("return c")
  cloner = new Function("proto", `return (s, deep) => { ${lines.join("; ")} }`)(proto) as Cloner
  cloners.set(proto, cloner)
  return cloner
}

/** A node by its own fields; configuration that never changes is shared. */
export function cloneNode(node: ElectionNode): ElectionNode {
  return clonerFor(node, true)(node as unknown as Record<string, unknown>, cloneValue) as unknown as ElectionNode
}

export function cloneFrame(f: Frame): Frame {
  return { ...f, list: f.list.slice(0) }
}

/** Nodes are shared between states and copied when an event changes one (see invoke). */
export function cloneState(s: State): State {
  return {
    nodes: s.nodes.slice(0),
    clocks: s.clocks.slice(0),
    deadlines: s.deadlines.slice(0),
    // frames in flight are never changed (copied on the way in and out)
    messages: s.messages.slice(0),
    crashes: s.crashes,
    recoveries: s.recoveries,
    losses: s.losses,
    duplicates: s.duplicates,
    errors: s.errors.slice(0),
    nextUid: s.nextUid,
    owned: s.nodes.map(() => false),
    firstSeq: s.firstSeq,
    absentSince: s.absentSince.slice(0),
    fence: s.fence ? cloneFenceState(s.fence) : null,
  }
}

// ---- canonical text and hash ----

function timeText(t: number): string {
  return String(Math.round(t * 1e6) / 1e6)
}

function valueText(v: unknown, clock: number, isTime: boolean): string {
  if (v === null || v === undefined) return "_"
  if (typeof v === "number") return isTime ? (v < 0 ? "n" : timeText(Math.max(v - clock, 0))) : String(v)
  if (typeof v === "boolean") return v ? "t" : "f"
  if (typeof v === "string") return JSON.stringify(v)
  if (Array.isArray(v)) {
    let s = "["
    for (let i = 0; i < v.length; i++) s += (i ? "," : "") + valueText(v[i], clock, isTime)
    return s + "]"
  }
  const o = v as Record<string, unknown>
  const times = NESTED_TIMES.get(Object.getPrototypeOf(o) as object)
  let s = "{"
  for (const k of Object.keys(o)) s += k + ":" + valueText(o[k], clock, times !== undefined && times.has(k)) + ";"
  return s + "}"
}

/** A node's text at a clock; nodes are never changed once shared, so it is kept. */
const textCache = new WeakMap<ElectionNode, { clock: number; key: string; text: string }>()

export function nodeText(node: ElectionNode, clock: number, ctx: TextContext | null): string {
  const key = ctx ? ctx.key : ""
  const cached = textCache.get(node)
  if (cached && cached.clock === clock && cached.key === key) return cached.text
  const text = computeNodeText(node, clock, ctx)
  textCache.set(node, { clock, key, text })
  return text
}

function computeNodeText(node: ElectionNode, clock: number, ctx: TextContext | null): string {
  const o = node as unknown as Record<string, unknown>
  const f = fieldSetsOf(node)
  let s = ""
  for (const k of Object.keys(o)) {
    if (f.skipped.has(k)) continue
    const special = ringFieldText(node, k, clock, ctx)
    if (special !== null) {
      s += special + "|"
      continue
    }
    let v = o[k]
    if (HEARD_FIELDS.has(k)) {
      const age = heardAge(node, v as number, clock)
      if (age !== null) s += "h" + age + "|"
      continue
    }
    if (f.downSince.has(k)) {
      const ages = downAges(node, clock)
      if (ages !== null) s += "d" + ages.join(",") + "|"
      continue
    }
    if (f.aged.has(k)) {
      const age = agedAge(node, v as number, clock)
      if (age !== null) s += "a" + age + "|"
      continue
    }
    if (UNTIL_FIELDS.has(k)) {
      s += "u" + timeLeft(v as number, clock) + "|"
      continue
    }
    if (f.instants.has(k)) {
      s += "i" + instantKey(v as number, clock) + "|"
      continue
    }
    const cap = f.capped[k]
    if (cap !== undefined && typeof v === "number" && v > cap) v = cap
    s += valueText(v, clock, false) + "|"
  }
  return s
}

export function frameText(f: Frame): string {
  return `${f.kind},${f.epoch},${f.src},${f.dst},${f.initiator},${f.bid},${keyedSeq(f)},${f.list.join(".")}`
}

function messageText(m: Message, timing: TimingModel, now: number, ctx: TextContext | null = null): string {
  const base = m.dst + ":" + (ctx ? frameTextNamed(m.frame, ctx) : frameText(m.frame))
  return clocked(timing) ? base + "@" + timeText(m.sent - now) : base
}

/** Ideal model: by link, then in the order sent (a link's order is part of the state). */
export function linkOrder(x: Message, y: Message): number {
  return x.dst - y.dst || x.frame.src - y.frame.src || x.sent - y.sent || x.uid - y.uid
}

/** Puts the messages in canonical order (equal states list them alike). */
export function sortMessages(s: State, timing: TimingModel) {
  if (s.messages.length < 2) return
  if (timing === "ideal") {
    // nearly in order already (new messages come last): an insertion sort
    const ms = s.messages
    for (let i = 1; i < ms.length; i++) {
      const m = ms[i]
      let j = i - 1
      while (j >= 0 && linkOrder(ms[j], m) > 0) {
        ms[j + 1] = ms[j]
        j--
      }
      ms[j + 1] = m
    }
    return
  }
  const now = s.clocks[0]
  const keyed = s.messages.map((m) => ({ m, k: messageText(m, timing, now) }))
  keyed.sort((x, y) => (x.k < y.k ? -1 : x.k > y.k ? 1 : 0))
  s.messages = keyed.map((e) => e.m)
}

/** States whose text left out remembered seqs while a buffer was half full (abstraction.ts). */
export let inexactTexts = 0
/** Puts the count back (what a continuation keyed is not the search's). */
export function setInexactTexts(n: number) {
  inexactTexts = n
}

/** The canonical text of a state: equal texts, equal futures. */
export function stateText(s: State, timing: TimingModel): string {
  const ctx = textContext(s.nodes, s.firstSeq, s.messages)
  if (ctx && ctx.seenNearlyFull) inexactTexts++
  let text = `${s.crashes}${s.recoveries}${s.losses}${s.duplicates}${s.errors.length > 0 ? "E" : ""}#`
  for (let i = 0; i < s.nodes.length; i++) {
    const clock = s.clocks[i]
    text += nodeText(s.nodes[i], clock, ctx) + "T"
    for (let t = 0; t < MAX_TIMERS; t++) {
      const d = s.deadlines[i * MAX_TIMERS + t]
      if (d >= 0) text += t + "=" + timeText(d - clock) + ","
    }
    if (s.absentSince[i] >= 0) text += "A" + timeText(s.absentSince[i] - clock)
    text += "#"
  }
  if (s.fence) text += fenceText(s.fence)
  const now = s.clocks[0]
  if (timing === "ideal") for (const m of s.messages) text += messageText(m, timing, now, ctx) + "/"
  else text += s.messages.map((m) => messageText(m, timing, now, ctx)).sort().join("/")
  return text
}

// ---- the search's key: the canonical text's content as words (key.ts), no text built ----

function timeValue(t: number): number {
  return Math.round(t * 1e6) / 1e6
}

function keyValue(v: unknown, clock: number, isTime: boolean) {
  if (v === null || v === undefined) keyWord(TAG_NULL)
  else if (typeof v === "number") {
    if (!isTime) keyNumber(v)
    else if (v < 0) keyWord(TAG_NONE)
    else keyNumber(timeValue(Math.max(v - clock, 0)))
  } else if (typeof v === "boolean") keyWord(v ? TAG_TRUE : TAG_FALSE)
  else if (typeof v === "string") {
    keyWord(TAG_STRING)
    keyString(v)
  } else if (Array.isArray(v)) {
    keyWord(TAG_ARRAY)
    keyWord(v.length)
    for (let i = 0; i < v.length; i++) keyValue(v[i], clock, isTime)
  } else {
    // a class's fields come in one order: their count stands for their names
    const o = v as Record<string, unknown>
    const keys = Object.keys(o)
    const times = NESTED_TIMES.get(Object.getPrototypeOf(o) as object)
    keyWord(TAG_OBJECT)
    keyWord(keys.length)
    for (let i = 0; i < keys.length; i++) keyValue(o[keys[i]], clock, times !== undefined && times.has(keys[i]))
  }
}

/** How a node class's fields go into its key: by name once per class, then by position. */
interface FieldPlan {
  names: string[]
  /** 0 plain, 1 an instant, 2 capped at caps[i], 3 possibly written by the ring abstraction, 4 a heard-at time, 5 a wait-until time, 6 down marks' times. */
  kinds: number[]
  caps: number[]
}
const plans = new Map<object, FieldPlan>()

function planFor(node: ElectionNode): FieldPlan {
  const proto = Object.getPrototypeOf(node) as object
  let plan = plans.get(proto)
  if (plan) return plan
  plan = { names: [], kinds: [], caps: [] }
  const f = fieldSetsOf(node)
  for (const k of Object.keys(node)) {
    if (f.skipped.has(k)) continue
    plan.names.push(k)
    plan.kinds.push(
      f.downSince.has(k) ? 6 : f.instants.has(k) ? 1 : f.capped[k] !== undefined ? 2 : f.rewritten.has(k) ? 3 : HEARD_FIELDS.has(k) ? 4 : UNTIL_FIELDS.has(k) ? 5 : f.aged.has(k) ? 7 : 0,
    )
    plan.caps.push(f.capped[k] ?? 0)
  }
  plans.set(proto, plan)
  return plan
}

/** Writes a node's fields into the key being fed, in its plan's order. */
type KeyWriter = (node: ElectionNode, clock: number, ctx: TextContext | null) => void
const writers = new Map<object, KeyWriter>()

/**
 * One writer per class, made from its plan once: each field's code is chosen by its kind
 * and, for a plain field, by the type of its first value (a number, a boolean, an array of
 * them), with keyValue for anything else; it feeds the words keyValue would, without
 * asking each value's type in turn (the search spends much of its time here).
 */
function writerFor(node: ElectionNode): KeyWriter {
  const proto = Object.getPrototypeOf(node) as object
  let writer = writers.get(proto)
  if (writer) return writer
  const plan = planFor(node)
  const o = node as unknown as Record<string, unknown>
  const small = (x: string) => `typeof ${x} === "number" && (${x} | 0) === ${x} && ${x} < TAG_FLOAT`
  const plain = (x: string) => `if (${small(x)}) keyWord(${x}); else if (${x} === true) keyWord(TAG_TRUE); else if (${x} === false) keyWord(TAG_FALSE); else keyValue(${x}, clock, false)`
  const lines = plan.names.map((k, i) => {
    const name = JSON.stringify(k)
    const v = `node[${name}]`
    switch (plan.kinds[i]) {
      case 1:
        return `keyNumber(instantKey(${v}, clock)); keyWord(TAG_END)`
      case 2:
        return `{ let v = ${v}; if (typeof v === "number" && v > ${plan.caps[i]}) v = ${plan.caps[i]}; keyValue(v, clock, false); keyWord(TAG_END) }`
      case 3:
        return `if (!keyRingField(node, ${name}, clock, ctx)) { keyValue(${v}, clock, false); keyWord(TAG_END) }`
      case 4:
        return `{ const age = heardAge(node, ${v}, clock); if (age !== null) keyNumber(age); keyWord(TAG_END) }`
      case 5:
        return `keyNumber(timeLeft(${v}, clock)); keyWord(TAG_END)`
      case 6:
        return `{ const ages = downAges(node, clock); if (ages !== null) for (const a of ages) keyNumber(a); keyWord(TAG_END) }`
      case 7:
        return `{ const age = agedAge(node, ${v}, clock); if (age !== null) keyNumber(age); keyWord(TAG_END) }`
    }
    const first = o[k]
    if (Array.isArray(first))
      return `{ const v = ${v}; if (Array.isArray(v)) { keyWord(TAG_ARRAY); keyWord(v.length); for (let j = 0; j < v.length; j++) { const x = v[j]; ${plain("x")} } } else keyValue(v, clock, false); keyWord(TAG_END) }`
    if (typeof first === "number" || typeof first === "boolean") return `{ const v = ${v}; ${plain("v")}; keyWord(TAG_END) }`
    return `keyValue(${v}, clock, false); keyWord(TAG_END)`
  })
  const helpers = { keyWord, keyNumber, keyValue, keyRingField, heardAge, timeLeft, instantKey, downAges, agedAge, TAG_END, TAG_TRUE, TAG_FALSE, TAG_ARRAY, TAG_FLOAT }
  const names = Object.keys(helpers)
  writer = new Function(...names, `return (node, clock, ctx) => { ${lines.join("\n")} }`)(...Object.values(helpers)) as KeyWriter
  writers.set(proto, writer)
  return writer
}

/**
 * A key kept on the object it is of for the last two points it was made at (a node's clock,
 * a message's age) and contexts: a node or a message that a run of the instant leaves is
 * shared by many states, each keyed once where the instant ends and once more when the next
 * begins, and with one point kept the two evicted each other. The objects are never changed
 * once shared; a clone does not copy the key.
 */
interface TwoKeys {
  at: number
  ctx: string
  lo: number
  hi: number
  at2: number
  ctx2: string
  lo2: number
  hi2: number
}
const KEY_CACHE = Symbol("stateKey")
const MESSAGE_KEY = Symbol("messageKey")
/** Where nodeKey and messageKey put a key. */
const nodeKeyOut = new Uint32Array(2)

/** True when `cache` holds the key at `at` under `ctx`, then put in nodeKeyOut. */
function recall(cache: TwoKeys | undefined, at: number, ctx: string): boolean {
  if (!cache) return false
  if (cache.at === at && cache.ctx === ctx) {
    nodeKeyOut[0] = cache.lo
    nodeKeyOut[1] = cache.hi
    return true
  }
  if (cache.at2 === at && cache.ctx2 === ctx) {
    nodeKeyOut[0] = cache.lo2
    nodeKeyOut[1] = cache.hi2
    return true
  }
  return false
}

/** Keeps nodeKeyOut as the key at `at` under `ctx`, dropping the older of the two; the cache to store. */
function remember(cache: TwoKeys | undefined, at: number, ctx: string): TwoKeys {
  if (!cache) return { at, ctx, lo: nodeKeyOut[0], hi: nodeKeyOut[1], at2: NaN, ctx2: "", lo2: 0, hi2: 0 }
  cache.at2 = cache.at
  cache.ctx2 = cache.ctx
  cache.lo2 = cache.lo
  cache.hi2 = cache.hi
  cache.at = at
  cache.ctx = ctx
  cache.lo = nodeKeyOut[0]
  cache.hi = nodeKeyOut[1]
  return cache
}

/** A node's key at a clock, exactly (no ring abstraction), into out: what instant.ts keeps a node's runs by. */
export function exactNodeKey(node: ElectionNode, clock: number, out: Uint32Array) {
  nodeKey(node, clock, null)
  out[0] = nodeKeyOut[0]
  out[1] = nodeKeyOut[1]
}

/** A message's key in the ideal model, exactly, into out. */
export function exactMessageKey(m: Message, now: number, out: Uint32Array) {
  messageKey(m, true, now, null)
  out[0] = nodeKeyOut[0]
  out[1] = nodeKeyOut[1]
}

function nodeKey(node: ElectionNode, clock: number, ctx: TextContext | null) {
  const ctxKey = ctx ? ctx.key : ""
  const holder = node as unknown as { [KEY_CACHE]?: TwoKeys }
  const cached = holder[KEY_CACHE]
  if (recall(cached, clock, ctxKey)) return
  keyStart()
  writerFor(node)(node, clock, ctx)
  keyEnd(nodeKeyOut)
  holder[KEY_CACHE] = remember(cached, clock, ctxKey)
}

/** The message's key into nodeKeyOut: destination, frame and, with one clock, its age. */
function messageKey(m: Message, bounded: boolean, now: number, ctx: TextContext | null) {
  const age = bounded ? timeValue(m.sent - now) : 0
  const ctxKey = ctx ? ctx.key : ""
  const holder = m as Message & { [MESSAGE_KEY]?: TwoKeys }
  const cached = holder[MESSAGE_KEY]
  if (recall(cached, age, ctxKey)) return
  keyStart()
  keyWord(m.dst)
  keyFrame(m.frame, ctx)
  if (bounded) keyNumber(age)
  keyEnd(nodeKeyOut)
  holder[MESSAGE_KEY] = remember(cached, age, ctxKey)
}

/**
 * The state's 64-bit key into out[0], out[1]: the content of stateText (equal texts, equal
 * keys), fed as words. Messages: in link order in the ideal model, else as a multiset
 * (their own keys, sorted).
 */
export function stateKey(s: State, timing: TimingModel, out: Uint32Array): boolean {
  const ctx = textContext(s.nodes, s.firstSeq, s.messages)
  const exact = !(ctx && ctx.seenNearlyFull)
  if (!exact) inexactTexts++
  const n = s.nodes.length
  if (nodeWords.length < 2 * n) nodeWords = new Uint32Array(4 * n)
  for (let i = 0; i < n; i++) {
    nodeKey(s.nodes[i], s.clocks[i], ctx)
    nodeWords[2 * i] = nodeKeyOut[0]
    nodeWords[2 * i + 1] = nodeKeyOut[1]
  }
  const bounded = clocked(timing)
  const now = s.clocks[0]
  // each message's own key: in link order in the ideal model, else sorted (a multiset)
  const wordCount = 2 * s.messages.length
  if (messageWords.length < wordCount) messageWords = new Uint32Array(2 * wordCount)
  for (let m = 0; m < s.messages.length; m++) {
    messageKey(s.messages[m], bounded, now, ctx)
    messageWords[2 * m] = nodeKeyOut[0]
    messageWords[2 * m + 1] = nodeKeyOut[1]
  }
  if (timing !== "ideal" && s.messages.length > 1) {
    const pairs: number[][] = []
    for (let m = 0; m < s.messages.length; m++) pairs.push([messageWords[2 * m], messageWords[2 * m + 1]])
    pairs.sort((a, b) => a[0] - b[0] || a[1] - b[1])
    pairs.forEach((p, m) => {
      messageWords[2 * m] = p[0]
      messageWords[2 * m + 1] = p[1]
    })
  }
  keyStart()
  keyWord(s.crashes)
  keyWord(s.recoveries)
  keyWord(s.losses)
  keyWord(s.duplicates)
  keyWord(s.errors.length > 0 ? 1 : 0)
  for (let i = 0; i < n; i++) {
    const clock = s.clocks[i]
    keyWord(nodeWords[2 * i])
    keyWord(nodeWords[2 * i + 1])
    for (let t = 0; t < MAX_TIMERS; t++) {
      const d = s.deadlines[i * MAX_TIMERS + t]
      if (d >= 0) {
        keyWord(t)
        keyNumber(timeValue(d - clock))
      }
    }
    keyWord(TAG_END)
    if (s.absentSince[i] >= 0) keyNumber(timeValue(s.absentSince[i] - clock))
    else keyWord(TAG_NONE)
  }
  if (s.fence) keyFence(s.fence)
  keyWord(s.messages.length)
  for (let w = 0; w < wordCount; w++) keyWord(messageWords[w])
  keyEnd(out)
  return exact
}

/** stateKey's scratch (one key at a time per thread), grown as needed. */
let nodeWords = new Uint32Array(32)
let messageWords = new Uint32Array(128)

/** cyrb53: a 53-bit string hash (collisions at 10^6 states: about 1 in 10^4). */
export function hash53(str: string): number {
  let h1 = 0xdeadbeef
  let h2 = 0x41c6ce57
  for (let i = 0; i < str.length; i++) {
    const ch = str.charCodeAt(i)
    h1 = Math.imul(h1 ^ ch, 2654435761)
    h2 = Math.imul(h2 ^ ch, 1597334677)
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909)
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909)
  return 4294967296 * (2097151 & h2) + (h1 >>> 0)
}

// ---- events ----

/**
 * A live follower whose coordinator is crashed (`quiet`: or, once nothing else is pending,
 * does not hold the role; a failure timeout longer than any election).
 */
export function liveFollowerOfAbsent(s: State, i: number, quiet: boolean): boolean {
  const n = s.nodes[i]
  if (n.crashed || n.role !== Role.Follower || n.coordinator === NO_NODE || n.coordinator === n.id) return false
  const c = indexOfSorted(n.ids, n.coordinator)
  if (c < 0) return false
  const leader = s.nodes[c]
  return leader.crashed || (quiet && leader.role !== Role.Coordinator)
}

function earliestDeadline(s: State, i: number): number {
  let best = -1
  for (let t = 0; t < MAX_TIMERS; t++) {
    const d = s.deadlines[i * MAX_TIMERS + t]
    if (d >= 0 && (best < 0 || d < best)) best = d
  }
  return best
}

/** Timed detection: the failure detector's timeout (the ideal profile's), in ticks. */
export const DETECT_DELAY = defaultTiming("ideal")!.failureTimeout

/** Timed detection: node i's detector times out now. */
export function detectionDue(s: State, i: number): boolean {
  return s.absentSince[i] >= 0 && s.absentSince[i] + DETECT_DELAY <= s.clocks[0]
}

/** Timed detection: notes who follows an absent coordinator from now on, and who no longer does. */
function updateAbsence(s: State) {
  for (let i = 0; i < s.nodes.length; i++) {
    const absent = liveFollowerOfAbsent(s, i, false)
    if (!absent) s.absentSince[i] = -1
    else if (s.absentSince[i] < 0) s.absentSince[i] = s.clocks[0]
  }
}

/** Bounded model: the next instant something is due, or -1 when nothing is pending. */
export function nextInstant(s: State): number {
  let next = -1
  for (let i = 0; i < s.nodes.length; i++) {
    const d = earliestDeadline(s, i)
    if (d >= 0 && (next < 0 || d < next)) next = d
  }
  for (const m of s.messages) {
    const due = m.sent + DELAY_BOUND
    if (next < 0 || due < next) next = due
  }
  for (const a of s.absentSince) if (a >= 0 && (next < 0 || a + DETECT_DELAY < next)) next = a + DETECT_DELAY
  return next
}

/** Every event that may happen next, faults within their budgets. */
export function enabledEvents(s: State, config: ModelConfig): Event[] {
  const events: Event[] = []
  const bounded = clocked(config.timing)
  const ideal = config.timing === "ideal"
  const detection = detectionOf(config)
  const timed = detection === "timed"
  const now = s.clocks[0]
  for (let m = 0; m < s.messages.length; m++) {
    // identical copies lead to the same state: one event for each
    if (m > 0 && sameMessage(s.messages[m - 1], s.messages[m], bounded)) continue
    // ideal: a message is handled when its time has come, and only at the head of its link
    if (ideal && (s.messages[m].sent + DELAY_BOUND > now || (m > 0 && sameLink(s.messages[m - 1], s.messages[m])))) continue
    events.push({ type: EventType.Deliver, a: m, b: 0 })
  }
  for (let i = 0; i < s.nodes.length; i++) {
    const first = earliestDeadline(s, i)
    if (first < 0) continue
    if (bounded && first > now) continue
    for (let t = 0; t < MAX_TIMERS; t++)
      if (s.deadlines[i * MAX_TIMERS + t] === first) events.push({ type: EventType.Fire, a: i, b: t })
  }
  if (bounded) {
    let blocked = false
    for (const m of s.messages) if (m.sent + DELAY_BOUND <= now) blocked = true
    for (let i = 0; i < s.nodes.length && !blocked; i++) {
      const d = earliestDeadline(s, i)
      if (d >= 0 && d <= now) blocked = true
      if (timed && detectionDue(s, i)) blocked = true
    }
    if (!blocked && nextInstant(s) > now) events.push({ type: EventType.Tick, a: 0, b: 0 })
  }
  for (let i = 0; i < s.nodes.length; i++) {
    const n = s.nodes[i]
    if (!n.crashed && s.crashes < config.crashes) events.push({ type: EventType.Crash, a: i, b: 0 })
    if (n.crashed && s.recoveries < config.recoveries) events.push({ type: EventType.Recover, a: i, b: 0 })
    if (detection === "heartbeats") continue
    if (timed ? detectionDue(s, i) : liveFollowerOfAbsent(s, i, false)) events.push({ type: EventType.Detect, a: i, b: 0 })
  }
  for (let m = 0; m < s.messages.length; m++) {
    if (m > 0 && sameMessage(s.messages[m - 1], s.messages[m], bounded)) continue
    if (s.losses < config.losses) events.push({ type: EventType.Lose, a: m, b: 0 })
    if (s.duplicates < config.duplicates) events.push({ type: EventType.Duplicate, a: m, b: 0 })
  }
  return events
}

function sameLink(a: Message, b: Message): boolean {
  return a.dst === b.dst && a.frame.src === b.frame.src
}

/**
 * The node an event belongs to for the search's reduction: the node that handles a
 * delivery or a timer, or that a lost or duplicated message is for; -1 for crashes,
 * recoveries, detection (a recovery ends the chance to notice a crash) and time.
 */
export function stepNode(s: State, e: Event): number {
  if (e.type === EventType.Deliver || e.type === EventType.Lose || e.type === EventType.Duplicate) return s.messages[e.a].dst
  if (e.type === EventType.Fire) return e.a
  return -1
}

/** True for a step that is due: a delivery or a timer (the rest may wait). */
export function isDue(e: Event): boolean {
  return e.type === EventType.Deliver || e.type === EventType.Fire
}

export function sameMessage(a: Message, b: Message, bounded: boolean): boolean {
  return a.dst === b.dst && sameFrame(a.frame, b.frame) && (!bounded || a.sent === b.sent)
}

/** The fields frameText writes, compared without building it. */
function sameFrame(a: Frame, b: Frame): boolean {
  if (a === b) return true
  if (a.kind !== b.kind || a.epoch !== b.epoch || a.src !== b.src || a.dst !== b.dst) return false
  if (a.initiator !== b.initiator || a.bid !== b.bid || a.seq !== b.seq || a.list.length !== b.list.length) return false
  for (let i = 0; i < a.list.length; i++) if (a.list[i] !== b.list[i]) return false
  return true
}

/** Carries out node i's actions on the state; `rec` collects them for a trace. */
function applyActions(s: State, i: number, out: Action[], rec: StepRecord | null) {
  const node = s.nodes[i]
  const clock = s.clocks[i]
  for (const action of out) {
    if (action.type === ActionType.Send) {
      for (const to of action.to) {
        const j = indexOfSorted(node.ids, to)
        const uid = s.nextUid++
        if (rec) rec.sent.push(uid)
        if (j < 0) continue
        s.messages.push({ dst: j, frame: cloneFrame(action.frame), sent: clock, uid })
      }
    } else if (action.type === ActionType.SetTimer) {
      s.deadlines[i * MAX_TIMERS + action.timer] = clock + action.delay
      if (rec) rec.timerOps.push({ node: i, timer: action.timer, delay: action.delay })
    } else if (action.type === ActionType.CancelTimer) {
      const slot = i * MAX_TIMERS + action.timer
      if (rec && s.deadlines[slot] >= 0) rec.timerOps.push({ node: i, timer: action.timer, delay: -1 })
      s.deadlines[slot] = -1
    } else if (action.type === ActionType.RoleChange) {
      if (action.coordinator !== NO_NODE && indexOfSorted(node.ids, action.coordinator) < 0)
        s.errors.push(`process ${node.id} followed non-member ${action.coordinator}`)
    }
  }
}

function invoke(s: State, i: number, what: (node: ElectionNode, now: number, out: Action[]) => void, rec: StepRecord | null) {
  const out: Action[] = []
  if (!s.owned[i]) {
    s.nodes[i] = cloneNode(s.nodes[i])
    s.owned[i] = true
  }
  const before = stepBefore(s.nodes[i])
  try {
    what(s.nodes[i], s.clocks[i], out)
  } catch (e) {
    s.errors.push(`node ${s.nodes[i].id} threw: ${e}`)
    return
  }
  // the node's own invariants (self-check.ts), as the engine checks them
  for (const problem of stepProblems(s.nodes[i], before, out, false)) s.errors.push(problem)
  applyActions(s, i, out, rec)
}

function removeMessage(s: State, m: number): Message {
  // each state has its own array (cloneState copies it)
  return s.messages.splice(m, 1)[0]
}

export function describeEvent(s: State, e: Event): string {
  const id = (i: number) => s.nodes[i].id
  switch (e.type) {
    case EventType.Deliver:
    case EventType.Lose:
    case EventType.Duplicate: {
      const m = s.messages[e.a]
      const verb = e.type === EventType.Deliver ? "deliver" : e.type === EventType.Lose ? "lose" : "duplicate"
      return `${verb} ${kindLabel(m.frame)} ${m.frame.src}->${id(m.dst)}`
    }
    case EventType.Fire:
      return `timer '${timerName(labelsOf(s.nodes[e.a].algorithm).timers, e.b)}' of ${id(e.a)} fires`
    case EventType.Crash:
      return `crash ${id(e.a)}`
    case EventType.Recover:
      return `recover ${id(e.a)}`
    case EventType.Detect:
      return `${id(e.a)} notices that its coordinator ${s.nodes[e.a].coordinator} does not lead`
    case EventType.Tick:
      return `time passes`
    case EventType.Instant:
      return `the rest of the instant, node by node (${e.steps!.length} steps)`
  }
}

/** A run's step as an event of state s (its message found by link and place). */
export function runStepEvent(s: State, r: RunStep): Event {
  if (r.type !== EventType.Deliver && r.type !== EventType.Lose) return { type: r.type, a: r.node, b: r.timer }
  let ord = r.ord
  for (let m = 0; m < s.messages.length; m++) {
    const x = s.messages[m]
    if (x.dst === r.node && x.frame.src === r.src && ord-- === 0) return { type: r.type, a: m, b: 0 }
  }
  throw new Error(`no message ${r.src}->${s.nodes[r.node].id} #${r.ord} to ${r.type === EventType.Deliver ? "deliver" : "lose"}`)
}

let describeFrameFn: ((f: Frame) => string) | null = null
/** The chart's description of a frame (set by the search, which imports the registry). */
export function setFrameDescriber(fn: (f: Frame) => string) {
  describeFrameFn = fn
}
function kindLabel(f: Frame): string {
  return describeFrameFn ? describeFrameFn(f) : String(f.kind)
}

/** Applies `e` to `s` in place; returns what happened when `record` is set. */
export function applyEvent(s: State, e: Event, config: ModelConfig, record: boolean): StepRecord | null {
  if (e.type === EventType.Instant) {
    // one step after another, as the runs took them (instant.ts composes the same state)
    for (const r of e.steps!) applyEvent(s, runStepEvent(s, r), config, false)
    return record ? { event: e, text: describeEvent(s, e), time: s.clocks[0], uid: -1, copyUid: -1, sent: [], timerOps: [] } : null
  }
  const rec: StepRecord | null = record
    ? { event: e, text: describeEvent(s, e), time: 0, uid: -1, copyUid: -1, sent: [], timerOps: [] }
    : null
  const bounded = clocked(config.timing)
  switch (e.type) {
    case EventType.Deliver: {
      const m = removeMessage(s, e.a)
      if (rec) {
        rec.uid = m.uid
        rec.time = s.clocks[m.dst]
        if (s.nodes[m.dst].crashed) rec.text += " (crashed: dropped)"
      }
      if (!s.nodes[m.dst].crashed) invoke(s, m.dst, (n, now, out) => n.receive(cloneFrame(m.frame), now, out), rec)
      break
    }
    case EventType.Fire: {
      const slot = e.a * MAX_TIMERS + e.b
      const due = s.deadlines[slot]
      s.deadlines[slot] = -1
      if (!bounded && due > s.clocks[e.a]) s.clocks[e.a] = due
      if (rec) rec.time = s.clocks[e.a]
      invoke(s, e.a, (n, now, out) => n.timer(e.b, now, out), rec)
      break
    }
    case EventType.Crash:
      s.crashes++
      if (rec) rec.time = s.clocks[e.a]
      invoke(s, e.a, (n, now, out) => n.crash(now, out), rec)
      break
    case EventType.Recover:
      s.recoveries++
      if (rec) rec.time = s.clocks[e.a]
      invoke(s, e.a, (n, now, out) => n.recover(now, out), rec)
      break
    case EventType.Detect:
      if (rec) rec.time = s.clocks[e.a]
      // the detector starts over: a follower that stays one times out again later
      s.absentSince[e.a] = -1
      invoke(s, e.a, (n, now, out) => n.suspect(now, out), rec)
      break
    case EventType.Lose: {
      s.losses++
      const m = removeMessage(s, e.a)
      if (rec) rec.uid = m.uid
      break
    }
    case EventType.Duplicate: {
      s.duplicates++
      const m = s.messages[e.a]
      const copy = { ...m, uid: s.nextUid++ }
      s.messages.push(copy)
      if (rec) {
        rec.uid = m.uid
        rec.copyUid = copy.uid
      }
      break
    }
    case EventType.Tick: {
      const next = nextInstant(s)
      for (let i = 0; i < s.clocks.length; i++) s.clocks[i] = next
      if (rec) rec.time = next
      break
    }
  }
  sortMessages(s, config.timing)
  if (detectionOf(config) === "timed") updateAbsence(s)
  if (s.fence) settleTokens(s.fence, s.nodes)
  return rec
}

// ---- judging ----

export function processViews(s: State): ProcessView[] {
  return s.nodes.map(viewOf)
}

/** The highest epoch of a node, or of a fencing token (a token may be raised above its epoch). */
export function maxEpoch(s: State): number {
  let e = 0
  for (const n of s.nodes) if (n.epoch > e) e = n.epoch
  if (s.fence) {
    const t = maxTokenEpoch(s.fence)
    if (t > e) e = t
  }
  return e
}

/**
 * The message the fault-free continuation delivers next: the oldest (sent first), to the
 * lowest receiver, from the lowest sender, the first sent on that link; -1 when none is in
 * flight. In the ideal model it heads its link and, when due, goes to the node the search's
 * reduction lets step first, unless a lower node has a timer due.
 */
export function nextContinuationMessage(s: State): number {
  const ms = s.messages
  if (ms.length === 0) return -1
  let best = 0
  for (let m = 1; m < ms.length; m++) {
    const a = ms[m]
    const b = ms[best]
    if (a.sent < b.sent || (a.sent === b.sent && (a.dst < b.dst || (a.dst === b.dst && (a.frame.src < b.frame.src || (a.frame.src === b.frame.src && a.uid < b.uid))))))
      best = m
  }
  return best
}

/**
 * Ideal model: a delivery or a timer is due now, so the instant is not over (time cannot
 * move on); false at the end of an instant.
 */
export function hasDueStep(s: State): boolean {
  const now = s.clocks[0]
  for (const m of s.messages) if (m.sent + DELAY_BOUND <= now) return true
  for (const d of s.deadlines) if (d >= 0 && d <= now) return true
  return false
}

/**
 * The fault-free continuation, in place: in the ideal model (`ideal`) the rest of the
 * instant first (finishIdealInstant, detectors aside), then every message delivered (nextContinuationMessage's
 * order) before any timer fires, timers in time order on one clock, and a follower of an
 * absent coordinator noticing it; when all is quiet but the property does not hold, up to
 * `heartbeatRounds` rounds of heartbeats. Returns the steps taken, or -1 when no quiet
 * state came within `maxSteps`.
 */
export function continueFaultFree(s: State, maxSteps: number, heartbeatRounds: number, ideal = false): number {
  const first = ideal ? finishIdealInstant(s, false) : 0
  if (s.nodes[0].timing.heartbeatInterval > 0) return continueWithHeartbeats(s, maxSteps, first)
  for (let step = first; step < maxSteps; step++) {
    if (continuationStepTaken(s)) continue
    let noticed = false
    for (let i = 0; i < s.nodes.length && !noticed; i++)
      if (liveFollowerOfAbsent(s, i, true)) {
        invoke(s, i, (n, now, out) => n.suspect(now, out), null)
        noticed = true
      }
    if (noticed) continue
    if (heartbeatRounds <= 0 || checkCluster(processViews(s)).violations.length === 0) return step
    // Quiet but not settled: the failure detector's heartbeats are what reconciles two
    // coordinators (see liveness.ts, onHeartbeat); one round from every live coordinator.
    heartbeatRounds--
    sendHeartbeats(s)
  }
  return -1
}

/**
 * One step of the fault-free continuation, in place: the next message (nextContinuationMessage)
 * before any timer, else the timer due first on one clock. False when nothing is pending.
 */
function continuationStepTaken(s: State): boolean {
  if (s.messages.length > 0) {
    const msg = removeMessage(s, nextContinuationMessage(s))
    if (!s.nodes[msg.dst].crashed) invoke(s, msg.dst, (n, now, out) => n.receive(cloneFrame(msg.frame), now, out), null)
    if (s.fence) settleTokens(s.fence, s.nodes)
    return true
  }
  let best = -1
  let bestTimer = -1
  let wait = 0
  for (let i = 0; i < s.nodes.length; i++)
    for (let t = 0; t < MAX_TIMERS; t++) {
      const d = s.deadlines[i * MAX_TIMERS + t]
      if (d < 0) continue
      const remaining = d - s.clocks[i]
      if (best < 0 || remaining < wait) {
        best = i
        bestTimer = t
        wait = remaining
      }
    }
  if (best < 0) return false
  const w = wait > 0 ? wait : 0
  for (let i = 0; i < s.clocks.length; i++) s.clocks[i] += w
  s.deadlines[best * MAX_TIMERS + bestTimer] = -1
  invoke(s, best, (n, now, out) => n.timer(bestTimer, now, out), null)
  if (s.fence) settleTokens(s.fence, s.nodes)
  return true
}

/**
 * The fault-free continuation with the nodes' own heartbeats, which never fall quiet: it
 * has settled when it comes back to a state it passed since the cluster last agreed (a
 * run that depends on its state alone repeats from there for ever, agreeing). Returns the
 * steps taken, or -1 when it did not settle within `maxSteps`.
 */
function continueWithHeartbeats(s: State, maxSteps: number, first: number): number {
  const agreeing = new Set<string>()
  const key = new Uint32Array(2)
  const inexactBefore = inexactTexts
  try {
    for (let step = first; step < maxSteps; step++) {
      if (checkCluster(processViews(s)).violations.length === 0) {
        sortMessages(s, "ideal")
        // only an exact key stands for the state's future (abstraction.ts)
        if (stateKey(s, "ideal", key)) {
          const k = key[0] + ":" + key[1]
          if (agreeing.has(k)) return step
          agreeing.add(k)
        }
      } else agreeing.clear()
      if (!continuationStepTaken(s)) return checkCluster(processViews(s)).violations.length === 0 ? step : -1
    }
    return -1
  } finally {
    // the search counts inexact keys of the states it visits, not of the continuation's
    inexactTexts = inexactBefore
  }
}

/** Every live coordinator broadcasts one heartbeat (the frame node-state.ts's sendHeartbeat makes; the model without the nodes' own). */
export function sendHeartbeats(s: State) {
  for (let i = 0; i < s.nodes.length; i++) {
    const n = s.nodes[i]
    if (n.crashed || n.role !== Role.Coordinator) continue
    const f = makeFrame(Kind.HEARTBEAT, n.algorithm, n.group, n.epoch, n.id, BROADCAST)
    f.bid = n.rank()
    for (let j = 0; j < s.nodes.length; j++)
      if (j !== i) s.messages.push({ dst: j, frame: f, sent: s.clocks[i], uid: s.nextUid++ })
  }
}

// ---- the continuation as the ideal network takes it, with its verdicts remembered ----

/** What a remembered continuation came to: a value below is the steps it took to agree. */
export const CONTINUATION_FAILS = 0x7fffffff

/**
 * Verdicts of fault-free continuations by the keys of the instant ends they passed: for
 * each, the steps from there to an agreeing quiet state, or CONTINUATION_FAILS. A lossy
 * table of fixed size (a newer entry takes an older one's slot): a continuation that
 * meets a remembered end stops there with its verdict.
 */
export class ContinuationMemo {
  private readonly lo: Int32Array
  private readonly hi: Int32Array
  /** The value plus one (0: empty). */
  private readonly val: Int32Array
  private readonly mask: number
  /** Lookups that found a verdict. */
  hits = 0
  constructor(bits: number) {
    this.lo = new Int32Array(1 << bits)
    this.hi = new Int32Array(1 << bits)
    this.val = new Int32Array(1 << bits)
    this.mask = (1 << bits) - 1
  }
  /** The remembered value, or -1. */
  get(lo: number, hi: number): number {
    const k = (lo ^ Math.imul(hi, 0x9e3779b1)) & this.mask
    if (this.val[k] === 0 || this.lo[k] !== (lo | 0) || this.hi[k] !== (hi | 0)) return -1
    this.hits++
    const v = this.val[k]
    return v === CONTINUATION_FAILS ? v : v - 1
  }
  set(lo: number, hi: number, value: number) {
    const k = (lo ^ Math.imul(hi, 0x9e3779b1)) & this.mask
    this.lo[k] = lo
    this.hi[k] = hi
    this.val[k] = value === CONTINUATION_FAILS ? CONTINUATION_FAILS : value + 1
  }
}

/** The ideal model with timed detection (no heartbeats): where the continuation takes the ideal network's steps. */
export function idealContinuationApplies(s: State, config: ModelConfig): boolean {
  return config.timing === "ideal" && detectionOf(config) === "timed" && s.nodes[0].timing.heartbeatInterval === 0
}

/**
 * Ideal model: the rest of the instant, in place, as the ideal network takes it: every
 * delivery due now (nextContinuationMessage's order), then every timer due now (the lowest
 * node's earliest, the lowest of those, as instant.ts's runs), then, with timed detection
 * (`timed`), every detector that times out; what they send is due at the next instant.
 * Returns the steps taken. A state's continuation passes the end of its instant this way,
 * so every state within an instant has the verdict of the end it comes to.
 */
export function finishIdealInstant(s: State, timed = true): number {
  let steps = 0
  for (;;) {
    const m = nextContinuationMessage(s)
    if (m >= 0 && s.messages[m].sent + DELAY_BOUND <= s.clocks[0]) {
      const msg = removeMessage(s, m)
      if (!s.nodes[msg.dst].crashed) invoke(s, msg.dst, (n, now, out) => n.receive(cloneFrame(msg.frame), now, out), null)
    } else {
      let slot = -1
      for (let i = 0; i < s.nodes.length && slot < 0; i++)
        for (let k = i * MAX_TIMERS; k < (i + 1) * MAX_TIMERS; k++) {
          const d = s.deadlines[k]
          if (d >= 0 && (slot >= 0 ? d < s.deadlines[slot] : d <= s.clocks[0])) slot = k
        }
      if (slot >= 0) {
        const i = Math.floor(slot / MAX_TIMERS)
        const t = slot - i * MAX_TIMERS
        s.deadlines[slot] = -1
        invoke(s, i, (n, now, out) => n.timer(t, now, out), null)
      } else {
        let i = 0
        while (timed && i < s.nodes.length && !detectionDue(s, i)) i++
        if (!timed || i === s.nodes.length) return steps
        s.absentSince[i] = -1
        invoke(s, i, (n, now, out) => n.suspect(now, out), null)
      }
    }
    if (timed) updateAbsence(s)
    if (s.fence) settleTokens(s.fence, s.nodes)
    steps++
  }
}

/** Ideal model: nothing in flight, no timer set, no detector running. */
export function idle(s: State): boolean {
  if (s.messages.length > 0) return false
  for (const d of s.deadlines) if (d >= 0) return false
  for (const a of s.absentSince) if (a >= 0) return false
  return true
}

/**
 * The continuation idealContinuationAgrees judges, in place, to its end: returns the steps
 * taken, or -1 when no quiet state came within `maxSteps`.
 */
export function continueIdeal(c: State, maxSteps: number, heartbeatRounds: number): number {
  let steps = finishIdealInstant(c)
  while (!idle(c)) {
    if (steps > maxSteps) return -1
    const next = nextInstant(c)
    for (let i = 0; i < c.clocks.length; i++) c.clocks[i] = next
    steps += finishIdealInstant(c)
  }
  if (steps > maxSteps) return -1
  const more = continueFaultFree(c, maxSteps - steps, heartbeatRounds)
  return more < 0 ? -1 : steps + more
}
