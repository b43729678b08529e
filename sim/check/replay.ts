// A counterexample of `electlab check` as a scenario file that `electlab sim --scenario`
// (and the golden runner) replays: real times for the trace's steps, found as a simple
// temporal network (Bellman-Ford on difference constraints): steps in order, at least
// EPSILON apart; a timer fires exactly its delay after it was set; a timer cancelled or
// still armed was not yet due. Message delays follow from the times (`script delays=`),
// crashes, recoveries and detections become `at T ...` commands.

import { MAX_TIMERS } from "../../src/core/contract"
import { algorithmName } from "../../src/core/algorithms"
import { CHECK_GROUP, CHECK_SEED, checkTiming, detectionOf, EventType, initialState, type ModelConfig, type StepRecord } from "./model"

/** Least time between two steps: a power of two, so that sums stay exact. */
const EPSILON = 1 / 4096

interface Edge {
  from: number
  to: number
  weight: number
}

/** Times of the steps (index 0 is the start, at 0), or null when no real-time schedule exists. */
export function solveTimes(config: ModelConfig, steps: StepRecord[]): number[] | null {
  const count = steps.length + 1
  const edges: Edge[] = []
  // x[to] <= x[from] + weight
  const atMost = (from: number, to: number, weight: number) => edges.push({ from, to, weight })
  for (let k = 1; k < count; k++) atMost(k, k - 1, -EPSILON)
  const open = new Map<number, { at: number; delay: number }>()
  const init = initialState(config)
  for (let slot = 0; slot < init.deadlines.length; slot++)
    if (init.deadlines[slot] >= 0) open.set(slot, { at: 0, delay: init.deadlines[slot] })
  const close = (slot: number, at: number) => {
    const arm = open.get(slot)
    if (!arm) return
    atMost(arm.at, at, arm.delay - EPSILON)
    open.delete(slot)
  }
  steps.forEach((rec, i) => {
    const k = i + 1
    if (rec.event.type === EventType.Fire) {
      const slot = rec.event.a * MAX_TIMERS + rec.event.b
      const arm = open.get(slot)
      if (arm) {
        atMost(arm.at, k, arm.delay)
        atMost(k, arm.at, -arm.delay)
        open.delete(slot)
      }
    }
    for (const op of rec.timerOps) {
      const slot = op.node * MAX_TIMERS + op.timer
      close(slot, k)
      if (op.delay >= 0) open.set(slot, { at: k, delay: op.delay })
    }
  })
  for (const slot of [...open.keys()]) close(slot, count - 1)
  const x = new Array(count).fill(0)
  for (let round = 0; round <= count; round++) {
    let changed = false
    for (const e of edges)
      if (x[e.from] + e.weight < x[e.to] - 1e-12) {
        x[e.to] = x[e.from] + e.weight
        changed = true
      }
    if (!changed) return x.map((v) => v - x[0])
  }
  return null
}

function timeText(t: number): string {
  return String(Math.round(t * 1e9) / 1e9)
}

/** The `script delays=` list: each message's delay by its send order, from the solved times. */
function delaysFor(steps: StepRecord[], times: number[]): string[] {
  const sentAt: number[] = []
  const deliveredAt: number[][] = []
  /** A copy made by a duplication counts as its original (the engine decides copies at send time). */
  const originalOf = new Map<number, number>()
  let replayable = true
  steps.forEach((rec, i) => {
    const k = i + 1
    for (const uid of rec.sent) sentAt[uid] = k
    if (rec.event.type === EventType.Deliver) {
      const uid = originalOf.get(rec.uid) ?? rec.uid
      ;(deliveredAt[uid] ??= []).push(k)
    } else if (rec.event.type === EventType.Duplicate) {
      if (originalOf.has(rec.uid)) replayable = false
      originalOf.set(rec.copyUid, rec.uid)
    }
  })
  if (!replayable) throw new Error("a copy of a copy has no place in the simulator's duplication model")
  const last = times.length - 1
  const out: string[] = []
  for (let uid = 0; uid < sentAt.length; uid++) {
    if (sentAt[uid] === undefined) continue
    const at = deliveredAt[uid] ?? []
    const sent = times[sentAt[uid]]
    const undelivered = times[last] - sent + 1
    // lost, or still in flight when the trace ends (it arrives after the end)
    const lost = steps.some((r) => r.event.type === EventType.Lose && r.uid === uid)
    if (at.length === 0) out.push(lost ? "x" : timeText(undelivered))
    else if (at.length === 1) {
      const copyPending = !lost && steps.some((r) => r.event.type === EventType.Duplicate && r.uid === uid)
      out.push(timeText(times[at[0]] - sent) + (copyPending ? "+" + timeText(undelivered) : ""))
    } else out.push(timeText(times[at[0]] - sent) + "+" + timeText(times[at[1]] - sent))
  }
  return out
}

export interface WrittenScenario {
  text: string
  /** Time of the last step: `run until=` this. */
  end: number
}

/** The scenario text of a counterexample; throws when the trace has no real-time schedule. */
export function counterexampleScenario(config: ModelConfig, steps: StepRecord[], header: string[]): WrittenScenario {
  const times = solveTimes(config, steps)
  if (!times) throw new Error("the trace has no real-time schedule (timers could not fire in this order on one clock)")
  const ids = Array.from({ length: config.nodes }, (_, i) => i + 1)
  const timing = checkTiming(detectionOf(config))
  // the nodes' own failure detector, when the model ran it
  const detector = timing.heartbeatInterval > 0 ? ` heartbeat=${timing.heartbeatInterval} failure-timeout=${timing.failureTimeout}` : ""
  const lines = [
    ...header.map((h) => `# ${h}`),
    "# the steps at the times replayed:",
    ...steps.map((r, i) => `#   ${i + 1}. t=${timeText(times[i + 1])}: ${r.text}`),
    "",
    `cluster algorithm=${algorithmName(config.algorithm)} ids=${ids.join(",")} seed=${CHECK_SEED} group=${CHECK_GROUP} answer-timeout=${timing.answerTimeout} coordinator-timeout=${timing.coordinatorTimeout}${detector}`,
  ]
  const delays = delaysFor(steps, times)
  if (delays.length > 0) lines.push(`script delays=${delays.join(",")}`)
  const verbs: Partial<Record<EventType, string>> = {
    [EventType.Crash]: "crash",
    [EventType.Recover]: "recover",
    [EventType.Detect]: "detect",
  }
  steps.forEach((r, i) => {
    const verb = verbs[r.event.type]
    if (verb) lines.push(`at ${timeText(times[i + 1])} ${verb} ${r.event.a + 1}`)
  })
  // half a step past the last one: printed times are rounded, the last delivery must land
  const end = times[times.length - 1] + EPSILON / 2
  lines.push(`run until=${timeText(end)}`, "status", "check")
  return { text: lines.join("\n") + "\n", end }
}
