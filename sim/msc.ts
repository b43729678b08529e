// Message sequence chart: one line per trace record, stable so golden files can diff it.

import { type TraceRecord, TraceType, type Summary, countsByKindName } from "../src/core/engine"
import { describeFrame } from "../src/core/algorithms"
import { kindName } from "../src/core/frame"
import { Role, NO_NODE, roleName } from "../src/core/node"

export function formatTime(t: number): string {
  return Number.isInteger(t) ? String(t) : t.toFixed(3)
}

/** Bids print as the id, or suitability:id when a suitability prefix is set. */
export { formatBid } from "../src/core/descriptor"

/** One line for a trace record, or null for records the chart leaves out. */
export function formatRecord(r: TraceRecord): string | null {
  const at = `t=${formatTime(r.time)} `
  switch (r.type) {
    case TraceType.Send:
      return `${at}${r.node} -> ${r.to.join(",")} ${describeFrame(r.frame)}`
    case TraceType.Lost:
      return `${at}${r.node} -> ${r.to[0]} ${kindName(r.frame.kind)} lost`
    case TraceType.DroppedAtCrashed:
      return `${at}${r.to[0]} is down: ${kindName(r.frame.kind)} from ${r.node} dropped`
    case TraceType.Timeout:
      return `${at}${r.node} timeout: ${r.text}`
    case TraceType.Crash:
      return `${at}${r.node} crashes`
    case TraceType.Recover:
      return `${at}${r.node} recovers`
    case TraceType.Detect:
      return `${at}${r.node} notices the coordinator is not answering`
    case TraceType.RoleChange:
      return formatRole(at, r)
    case TraceType.Freeze:
      return `${at}${r.node} freezes for ${r.text}`
    case TraceType.Thaw:
      return `${at}${r.node} thaws`
    case TraceType.DroppedAtFrozen:
      return `${at}${r.to[0]} is frozen: ${kindName(r.frame.kind)} from ${r.node} dropped`
    case TraceType.Duplicate:
      return `${at}${r.node} -> ${r.to[0]} ${kindName(r.frame.kind)} duplicated`
    default:
      return null
  }
}

function formatRole(at: string, r: TraceRecord): string | null {
  switch (r.role) {
    case Role.Crashed:
      return null // the crash line says it
    case Role.Coordinator:
      return `${at}${r.node} is coordinator (epoch ${r.epoch})`
    case Role.Follower:
      return r.coordinator === NO_NODE
        ? `${at}${r.node} knows no coordinator`
        : `${at}${r.node} follows ${r.coordinator}`
    default:
      return `${at}${r.node} ${roleName(r.role)}`
  }
}

export function formatCounts(byKind: number[]): string {
  const named = countsByKindName(byKind)
  const parts = Object.entries(named).map(([k, v]) => `${k} ${v}`)
  return parts.length ? ` (${parts.join(", ")})` : ""
}

export function formatSummary(s: Summary): string {
  const coordinator = s.coordinator === NO_NODE ? "none" : String(s.coordinator)
  const violations = s.violations.length ? s.violations.join("; ") : "none"
  return (
    `coordinator ${coordinator} · agreement ${s.agreement ? "yes" : "no"} · ` +
    `messages ${s.messages}${formatCounts(s.byKind)} · frames ${s.frames} · ` +
    `heartbeats ${s.heartbeats} · election time ${formatTime(s.electionTime)} · violations ${violations}`
  )
}
