// Stalls of the lab's processes: a board's process, or the lab's own (which carries the bus),
// that did not run for a while. A timing-bound algorithm (a Bully waits T for an answer) may
// elect two coordinators when a process stalls for a good part of T: the lab reports, beside
// each transition, the longest stall any of its processes had in it, so that a red run says
// whether the host or the election was at fault.

import { performance } from "node:perf_hooks"
import { fileURLToPath } from "node:url"

/** What every member's process preloads (`node --require`): this probe, and the bus port. */
export const LAB_PRELOAD = fileURLToPath(new URL("./lab-preload.cjs", import.meta.url))

/** A process that did not run from `to - ms` to `to` (host ms). */
export interface Stall {
  /** A board's node id, or "lab". */
  source: number | "lab"
  to: number
  ms: number
}

/** How long this process's timers may be late before a stall counts (the probe's threshold). */
const LAB_REPORT_MS = 30
const LAB_PERIOD_MS = 20
/** Stalls older than this are forgotten (the longest transition is shorter). */
const KEEP_MS = 120_000

export class HostStalls {
  private stalls: Stall[] = []
  private timer: NodeJS.Timeout | null = null

  /** Watches the lab's own process too (a stalled lab delays every frame on the bus). */
  watchSelf() {
    let due = performance.now() + LAB_PERIOD_MS
    const tick = () => {
      const now = performance.now()
      const late = Math.round(now - due)
      if (late >= LAB_REPORT_MS) this.record("lab", now, late)
      due = now + LAB_PERIOD_MS
      this.timer = setTimeout(tick, LAB_PERIOD_MS)
      this.timer.unref()
    }
    this.timer = setTimeout(tick, LAB_PERIOD_MS)
    this.timer.unref()
  }

  stop() {
    if (this.timer) clearTimeout(this.timer)
    this.timer = null
  }

  /** A stall that ended at `to` (host ms; a board's line arrives when its process runs again). */
  record(source: number | "lab", to: number, ms: number) {
    this.stalls.push({ source, to, ms })
    if (this.stalls.length > 1000 || this.stalls[0].to < to - KEEP_MS) this.stalls = this.stalls.filter((s) => s.to >= to - KEEP_MS)
  }

  /** Per process, its longest stall that overlaps [from, to], longest first. */
  worstBetween(from: number, to: number): { source: number | "lab"; ms: number }[] {
    const worst = new Map<number | "lab", number>()
    for (const s of this.stalls) if (s.to > from && s.to - s.ms < to) worst.set(s.source, Math.max(worst.get(s.source) ?? 0, s.ms))
    return [...worst].map(([source, ms]) => ({ source, ms })).sort((a, b) => b.ms - a.ms)
  }
}

/** "11: 240 ms, lab: 60 ms" (the three longest). */
export function describeStalls(worst: { source: number | "lab"; ms: number }[]): string {
  return worst
    .slice(0, 3)
    .map((w) => `${w.source}: ${w.ms} ms`)
    .join(", ")
}
