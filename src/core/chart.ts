// The message sequence chart: one line per trace record, the summary and status lines,
// stable so golden files can diff them. Portable, so the DeviceScript VM prints the very
// lines the golden files expect (test/vm/golden-1.vm.ts, golden-2.vm.ts).

import { describeFrame } from "./algorithms"
import { Summary } from "./summary"
import { kindName } from "./frame"
import { ElectionNode, NO_NODE, Role, roleName } from "./node"
import { RoleRecord, TraceRecord, TraceType } from "./trace"

/** How a chart prints a time; the default prints it as a plain number. */
export type TimeText = (time: number) => string

function plainTime(time: number): string {
    return "" + time
}

/** One line for a trace record, or null for records the chart leaves out. */
export function chartLine(r: TraceRecord, timeText: TimeText = plainTime): string {
    const at = "t=" + timeText(r.time) + " "
    switch (r.type) {
        case TraceType.Send:
            return at + r.node + " -> " + r.to.join(",") + " " + describeFrame(r.frame)
        case TraceType.Lost:
            return at + r.node + " -> " + r.dst + " " + kindName(r.frame.kind) + " lost"
        case TraceType.DroppedAtCrashed:
            return at + r.dst + " is down: " + kindName(r.frame.kind) + " from " + r.node + " dropped"
        case TraceType.DroppedAtFrozen:
            return at + r.dst + " is frozen: " + kindName(r.frame.kind) + " from " + r.node + " dropped"
        case TraceType.Duplicate:
            return at + r.node + " -> " + r.dst + " " + kindName(r.frame.kind) + " duplicated"
        case TraceType.Timeout:
            return at + r.node + " timeout: " + r.timer
        case TraceType.Crash:
            return at + r.node + " crashes"
        case TraceType.Recover:
            return at + r.node + " recovers"
        case TraceType.Detect:
            return at + r.node + " notices the coordinator is not answering"
        case TraceType.Freeze:
            return at + r.node + " freezes for " + r.duration
        case TraceType.Thaw:
            return at + r.node + " thaws"
        case TraceType.RoleChange:
            return roleLine(at, r)
        default:
            return null
    }
}

function roleLine(at: string, r: RoleRecord): string {
    if (r.role === Role.Crashed) return null // the crash line says it
    if (r.role === Role.Coordinator) return at + r.node + " is coordinator (epoch " + r.epoch + ")"
    if (r.role === Role.Follower)
        return r.coordinator === NO_NODE ? at + r.node + " knows no coordinator" : at + r.node + " follows " + r.coordinator
    return at + r.node + " " + roleName(r.role)
}

/** Message counts by kind name, only the kinds that occurred, in kind order. */
export function countsByKindName(byKind: number[]): { [kind: string]: number } {
    const named: { [kind: string]: number } = {}
    for (let k = 1; k < byKind.length; k++) if (byKind[k] > 0) named[kindName(k)] = byKind[k]
    return named
}

/** " (ELECTION 6, OK 3)": the kinds that occurred, in kind order; "" when none did. */
export function formatCounts(byKind: number[]): string {
    const named = countsByKindName(byKind)
    const parts = Object.keys(named).map(kind => kind + " " + named[kind])
    return parts.length > 0 ? " (" + parts.join(", ") + ")" : ""
}

export function formatSummary(s: Summary, timeText: TimeText = plainTime): string {
    const coordinator = s.coordinator === NO_NODE ? "none" : "" + s.coordinator
    const violations = s.violations.length > 0 ? s.violations.join("; ") : "none"
    return (
        "coordinator " + coordinator + " · agreement " + (s.agreement ? "yes" : "no") +
        " · messages " + s.messages + formatCounts(s.byKind) + " · frames " + s.frames +
        " · heartbeats " + s.heartbeats + " · election time " + timeText(s.electionTime) +
        " · violations " + violations
    )
}

/** "4 follower, coordinator 6, epoch 1" or "7 crashed". */
export function formatStatus(node: ElectionNode): string {
    if (node.role === Role.Crashed) return node.id + " crashed"
    const who = node.coordinator === NO_NODE ? "none" : "" + node.coordinator
    return node.id + " " + roleName(node.role) + ", coordinator " + who + ", epoch " + node.epoch
}
