// The message sequence chart: one line per trace record, the summary and status lines,
// stable so golden files can diff them. Portable, so the DeviceScript VM prints the very
// lines the golden files expect (test/vm/golden-1.vm.ts, golden-2.vm.ts).

import { labelsOf } from "./algorithms"
import { Summary } from "./summary"
import { Frame, kindName } from "./frame"
import { mod } from "./portable"
import { NO_NODE, Role, roleName } from "./contract"
import { ElectionNode } from "./node"
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

/** A frame as its algorithm's chart shows it (its module's labels). */
export function describeFrame(frame: Frame): string {
    return describeWith(labelsOf(frame.algorithm).frames, frame)
}

/**
 * A frame as a chart shows it: its kind's template from `labels`, or its kind's name. In a
 * template, {epoch}, {initiator} and {bid} are those fields, {list} the list joined by
 * commas, {bid:rank} the bid as formatBid writes it, {list:none} the list or "none", and
 * {initiator:known} the initiator when bid is 1, else "unknown".
 */
export function describeWith(labels: string[], frame: Frame): string {
    const name = kindName(frame.kind)
    for (let i = 0; i < labels.length; i++) {
        const t = labels[i]
        if (t !== name && t.indexOf(name + " ") !== 0) continue
        let out = ""
        let at = 0
        while (at < t.length) {
            const open = t.indexOf("{", at)
            if (open < 0) break
            const close = t.indexOf("}", open)
            out += t.slice(at, open) + labelField(t.slice(open + 1, close), frame)
            at = close + 1
        }
        return out + t.slice(at)
    }
    return name
}

function labelField(key: string, frame: Frame): string {
    if (key === "epoch") return "" + frame.epoch
    if (key === "initiator") return "" + frame.initiator
    if (key === "bid") return "" + frame.bid
    if (key === "list") return frame.list.join(",")
    if (key === "bid:rank") return formatBid(frame.bid)
    if (key === "list:none") return frame.list.length > 0 ? frame.list.join(",") : "none"
    if (key === "initiator:known") return frame.bid === 1 ? "" + frame.initiator : "unknown"
    return "{" + key + "}"
}

/** A bid as the id, or suitability:id when a suitability prefix is set. */
export function formatBid(bid: number): string {
    const suitability = Math.floor(bid / 65536)
    const id = mod(bid, 65536)
    return suitability > 0 ? suitability + ":" + id : "" + id
}
