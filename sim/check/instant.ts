// The depth-first search's reduction in the ideal model: the rest of an instant taken node
// by node (docs/algorithms.md, "Exhaustive check", "The instant, node by node").
//
// In the ideal model what a node has to handle at an instant is fixed when the instant
// begins (what is sent in it is due at the next), and a node's handler reads only its own
// fields, the frame and the time. So what one node can make of its part of the instant (its
// deliveries in every order that keeps each link's order, its timers due, the loss of a
// message due to it, its own crash or recovery between them: its runs) does not depend on
// what the others do in it, and the ends of the instant are the combinations of one run
// per node, within the fault budgets. The search keeps those ends; the states on the way
// are not kept, judged or counted. This is sound when:
// - no step of any run changes what a property reads of a single state (an error, a
//   non-member followed; with unique-coordinator, a crash, a recovery, taking or leaving
//   the role); else the instant is searched step by step (explore.ts): every state on the
//   way then looks like the one the instant started from;
// - every other event can wait for the end of the instant, where the search tries it: the
//   loss of a message sent in the instant (nothing reads it before the next), another
//   node's crash or recovery (it touches that node only, and what it sends is due at the
//   next instant; with at most one crash in the budget, which of a follower's steps comes
//   before its coordinator's crash or recovery does not change when its detector started);
//   a detection due now may not wait (a recovery would take it away), so with one due the
//   instant is searched step by step;
// - eventual agreement is judged where an instant ends (its continuation first finishes the
//   instant, model.ts), and every end is kept;
// - the fencing tokens (played on every state from every node's role) are not judged, and
//   there are no duplications (a copy is due at once).
// A test compares the ends, the roles, the errors and the verdicts with the full search's.

import { type Action, ActionType, indexOfSorted, MAX_TIMERS, NO_NODE, Role } from "../../src/core/contract"
import type { ElectionNode } from "../../src/core/node"
import { stepBefore, stepProblems } from "../../src/core/self-check"
import { seenNearlyFull } from "./abstraction"
import { keyEnd, keyNumber, keyStart, keyWord, StateSet } from "./key"
import { checkCluster } from "../../src/core/checker"
import {
  cloneFrame,
  cloneNode,
  cloneState,
  CONTINUATION_FAILS,
  type ContinuationMemo,
  continueFaultFree,
  finishIdealInstant,
  idle,
  inexactTexts,
  nextInstant,
  processViews,
  setInexactTexts,
  sortMessages,
  stateKey,
  DELAY_BOUND,
  detectionDue,
  detectionOf,
  type Event,
  EventType,
  exactMessageKey,
  exactNodeKey,
  liveFollowerOfAbsent,
  type Message,
  type ModelConfig,
  type RunStep,
  sameMessage,
  type State,
} from "./model"

/** One node's part of an instant: its state after it, and what it did. */
export interface NodeRun {
  node: ElectionNode
  /** Its timers' deadlines after the run. */
  deadlines: number[]
  /** What it sent, in order (each link's order is the order sent). */
  sent: Message[]
  /** The least uid among `sent` (Infinity when none). */
  firstUid: number
  crashes: number
  recoveries: number
  losses: number
  /** Timed detection: since when it follows an absent coordinator after the run, the others as they were. */
  absentSince: number
  steps: RunStep[]
}

/** Where the search may take the instant node by node, and what the runs need. */
export interface InstantRules {
  config: ModelConfig
  /** unique-coordinator is judged: a crash, a recovery, taking or leaving the role is visible. */
  roles: boolean
}

/** May state s's instant be taken node by node under these rules (before looking at the runs)? */
export function instantApplies(s: State, rules: InstantRules): boolean {
  const c = rules.config
  if (c.timing !== "ideal" || c.duplicates > 0 || c.crashes > 1 || s.fence !== null) return false
  const detection = detectionOf(c)
  if (detection === "any") return false
  if (detection === "timed") for (let i = 0; i < s.nodes.length; i++) if (detectionDue(s, i)) return false
  return true
}

/** Messages due to node i at s, in link order. */
function dueTo(s: State, i: number): Message[] {
  const now = s.clocks[0]
  const due: Message[] = []
  for (const m of s.messages) if (m.dst === i && m.sent + DELAY_BOUND <= now) due.push(m)
  return due
}

function timerDue(deadlines: number[], now: number): boolean {
  for (const d of deadlines) if (d >= 0 && d <= now) return true
  return false
}

/** A node's part in the making. */
interface Local {
  node: ElectionNode
  owned: boolean
  deadlines: number[]
  /** Bit k: due message k not yet taken. */
  rest: number
  sent: Message[]
  crashes: number
  recoveries: number
  losses: number
  absent: number
  steps: RunStep[]
}

/** Uids for what runs send: above every uid of every state that asked (a run may serve many). */
let nextRunUid = 0

/** Counts states on the way whose ring buffers were half full (the search is then not exact). */
export let inexactRuns = 0

const word2 = new Uint32Array(2)

/** Node runs already worked out, by what they read (runsKey); two generations, the older dropped when the newer fills. */
interface RunsEntry {
  runs: NodeRun[] | null
  /** The fault-free continuation's run: deliveries in link order, then timers due (model.ts, finishIdealInstant); null with no runs. */
  canonical: NodeRun | null
  /** States on the way with a ring buffer half full. */
  inexact: number
}
const RUNS_KEPT = 50_000
interface RunsCache {
  newer: Map<string, RunsEntry>
  older: Map<string, RunsEntry>
}
/** One cache per rules (the search's and the continuation's may differ). */
const runsCaches = new WeakMap<InstantRules, RunsCache>()

/**
 * What node i's runs from s depend on, as a key: the node (exactly, at the clock), its
 * timers, the messages due to it, the faults left, since when it follows an absent
 * coordinator, and who is crashed (whether a coordinator it may follow is absent).
 */
function runsKey(s: State, i: number, due: Message[]): string {
  const now = s.clocks[i]
  exactNodeKey(s.nodes[i], now, word2)
  const n0 = word2[0]
  const n1 = word2[1]
  const dueWords: number[] = []
  for (const m of due) {
    exactMessageKey(m, now, word2)
    dueWords.push(word2[0], word2[1])
  }
  keyStart()
  keyWord(i)
  keyNumber(now)
  keyWord(n0)
  keyWord(n1)
  for (let t = 0; t < MAX_TIMERS; t++) keyNumber(s.deadlines[i * MAX_TIMERS + t])
  keyWord(s.crashes)
  keyWord(s.recoveries)
  keyWord(s.losses)
  keyNumber(s.absentSince[i])
  let crashed = 0
  for (let k = 0; k < s.nodes.length; k++) if (s.nodes[k].crashed) crashed |= 1 << k
  keyWord(crashed)
  keyWord(due.length)
  for (const w of dueWords) keyWord(w)
  keyEnd(word2)
  return `${word2[0]}:${word2[1]}`
}

/**
 * Every run of node i from state s (null: a step is visible, or errs: take the instant
 * step by step). Each run is distinct (its end differs in what the state keeps). Kept by
 * what they read: a node whose key equals another's has its future, as everywhere in the search.
 */
export function nodeRuns(s: State, i: number, rules: InstantRules): NodeRun[] | null {
  const entry = runsEntry(s, i, rules)
  return entry ? entry.runs : null
}

/** Node i's runs from s, from the cache or worked out. */
function runsEntry(s: State, i: number, rules: InstantRules): RunsEntry | null {
  let cache = runsCaches.get(rules)
  if (!cache) {
    cache = { newer: new Map(), older: new Map() }
    runsCaches.set(rules, cache)
  }
  const due = dueTo(s, i)
  if (due.length > 30) return null
  const key = runsKey(s, i, due)
  let entry = cache.newer.get(key)
  if (!entry) {
    entry = cache.older.get(key)
    if (!entry) {
      const before = inexactRuns
      const worked = workOutRuns(s, i, rules, due)
      entry = { runs: worked ? worked.runs : null, canonical: worked ? worked.canonical : null, inexact: inexactRuns - before }
    } else inexactRuns += entry.inexact
    if (cache.newer.size >= RUNS_KEPT) {
      cache.older = cache.newer
      cache.newer = new Map()
    }
    cache.newer.set(key, entry)
  } else inexactRuns += entry.inexact
  return entry
}

type StepFn = (l: Local, r: RunStep, act: ((n: ElectionNode, out: Action[]) => void) | null, take: number) => Local | null

/** Node i's part of s's instant before any step of it. */
function startOf(s: State, i: number, due: Message[]): Local {
  return {
    node: s.nodes[i],
    owned: false,
    deadlines: s.deadlines.slice(i * MAX_TIMERS, (i + 1) * MAX_TIMERS),
    rest: due.length === 0 ? 0 : due.length === 31 ? 0x7fffffff : (1 << due.length) - 1,
    sent: [],
    crashes: 0,
    recoveries: 0,
    losses: 0,
    absent: s.absentSince[i],
    steps: [],
  }
}

/** One step of node i's part of s's instant from l (a copy), or null when it is visible or errs. */
function stepperFor(s: State, i: number, rules: InstantRules): StepFn {
  const now = s.clocks[i]
  const timed = detectionOf(rules.config) === "timed"
  if (s.nextUid > nextRunUid) nextRunUid = s.nextUid
  const crashedAt = (k: number, l: Local) => (k === i ? l.node.crashed : s.nodes[k].crashed)
  return (l, r, act, take) => {
    const next: Local = { ...l, deadlines: l.deadlines, sent: l.sent, steps: [...l.steps, r] }
    if (take >= 0) next.rest = l.rest & ~(1 << take)
    if (act) {
      const before = l.node
      const node = l.owned ? before : cloneNode(before)
      next.node = node
      next.owned = false
      const out: Action[] = []
      const was = stepBefore(node)
      try {
        act(node, out)
      } catch {
        return null
      }
      // a step that breaks the node's own invariants errs: the search's exact step records it
      if (stepProblems(node, was, out, false).length > 0) return null
      if (rules.roles && (before.crashed !== node.crashed || (before.role === Role.Coordinator) !== (node.role === Role.Coordinator))) return null
      if (node.coordinator !== before.coordinator && node.coordinator !== NO_NODE && indexOfSorted(node.ids, node.coordinator) < 0) return null
      for (const a of out) {
        if (a.type === ActionType.Send) {
          for (const to of a.to) {
            const j = indexOfSorted(node.ids, to)
            const uid = nextRunUid++
            if (j < 0) continue
            if (next.sent === l.sent) next.sent = l.sent.slice(0)
            next.sent.push({ dst: j, frame: cloneFrame(a.frame), sent: now, uid })
          }
        } else if (a.type === ActionType.SetTimer || a.type === ActionType.CancelTimer) {
          if (next.deadlines === l.deadlines) next.deadlines = l.deadlines.slice(0)
          next.deadlines[a.timer] = a.type === ActionType.SetTimer ? now + a.delay : -1
        } else if (a.type === ActionType.RoleChange) {
          if (a.coordinator !== NO_NODE && indexOfSorted(node.ids, a.coordinator) < 0) return null
        }
      }
      if (seenNearlyFull(node)) inexactRuns++
    }
    if (timed) {
      const n = next.node
      let absent = false
      if (!n.crashed && n.role === Role.Follower && n.coordinator !== NO_NODE && n.coordinator !== n.id) {
        const k = indexOfSorted(n.ids, n.coordinator)
        absent = k >= 0 && crashedAt(k, next)
      }
      next.absent = !absent ? -1 : next.absent < 0 ? now : next.absent
    }
    return next
  }
}

function workOutRuns(s: State, i: number, rules: InstantRules, due: Message[]): { runs: NodeRun[]; canonical: NodeRun | null } | null {
  const c = rules.config
  const now = s.clocks[i]
  const start = startOf(s, i, due)
  const step = stepperFor(s, i, rules)
  const seen = new StateSet(64)
  const runs: NodeRun[] = []
  const stack: Local[] = [start]

  while (stack.length > 0) {
    const l = stack.pop()!
    const timers = timerDue(l.deadlines, now)
    if (l.rest === 0 && !timers) {
      if (l.steps.length > 0) runs.push(finishRun(l))
      continue
    }
    const succ: Local[] = []
    const losing = s.losses + l.losses < c.losses
    // deliveries: the head of each link; a loss only at the head too (losing a message
    // behind it first changes nothing until the head is taken)
    for (let k = 0; k < due.length; k++) {
      if (!(l.rest & (1 << k))) continue
      const m = due[k]
      let head = true
      for (let q = 0; q < k && head; q++) if (l.rest & (1 << q) && due[q].frame.src === m.frame.src) head = false
      if (!head) continue
      const r: RunStep = { type: EventType.Deliver, node: i, src: m.frame.src, ord: 0, timer: 0 }
      const next = l.node.crashed ? step(l, r, null, k) : step(l, r, (n, out) => n.receive(cloneFrame(m.frame), now, out), k)
      if (!next) return null
      succ.push(next)
      // a loss whose delivery would change nothing ends where the delivery does, with less
      // of the fault budget left: what follows it, follows the delivery too
      if (losing && !unchanged(l, next, now)) {
        const lost = step(l, { type: EventType.Lose, node: i, src: m.frame.src, ord: 0, timer: 0 }, null, k)
        if (!lost) return null
        lost.losses++
        succ.push(lost)
      }
    }
    // timers due: those due first
    if (timers) {
      let first = -1
      for (const d of l.deadlines) if (d >= 0 && (first < 0 || d < first)) first = d
      for (let t = 0; t < MAX_TIMERS; t++) {
        if (l.deadlines[t] !== first) continue
        const r: RunStep = { type: EventType.Fire, node: i, src: 0, ord: 0, timer: t }
        const cleared = l.deadlines.slice(0)
        cleared[t] = -1
        const next = step({ ...l, deadlines: cleared }, r, (n, out) => n.timer(t, now, out), -1)
        if (!next) return null
        succ.push(next)
      }
    }
    // its own crash or recovery between its steps (after its last, the end of the instant tries them)
    if (!l.node.crashed && s.crashes + l.crashes < c.crashes) {
      const next = step(l, { type: EventType.Crash, node: i, src: 0, ord: 0, timer: 0 }, (n, out) => n.crash(now, out), -1)
      if (!next) return null
      next.crashes++
      succ.push(next)
    }
    if (l.node.crashed && s.recoveries + l.recoveries < c.recoveries) {
      const next = step(l, { type: EventType.Recover, node: i, src: 0, ord: 0, timer: 0 }, (n, out) => n.recover(now, out), -1)
      if (!next) return null
      next.recoveries++
      succ.push(next)
    }
    for (const next of succ) {
      localKey(next, due.length, now)
      if (seen.add(word2[0], word2[1])) stack.push(next)
    }
  }
  return { runs, canonical: canonicalRun(i, start, due, now, step) }
}

/**
 * The fault-free continuation's run of a node (finishIdealInstant's order): each delivery at
 * the head of the lowest link, then the timers due, the earliest and lowest first; null
 * when a step is visible or errs, or when the node has nothing due.
 */
function canonicalRun(i: number, start: Local, due: Message[], now: number, step: StepFn): NodeRun | null {
  let l = start
  for (;;) {
    let next: Local | null
    if (l.rest !== 0) {
      const k = 31 - Math.clz32(l.rest & -l.rest)
      const m = due[k]
      const r: RunStep = { type: EventType.Deliver, node: i, src: m.frame.src, ord: 0, timer: 0 }
      next = l.node.crashed ? step(l, r, null, k) : step(l, r, (n, out) => n.receive(cloneFrame(m.frame), now, out), k)
    } else if (timerDue(l.deadlines, now)) {
      let t = -1
      for (let k = 0; k < MAX_TIMERS; k++) if (l.deadlines[k] >= 0 && (t < 0 || l.deadlines[k] < l.deadlines[t])) t = k
      const cleared = l.deadlines.slice(0)
      cleared[t] = -1
      const timer = t
      next = step({ ...l, deadlines: cleared }, { type: EventType.Fire, node: i, src: 0, ord: 0, timer }, (n, out) => n.timer(timer, now, out), -1)
    } else break
    if (!next) return null
    l = next
  }
  return l.steps.length > 0 ? finishRun(l) : null
}

function finishRun(l: Local): NodeRun {
  let firstUid = Infinity
  for (const m of l.sent) if (m.uid < firstUid) firstUid = m.uid
  return { node: l.node, deadlines: l.deadlines, sent: l.sent, firstUid, crashes: l.crashes, recoveries: l.recoveries, losses: l.losses, absentSince: l.absent, steps: l.steps }
}

/** True when the step from a to b left the node, its timers and its sends as they were (a delivery it ignored or dropped). */
function unchanged(a: Local, b: Local, now: number): boolean {
  if (b.sent.length !== a.sent.length || b.absent !== a.absent) return false
  for (let t = 0; t < MAX_TIMERS; t++) if (a.deadlines[t] !== b.deadlines[t]) return false
  if (a.node === b.node) return true
  exactNodeKey(a.node, now, word2)
  const a0 = word2[0]
  const a1 = word2[1]
  exactNodeKey(b.node, now, word2)
  return a0 === word2[0] && a1 === word2[1]
}

/** A part in the making's key into word2: what the end of the instant will keep of it. */
function localKey(l: Local, dueCount: number, now: number) {
  exactNodeKey(l.node, now, word2)
  const n0 = word2[0]
  const n1 = word2[1]
  // what it sent, per receiver in order sent (links are what the state keeps in order)
  const sentWords: number[] = []
  for (let d = 0; d < l.node.ids.length; d++)
    for (const m of l.sent)
      if (m.dst === d) {
        exactMessageKey(m, now, word2)
        sentWords.push(word2[0], word2[1])
      }
  keyStart()
  keyWord(n0)
  keyWord(n1)
  for (const d of l.deadlines) keyNumber(d < 0 ? -1 : d - now)
  keyWord(l.rest)
  keyWord(dueCount)
  keyWord(l.crashes)
  keyWord(l.recoveries)
  keyWord(l.losses)
  keyNumber(l.absent < 0 ? -1 : l.absent - now)
  keyWord(sentWords.length)
  for (const w of sentWords) keyWord(w)
  keyEnd(word2)
}

/**
 * The runs of one node with a step due, each leading to a state where that node is done
 * with the instant (with the runs of the nodes that have only one, taken along).
 */
export class InstantExpansion {
  private next_ = 0
  constructor(
    private readonly s: State,
    /** Runs taken along in every successor (null: none for that node). */
    private readonly fixed: (NodeRun | null)[],
    /** The node whose runs are tried, or -1 (one successor: the fixed runs). */
    readonly node: number,
    private readonly runs: NodeRun[],
    private readonly timed: boolean,
    private readonly reverse: boolean,
  ) {}

  /** [ends taken, ends in all]. */
  position(): [number, number] {
    return [this.next_, this.node < 0 ? 1 : this.runs.length]
  }

  /** The state after the next run and the event that leads there, or null when there are no more. */
  next(): { state: State; via: Event } | null {
    const count = this.node < 0 ? 1 : this.runs.length
    if (this.next_ >= count) return null
    const k = this.next_++
    const pick = this.fixed.slice(0)
    if (this.node >= 0) pick[this.node] = this.runs[this.reverse ? count - 1 - k : k]
    const s = this.s
    let crashes = s.crashes
    let recoveries = s.recoveries
    let losses = s.losses
    for (const r of pick)
      if (r) {
        crashes += r.crashes
        recoveries += r.recoveries
        losses += r.losses
      }
    return compose(s, pick, crashes, recoveries, losses, this.timed)
  }
}

/** The state after every picked run, as taking their steps one node after another would leave it. */
export function compose(s: State, pick: (NodeRun | null)[], crashes: number, recoveries: number, losses: number, timed: boolean): { state: State; via: Event } {
  const now = s.clocks[0]
  const t: State = {
    nodes: s.nodes.slice(0),
    clocks: s.clocks.slice(0),
    deadlines: s.deadlines.slice(0),
    messages: [],
    crashes,
    recoveries,
    losses,
    duplicates: s.duplicates,
    errors: s.errors.slice(0),
    nextUid: Math.max(s.nextUid, nextRunUid),
    owned: s.nodes.map(() => false),
    firstSeq: s.firstSeq,
    absentSince: s.absentSince.slice(0),
    fence: null,
  }
  const steps: RunStep[] = []
  // the senders of messages already sent in this instant (bit by id)
  let sentNow = 0
  let maxId = 0
  for (const n of s.nodes) if (n.id > maxId) maxId = n.id
  for (const m of s.messages) {
    if (m.sent === now) sentNow |= 1 << (m.frame.src & 31)
    if (!(pick[m.dst] && m.sent + DELAY_BOUND <= now)) t.messages.push(m)
  }
  for (let i = 0; i < pick.length; i++) {
    const r = pick[i]
    if (!r) continue
    t.nodes[i] = r.node
    for (let k = 0; k < MAX_TIMERS; k++) t.deadlines[i * MAX_TIMERS + k] = r.deadlines[k]
    for (const st of r.steps) steps.push(st)
    // a run's sends follow what the node sent earlier in the instant on each link
    if (r.firstUid < s.nextUid && sentNow & (1 << (r.node.id & 31))) for (const m of r.sent) t.messages.push({ dst: m.dst, frame: m.frame, sent: m.sent, uid: t.nextUid++ })
    else for (const m of r.sent) t.messages.push(m)
  }
  intoLinkOrder(t.messages, t.nodes.length, maxId)
  if (timed)
    for (let k = 0; k < t.nodes.length; k++) {
      if (!liveFollowerOfAbsent(t, k, false)) t.absentSince[k] = -1
      else if (s.absentSince[k] < 0) t.absentSince[k] = now
      else t.absentSince[k] = pick[k] ? pick[k]!.absentSince : s.absentSince[k]
    }
  return { state: t, via: { type: EventType.Instant, a: 0, b: 0, steps } }
}

let linkCounts = new Int32Array(64)
let ordered: Message[] = []

/**
 * Puts compose's messages in link order (sortMessages's "ideal" order) by counting: they
 * come as the kept ones, in that order, then each run's in the order sent, and on every
 * link that is already the order of sent time and uid (a run sends after the kept ones on
 * its links; where it sent earlier in the instant, compose gives its sends later uids).
 */
function intoLinkOrder(ms: Message[], n: number, maxId: number) {
  if (ms.length < 2) return
  const width = maxId + 1
  const links = n * width
  if (linkCounts.length < links + 1) linkCounts = new Int32Array(links + 1)
  linkCounts.fill(0, 0, links + 1)
  for (const m of ms) linkCounts[m.dst * width + m.frame.src + 1]++
  for (let k = 1; k <= links; k++) linkCounts[k] += linkCounts[k - 1]
  if (ordered.length < ms.length) ordered = new Array<Message>(2 * ms.length)
  for (const m of ms) ordered[linkCounts[m.dst * width + m.frame.src]++] = m
  for (let k = 0; k < ms.length; k++) ms[k] = ordered[k]
}

/**
 * State s's instant, node by node: the runs of one node with a step due, or null when it
 * must be taken step by step (the rules do not apply, nothing is due, or every node with
 * a step due has a run that is visible or errs). Which node does not matter to what the
 * search reaches (the others' steps commute with its runs); the one with the fewest runs
 * goes first, and those with one run go together (no choice to branch on): the states kept
 * between nodes are then few beside the instant's ends.
 */
export function expandInstant(s: State, rules: InstantRules, reverse: boolean): InstantExpansion | null {
  if (!instantApplies(s, rules)) return null
  const now = s.clocks[0]
  const due: boolean[] = s.nodes.map(() => false)
  for (const m of s.messages) if (m.sent + DELAY_BOUND <= now) due[m.dst] = true
  for (let k = 0; k < s.deadlines.length; k++) if (s.deadlines[k] >= 0 && s.deadlines[k] <= now) due[Math.floor(k / MAX_TIMERS)] = true
  const fixed: (NodeRun | null)[] = s.nodes.map((): NodeRun | null => null)
  let singles = false
  let best = -1
  let bestRuns: NodeRun[] = []
  for (let i = 0; i < s.nodes.length; i++) {
    if (!due[i]) continue
    const runs = nodeRuns(s, i, rules)
    if (!runs) continue
    if (runs.length === 1) {
      fixed[i] = runs[0]
      singles = true
    } else if (best < 0 || runs.length < bestRuns.length) {
      best = i
      bestRuns = runs
    }
  }
  const timed = detectionOf(rules.config) === "timed"
  if (singles) return new InstantExpansion(s, fixed, -1, [], timed, reverse)
  if (best < 0) return null
  return new InstantExpansion(s, fixed, best, bestRuns, timed, reverse)
}

/**
 * The instant s begins (s at an instant end, time moved on), as the fault-free continuation
 * takes it (finishIdealInstant's order), composed from each node's runs: the state at its
 * end and the steps taken, or null where the instant is not taken node by node.
 */
export function continuationInstant(s: State, rules: InstantRules): { state: State; steps: number } | null {
  if (!instantApplies(s, rules)) return null
  const now = s.clocks[0]
  const pick: (NodeRun | null)[] = s.nodes.map((): NodeRun | null => null)
  let due = 0
  for (const m of s.messages) if (m.sent + DELAY_BOUND <= now) due |= 1 << m.dst
  for (let k = 0; k < s.deadlines.length; k++) if (s.deadlines[k] >= 0 && s.deadlines[k] <= now) due |= 1 << Math.floor(k / MAX_TIMERS)
  let steps = 0
  for (let i = 0; i < s.nodes.length; i++) {
    if (!(due & (1 << i))) continue
    const entry = runsEntry(s, i, rules)
    if (!entry || !entry.canonical) return null
    pick[i] = entry.canonical
    steps += entry.canonical.steps.length
  }
  return { state: compose(s, pick, s.crashes, s.recoveries, s.losses, detectionOf(rules.config) === "timed").state, steps }
}

const memoKey = new Uint32Array(2)
/** A continuation past its step limit: says nothing of a later end's own limit. */
const TOO_LONG = -2

/**
 * Ideal model, timed detection (idealContinuationApplies): does the fault-free continuation
 * from s, the ideal network's steps instant by instant, come to a quiet state where the
 * cluster agrees within `maxSteps`? From the first idle state on it goes on as
 * continueFaultFree does (a follower of a process that does not lead notices, heartbeat
 * rounds). An instant is composed from the nodes' runs where it can be (continuationInstant).
 * `key`: s's exact key, when known. Each instant end it passes is remembered with its
 * verdict; a remembered one ends it. s is left as it was. Same verdict as continueIdeal.
 */
export function idealContinuationAgrees(s: State, maxSteps: number, heartbeatRounds: number, rules: InstantRules, memo: ContinuationMemo, key: Uint32Array | null): boolean {
  const path: number[] = []
  if (key) {
    const v = memo.get(key[0], key[1])
    // as continueFaultFree counts: a quiet state after maxSteps steps comes too late
    if (v >= 0) return v !== CONTINUATION_FAILS && v < maxSteps
  }
  const inexactTextsBefore = inexactTexts
  const inexactRunsBefore = inexactRuns
  if (key) path.push(key[0], key[1], 0)
  let c = cloneState(s)
  let steps = finishIdealInstant(c)
  if (steps > 0) sortMessages(c, "ideal")
  let total = -1
  let first = true
  for (;;) {
    if (steps > maxSteps) {
      total = TOO_LONG
      break
    }
    if (idle(c)) {
      const more = continueFaultFree(c, maxSteps - steps, heartbeatRounds)
      total = more < 0 ? TOO_LONG : checkCluster(processViews(c)).violations.length > 0 ? CONTINUATION_FAILS : steps + more
      break
    }
    // at the start c is s, already looked up, unless s was within its instant
    if (!(first && key && steps === 0) && stateKey(c, "ideal", memoKey)) {
      const v = memo.get(memoKey[0], memoKey[1])
      if (v >= 0) {
        total = v === CONTINUATION_FAILS ? v : steps + v
        break
      }
      path.push(memoKey[0], memoKey[1], steps)
    }
    const next = nextInstant(c)
    for (let i = 0; i < c.clocks.length; i++) c.clocks[i] = next
    // all the runs, not the continuation's alone: those of s's next instant serve the search
    // when it takes that instant (keeping the continuation's alone apart measured no faster)
    const end = continuationInstant(c, rules)
    first = false
    if (end) {
      c = end.state
      steps += end.steps
    } else {
      steps += finishIdealInstant(c)
      sortMessages(c, "ideal")
    }
  }
  // the search counts inexact keys and runs of the states it visits, not of the continuation's
  setInexactTexts(inexactTextsBefore)
  inexactRuns = inexactRunsBefore
  if (total !== TOO_LONG) for (let p = 0; p < path.length; p += 3) memo.set(path[p], path[p + 1], total === CONTINUATION_FAILS ? total : total - path[p + 2])
  return total !== CONTINUATION_FAILS && total !== TOO_LONG && total < maxSteps
}
