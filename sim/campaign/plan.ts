// One seed decides one run, in the manner of TigerBeetle's VOPR: cluster size, ids and
// their ring order, bid-ring suitability, echo's topology, the network model (bus or wifi)
// and the fault schedule of the family. A plan is a scenario (plain commands), so a run
// replays with `electlab sim --scenario` exactly as the campaign ran it.

import { algorithmName, descriptorOf } from "../../src/core/algorithms"
import { makeBid } from "../../src/core/bid-ring"
import { convergenceAfterFaults } from "../../src/core/bounds"
import { MAX_NODES } from "../../src/core/limits"
import { Rng } from "../simulator/rng"
import type { Delivery } from "../config/input"

export const CAMPAIGN_FAMILIES = [
  "coordinator-crash",
  "false-suspicion",
  "crashes",
  "link-faults",
  "partitions",
  "mixed",
] as const
export type Family = (typeof CAMPAIGN_FAMILIES)[number]

/**
 * The boards' two timings in ms, failure detector on: `wifi`, the manifest's pace for a
 * broker (heartbeat 250 ms), and `bus`, a wired bus's fast one (heartbeat 50 ms). The fault
 * schedules scale with the failure timeout.
 */
export const CAMPAIGN_TIMINGS = {
  wifi: { answerTimeout: 300, coordinatorTimeout: 600, heartbeatInterval: 250, failureTimeout: 800 },
  bus: { answerTimeout: 40, coordinatorTimeout: 100, heartbeatInterval: 50, failureTimeout: 250 },
} as const
export type TimingName = keyof typeof CAMPAIGN_TIMINGS
export const TIMING_NAMES = Object.keys(CAMPAIGN_TIMINGS) as TimingName[]
/** Faults happen in the first FAULT_TIMEOUTS failure timeouts ... */
export const FAULT_TIMEOUTS = 10
/**
 * ... then, once the last frame they delayed has landed (sim/simulator/faults.ts
 * `heldUntil`), the network is quiet for QUIET_TIMEOUTS of them ...
 */
export const QUIET_TIMEOUTS = 20
/**
 * ... and nothing may change in the last STABLE_TIMEOUTS of those, nor after the
 * algorithm's convergence bound where that comes sooner: a user sees a cluster settled
 * within 10 failure timeouts of the quiet network, whatever the algorithm's bound.
 */
export const STABLE_TIMEOUTS = 10
/** Election messages in flight at once, per n², past which a run counts as a storm. */
export const IN_FLIGHT_PER_N2 = 8
/** Election messages allowed per process and failure timeout before a run counts as a storm. */
export const MESSAGES_PER_PROCESS_AND_TIMEOUT = 40
/** Events at one instant before the clock counts as stalled (a settled run of 7 has a few dozen at most). */
export const INSTANT_EVENTS = 10_000

export interface Plan {
  seed: number
  algorithm: number
  family: Family
  /** The failure detector and the delivery the run was made with (its cluster line says them too). */
  detector: string
  delivery: Delivery
  timing: TimingName
  ids: number[]
  /** Scenario commands: cluster, then the fault schedule (`at T ...`) in time order. */
  cluster: string
  faults: string[]
  faultEnd: number
  /** The end and the start of the stable part when no frame lands after faultEnd (`judgeCommands` moves both on). */
  end: number
  stableSince: number
  /** The algorithm's convergence bound for this cluster (ms after faultEnd). */
  bound: number
  /** Most election messages allowed in flight at once. */
  inFlightBudget: number
}

/** Mixes seed and family into one 32-bit stream seed; the algorithm is left out so every algorithm meets the same clusters and faults. */
function streamSeed(seed: number, family: Family): number {
  let h = (seed ^ 0x85ebca6b) >>> 0
  const f = CAMPAIGN_FAMILIES.indexOf(family) + 1
  h = Math.imul(h ^ (h >>> 16), 0x7feb352d) >>> 0
  h = (h + Math.imul(f, 0x9e3779b9)) >>> 0
  h = Math.imul(h ^ (h >>> 15), 0x846ca68b) >>> 0
  return (h ^ (h >>> 16)) >>> 0
}

class Draw {
  constructor(private rng: Rng) {}
  real(lo: number, hi: number): number {
    return lo + this.rng.next() * (hi - lo)
  }
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.rng.next() * (hi - lo + 1))
  }
  chance(p: number): boolean {
    return this.rng.next() < p
  }
  pick<T>(list: readonly T[]): T {
    return list[Math.floor(this.rng.next() * list.length)]
  }
  shuffle<T>(list: T[]): T[] {
    for (let i = list.length - 1; i > 0; i--) {
      const j = Math.floor(this.rng.next() * (i + 1))
      ;[list[i], list[j]] = [list[j], list[i]]
    }
    return list
  }
  /** A time in ms, to 2 decimals so that scenario files print it exactly. */
  time(lo: number, hi: number): number {
    return Math.round(this.real(lo, hi) * 100) / 100
  }
}

/** Grid shapes echo can use for n processes. */
function gridsFor(n: number): string[] {
  const grids: string[] = []
  for (let r = 2; r * 2 <= n; r++) if (n % r === 0) grids.push(`grid:${r}x${n / r}`)
  return grids
}

export function makePlan(
  seed: number,
  algorithm: number,
  family: Family,
  detector = "fixed",
  delivery: Delivery = "destinations",
  timingName: TimingName = "wifi",
): Plan {
  const timing = CAMPAIGN_TIMINGS[timingName]
  const d = new Draw(new Rng(streamSeed(seed, family)))
  const n = d.int(3, MAX_NODES)
  // distinct ids from 1..3n, in a random ring order
  const pool = d.shuffle(Array.from({ length: 3 * n }, (_, i) => i + 1))
  const ids = d.shuffle(pool.slice(0, n))
  const drawn = d.pick(["bus", "wifi"] as const)
  // the bus timing's T (40 ms) is shorter than a broker's round trip: it runs on the bus only
  const network = timingName === "bus" ? "bus" : drawn
  const suitability = ids.map(() => (d.chance(0.5) ? 0 : d.int(0, 3)))
  const topology = d.pick(["complete", "ring", ...gridsFor(n)])
  const ft = timing.failureTimeout
  const faultEnd = FAULT_TIMEOUTS * ft
  const bound = Math.ceil(convergenceAfterFaults(descriptorOf(algorithm).electionBound(n, timing), timing))
  const end = faultEnd + QUIET_TIMEOUTS * ft
  const stableSince = Math.min(end - STABLE_TIMEOUTS * ft, faultEnd + bound)
  const args = [
    `algorithm=${algorithmName(algorithm)}`,
    `ids=${ids.join(",")}`,
    `network=${network}`,
    `seed=${seed}`,
    `answer-timeout=${timing.answerTimeout}`,
    `coordinator-timeout=${timing.coordinatorTimeout}`,
    `heartbeat=${timing.heartbeatInterval}`,
    `failure-timeout=${ft}`,
    `message-budget=${MESSAGES_PER_PROCESS_AND_TIMEOUT * n * Math.ceil((end + QUIET_TIMEOUTS * ft) / ft)}`,
    `in-flight-budget=${IN_FLIGHT_PER_N2 * n * n}`,
    `instant-events=${INSTANT_EVENTS}`,
  ]
  if (detector !== "fixed") args.push(`failure-detector=${detector}`)
  if (delivery !== "destinations") args.push(`delivery=${delivery}`)
  const descriptor = descriptorOf(algorithm)
  if (descriptor.usesSuitability) args.push(`suitability=${suitability.join(",")}`)
  if (descriptor.usesGraph && topology !== "complete") args.push(`topology=${topology}`)

  // rank as the checker sees it: the bid (suitability prefix, then id) where bids carry one, the id elsewhere
  const rank = (id: number) => (descriptor.usesSuitability ? makeBid(suitability[ids.indexOf(id)], id) : id)
  const byRank = [...ids].sort((a, b) => rank(b) - rank(a))
  const faults: { time: number; command: string }[] = []
  const at = (time: number, command: string) => faults.push({ time, command })
  const down = new Set<number>() // coordinators crashed so far
  const start = ft // the first failure timeout: the cluster settles into its initial state

  const coordinatorCrashes = () => {
    // the initial coordinator (highest id) first; later the one the property expects
    let t = d.time(start, start + 2 * ft)
    let victim = Math.max(...ids)
    const crashes = d.int(1, Math.min(2, n - 1))
    for (let k = 0; k < crashes; k++) {
      at(t, `crash ${victim}`)
      down.add(victim)
      // the crashed coordinator may come back while the others elect (detection after F)
      if (d.chance(0.3)) {
        at(Math.min(faultEnd, d.time(t + ft, t + ft + 2 * timing.coordinatorTimeout)), `recover ${victim}`)
        down.delete(victim)
      }
      t = d.time(t + 5 * ft, t + 6 * ft)
      if (t >= faultEnd) break
      victim = byRank.find((id) => !down.has(id))!
    }
  }
  const falseSuspicions = () => {
    for (let k = d.int(1, 3); k > 0; k--) {
      const who = d.pick(ids)
      at(d.time(start, faultEnd - ft), `detect ${who}`)
    }
    for (let k = d.int(0, 2); k > 0; k--) {
      at(d.time(start, faultEnd - ft), `freeze ${d.pick(byRank.slice(0, 2))} for=${d.time(0.2 * ft, 0.9 * ft)}`)
    }
  }
  const crashStorm = () => {
    for (let k = d.int(2, 6); k > 0; k--) {
      const who = d.pick(ids)
      const t = d.time(start, faultEnd - ft)
      at(t, `crash ${who}`)
      // most come back, some within the fault phase, some stay down
      if (d.chance(0.8)) at(Math.min(faultEnd, d.time(t + 0.1 * ft, t + 3 * ft)), `recover ${who}`)
    }
    if (d.chance(0.5)) {
      // a storm that takes half the cluster within one failure timeout, the coordinator
      // among them; some come back while the others elect
      const t = d.time(start, faultEnd - 3 * ft)
      const victims = [byRank[0], ...d.shuffle(byRank.slice(1)).slice(0, Math.floor(n / 2) - 1)]
      for (const who of victims) {
        const when = d.time(t, t + ft)
        at(when, `crash ${who}`)
        if (d.chance(0.6)) at(Math.min(faultEnd, d.time(when + ft, when + ft + 2 * timing.coordinatorTimeout)), `recover ${who}`)
      }
    }
  }
  const linkFaults = () => {
    let t = d.time(start, start + ft)
    for (let k = d.int(1, 3); k > 0 && t < faultEnd; k--) {
      // one in three phases: everything at once, loss up to 30 % with spikes and reordering
      const all = d.chance(1 / 3)
      const parts = [`loss=${all || d.chance(0.8) ? Math.round(d.real(all ? 0.1 : 0, 0.3) * 100) / 100 : 0}`]
      if (all || d.chance(0.5)) parts.push(`duplicate=${Math.round(d.real(0, 0.2) * 100) / 100}`)
      if (all || d.chance(0.5)) parts.push(`spike=${Math.round(d.real(0, 0.1) * 100) / 100}`, `spike-delay=${d.int(Math.round(ft / 8), 2 * ft)}`)
      // reordering up to an eighth of a failure timeout, or all at once up to one (past T: ACKs arrive late)
      if (all || d.chance(0.5)) parts.push(`reorder=${d.int(1, all ? ft : Math.round(ft / 8))}`)
      // a slow link that keeps order, up to two failure timeouts, and all delays stretched
      // up to 8 times out of order: frames of the faults still land seconds after them
      if (all || d.chance(0.4)) parts.push(`delay=${d.int(1, 2 * ft)}`)
      if (all || d.chance(0.25)) parts.push(`scale=${Math.round(d.real(1, 8) * 100) / 100}`)
      at(t, `faults ${parts.join(" ")}`)
      // for a while, one process's links reorder on top (a station far from the others)
      if (d.chance(0.4)) {
        const from = d.time(t, t + ft)
        const fault = `faults on=${d.pick(ids)} reorder=${d.int(1, Math.round(1.5 * ft))}`
        // not past the faults' end: `faults none` there must end it
        if (from < faultEnd) at(from, fault)
      }
      t = d.time(t + ft, t + 4 * ft)
    }
    if (d.chance(0.3)) at(d.time(start, faultEnd - ft), `crash ${Math.max(...ids)}`)
  }
  const partitions = () => {
    let t = d.time(start, start + 2 * ft)
    for (let k = d.int(1, 3); k > 0 && t < faultEnd; k--) {
      const order = d.shuffle([...ids])
      const cut = d.int(1, n - 1)
      const a = order.slice(0, cut).join(",")
      const b = order.slice(cut).join(",")
      at(t, `partition ${d.chance(0.3) ? `${a}->${b}` : `${a}|${b}`}`)
      const heal = Math.min(faultEnd, d.time(t + 0.5 * ft, t + 4 * ft))
      at(heal, "heal")
      t = d.time(heal, heal + 2 * ft)
    }
    if (d.chance(0.5)) {
      // a partition that flaps: cut and healed every fraction of a failure timeout
      const order = d.shuffle([...ids])
      const cut = d.int(1, n - 1)
      const text = `${order.slice(0, cut).join(",")}|${order.slice(cut).join(",")}`
      let f = d.time(start, faultEnd - 3 * ft)
      for (let k = d.int(2, 8); k > 0 && f < faultEnd - ft; k--) {
        at(f, `partition ${text}`)
        f = d.time(f + 0.1 * ft, f + ft)
        at(Math.min(faultEnd, f), "heal")
        f = d.time(f + 0.1 * ft, f + ft)
      }
    }
    for (let k = d.int(0, 2); k > 0; k--) {
      const t0 = d.time(start, faultEnd - ft)
      at(t0, `freeze ${d.pick(ids)} for=${Math.min(faultEnd - t0, d.time(0.2 * ft, 3 * ft))}`)
    }
  }

  switch (family) {
    case "coordinator-crash":
      coordinatorCrashes()
      break
    case "false-suspicion":
      falseSuspicions()
      break
    case "crashes":
      crashStorm()
      break
    case "link-faults":
      linkFaults()
      break
    case "partitions":
      partitions()
      break
    case "mixed": {
      const kinds = [falseSuspicions, crashStorm, linkFaults, partitions]
      const chosen = kinds.filter(() => d.chance(0.5))
      if (chosen.length === 0) chosen.push(d.pick(kinds))
      for (const k of chosen) k()
      break
    }
  }
  faults.sort((a, b) => a.time - b.time)
  // keep at least one process alive at the end
  const up = new Set(ids)
  for (const f of faults) {
    const [verb, who] = f.command.split(" ")
    if (verb === "crash") up.delete(Number(who))
    else if (verb === "recover") up.add(Number(who))
  }
  if (up.size === 0) at(faultEnd, `recover ${byRank[byRank.length - 1]}`)
  const lines = faults.map((f) => `at ${f.time} ${f.command}`)
  if (family === "link-faults" || family === "mixed") lines.push(`at ${faultEnd} faults none`)
  if (family === "partitions" || family === "mixed") lines.push(`at ${faultEnd} heal`)
  return {
    seed,
    algorithm,
    family,
    detector,
    delivery,
    timing: timingName,
    ids,
    cluster: `cluster ${args.join(" ")}`,
    faults: lines,
    faultEnd,
    end,
    stableSince,
    bound,
    inFlightBudget: IN_FLIGHT_PER_N2 * n * n,
  }
}

/** The cluster and the faults, run to their end. */
export function faultCommands(plan: Plan, faults: string[] = plan.faults): string[] {
  return [plan.cluster, ...faults, `run until=${plan.faultEnd}`]
}

/**
 * The quiet phase and its verdict, from `quietAt`: the later of the faults' end and the
 * landing of the last frame they delayed (a frame held for seconds is part of the faults).
 */
export function judgeCommands(plan: Plan, quietAt: number): string[] {
  const ft = CAMPAIGN_TIMINGS[plan.timing].failureTimeout
  const q = Math.max(plan.faultEnd, Math.ceil(quietAt))
  return [`run until=${q + QUIET_TIMEOUTS * ft}`, `check stable-since=${q + plan.stableSince - plan.faultEnd}`, "status", "summary"]
}
