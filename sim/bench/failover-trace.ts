// Where a failover's time goes, read from the host nodes' log lines: each node logs its
// heartbeats (ELECTLAB_TRACE_HEARTBEATS=1: "hbtx" sent, "hb" received with the suspicion
// delay that follows) and a "clock" line that puts its t=0 on the wall clock, so every line
// lands on the benchmark's own timeline (performance.now() of this process).

import { performance } from "node:perf_hooks"
import type { LogEvent } from "../lab/board-event"

/** One log line of a node, on the benchmark's timeline (ms). */
export interface TracedEvent {
  node: number
  event: string
  fields: Record<string, string>
  /** When the node logged it. */
  at: number
  /** When this process read it. */
  readAt: number
}

/** One trial's failover, in ms after the failure (negative: before it). */
export interface Breakdown {
  /** The old leader's last heartbeat before the failure. */
  lastSent: number | null
  /** The first survivor to suspect: its last heartbeat from the old leader... */
  lastReceived: number | null
  /** ...the suspicion delay D in force after it... */
  delay: number | null
  /** ...and when it suspected (started an election, took over, or acted on the last will). */
  suspected: number | null
  /** With a key: the first survivor to receive the leader's last will, which it then checks by a challenge... */
  hinted: number | null
  /** ...waiting this long for a proof (from its log line; null where the line does not say). */
  wait: number | null
  /** First ELECTION or COORDINATOR frame a survivor sent. */
  firstElectionFrame: number | null
  /** The new coordinator took the role. */
  newCoordinator: number | null
  /** The last survivor reported the new coordinator. */
  allReport: number | null
  /** This process read that last report (the measured failover time). */
  seen: number
}

/** Distribution of gaps between heartbeats (ms). */
export interface GapStats {
  count: number
  median: number
  p99: number
  max: number
  /** Gaps of 1.75 periods or more: the detector counts those as lost heartbeats. */
  overOneAndThreeQuarters: number
}

const NOT_YET = Number.NaN

export class TraceLog {
  /** Wall-clock time of each node's t=0, minus ours: node t + offset = our timeline. */
  private offsets = new Map<number, number>()
  private events: TracedEvent[] = []
  private lastSent = new Map<number, number>()
  private lastReceived = new Map<string, number>()
  /** While false (a trial under way), heartbeat gaps are not sampled. */
  private steady = true
  readonly sentGaps: number[] = []
  readonly receivedGaps: number[] = []

  /** Takes one parsed line of node `e.node`. */
  add(e: LogEvent) {
    if (e.event === "clock") {
      this.offsets.set(e.node, Number(e.fields.origin) - performance.timeOrigin)
      // a restarted node starts new series
      this.lastSent.delete(e.node)
      for (const k of [...this.lastReceived.keys()]) if (k.startsWith(`${e.node}<`)) this.lastReceived.delete(k)
      return
    }
    const offset = this.offsets.get(e.node)
    const at = offset === undefined ? NOT_YET : Number(e.fields.t) + offset
    if (e.event === "hbtx") {
      const before = this.lastSent.get(e.node)
      if (this.steady && before !== undefined) this.sentGaps.push(at - before)
      this.lastSent.set(e.node, at)
    } else if (e.event === "hb") {
      const key = `${e.node}<${e.fields.from}`
      const before = this.lastReceived.get(key)
      if (this.steady && before !== undefined) this.receivedGaps.push(at - before)
      this.lastReceived.set(key, at)
    }
    this.events.push({ node: e.node, event: e.event, fields: e.fields, at, readAt: e.at })
    // keep the last few seconds of heartbeats and every other line
    const n = this.events.length
    if (n > 20_000) this.events = this.events.filter((x, i) => (x.event !== "hb" && x.event !== "hbtx") || i >= n - 2000)
  }

  /** Sample gaps (a steady cluster) or not (a trial under way); each steady stretch starts new series. */
  setSteady(on: boolean) {
    this.steady = on
    if (on) {
      this.lastSent.clear()
      this.lastReceived.clear()
    }
  }

  /** A new series (the gaps of another run). */
  resetGaps() {
    this.sentGaps.length = 0
    this.receivedGaps.length = 0
  }

  /**
   * The failover of `leader` at `failedAt` (our timeline), which the benchmark saw settled
   * on `coordinator` at `seenAt`.
   */
  breakdown(leader: number, survivors: number[], coordinator: number, failedAt: number, seenAt: number): Breakdown {
    const rel = (t: number | undefined) => (t === undefined || Number.isNaN(t) ? null : Math.round((t - failedAt) * 10) / 10)
    const window = this.events.filter((e) => e.at >= failedAt - 1000 && e.readAt <= seenAt + 1)
    const after = window.filter((e) => e.at >= failedAt)
    const lastSent = window.filter((e) => e.node === leader && e.event === "hbtx" && e.at < failedAt).at(-1)?.at
    // the first survivor to act on the failure
    const suspicions = after.filter(
      (e) => survivors.includes(e.node) && ((e.event === "role" && e.fields.r !== "follower") || e.event === "left"),
    )
    const first = suspicions[0]
    const heartbeats = first
      ? window.filter((e) => e.node === first.node && e.event === "hb" && e.fields.from === String(leader) && e.at <= first.at)
      : []
    const last = heartbeats.at(-1)
    // the check that led to the suspicion: of the last will (kill), or of the late heartbeat (the early probe)
    const checkOf = (e: TracedEvent) => e.event === "hint" && (e.fields.left === String(leader) || e.fields.late === String(leader))
    const hint = after.find((e) => e.node === first?.node && checkOf(e)) ?? after.find((e) => survivors.includes(e.node) && checkOf(e))
    const electionFrame = after.find(
      (e) => survivors.includes(e.node) && e.event === "tx" && (e.fields.k === "ELECTION" || e.fields.k === "COORDINATOR"),
    )
    const won = after.find((e) => e.node === coordinator && e.event === "role" && e.fields.r === "coordinator")
    let allReport: number | undefined
    for (const s of survivors) {
      const settled = after.filter(
        (e) => e.node === s && e.event === "role" && e.fields.c === String(coordinator) && e.fields.r !== "electing",
      )[0]
      if (!settled) allReport = NOT_YET
      else if (allReport === undefined || settled.at > allReport) allReport = settled.at
    }
    return {
      lastSent: rel(lastSent),
      lastReceived: rel(last?.at),
      delay: last ? Number(last.fields.d) : null,
      suspected: rel(first?.at),
      hinted: rel(hint?.at),
      wait: hint?.fields.wait === undefined ? null : Number(hint.fields.wait),
      firstElectionFrame: rel(electionFrame?.at),
      newCoordinator: rel(won?.at),
      allReport: rel(allReport),
      seen: rel(seenAt)!,
    }
  }
}

export function gapStats(gaps: number[], period: number): GapStats {
  const s = [...gaps].sort((a, b) => a - b)
  const at = (q: number) => (s.length ? s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)] : 0)
  const r = (x: number) => Math.round(x * 10) / 10
  return {
    count: s.length,
    median: r(at(0.5)),
    p99: r(at(0.99)),
    max: r(s.at(-1) ?? 0),
    overOneAndThreeQuarters: s.filter((g) => g >= 1.75 * period).length,
  }
}

/** Medians of each part of the breakdowns: where the time went, in one line each. */
export interface BreakdownSummary {
  trials: number
  /** Failure after the last heartbeat sent (the phase). */
  phase: number | null
  /** Silence before the first suspicion: last heartbeat received to suspicion. */
  silence: number | null
  /** D at the last heartbeat received. */
  delay: number | null
  /** Suspicion later than D said (timer and event-loop lateness). */
  timerLate: number | null
  /** With a key: the last will's arrival to the verdict of its check... */
  check: number | null
  /** ...and the wait for a proof it set. */
  wait: number | null
  /** First suspicion to the last survivor's report (the election itself). */
  election: number | null
  /** Last report to the benchmark seeing it (pipes and polling). */
  reportLag: number | null
}

export function summarise(all: Breakdown[]): BreakdownSummary {
  const median = (xs: (number | null)[]) => {
    const s = xs.filter((x): x is number => x !== null && Number.isFinite(x)).sort((a, b) => a - b)
    if (!s.length) return null
    const m = s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2
    return Math.round(m * 10) / 10
  }
  const diff = (a: number | null, b: number | null) => (a === null || b === null ? null : a - b)
  return {
    trials: all.length,
    phase: median(all.map((b) => (b.lastSent === null ? null : -b.lastSent))),
    silence: median(all.map((b) => diff(b.suspected, b.lastReceived))),
    delay: median(all.map((b) => b.delay)),
    timerLate: median(all.map((b) => (b.delay === null ? null : diff(diff(b.suspected, b.lastReceived), b.delay)))),
    check: median(all.map((b) => diff(b.suspected, b.hinted))),
    wait: median(all.map((b) => b.wait)),
    election: median(all.map((b) => diff(b.allReport, b.suspected))),
    reportLag: median(all.map((b) => diff(b.seen, b.allReport))),
  }
}
