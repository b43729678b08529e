// Message sequence chart on the host: the core's chart (src/core/chart.ts) with times
// printed to the millisecond when they are not whole.

import { chartLine, formatSummary as chartSummary } from "../../src/core/chart"
import type { Summary } from "../../src/core/summary"
import type { TraceRecord } from "../../src/core/trace"

export function formatTime(t: number): string {
  return Number.isInteger(t) ? String(t) : t.toFixed(3)
}

/** One line for a trace record, or null for records the chart leaves out. */
export function formatRecord(r: TraceRecord): string | null {
  return chartLine(r, formatTime)
}

export function formatSummary(s: Summary): string {
  return chartSummary(s, formatTime)
}
