// What the engine reports as it runs: one record per event that a message sequence
// chart shows, and a digest of them all to compare two runs (Node against the VM).

import { Role, TIMER_ALGORITHM, TIMER_CONTEST, TIMER_DEADLINE, TIMER_HANDOVER, TIMER_HEARTBEAT, TIMER_WATCH } from "./contract"
import { Frame } from "./frame"
import { mod } from "./portable"

/** What a trace calls timer `timer` of a node whose algorithm labels its own timers `labels` (labelsOf's timers). */
export function timerName(labels: string[], timer: number): string {
    if (timer === TIMER_HANDOVER) return "no RESIGN within T"
    if (timer === TIMER_HEARTBEAT) return "heartbeat"
    if (timer === TIMER_WATCH) return "coordinator silent"
    if (timer === TIMER_DEADLINE) return "election deadline"
    if (timer === TIMER_CONTEST) return "contest a lower coordinator"
    const i = timer - TIMER_ALGORITHM
    return i >= 0 && i < labels.length ? labels[i] : "timer " + timer
}

export enum TraceType {
    Send = 1,
    Lost = 2,
    DroppedAtCrashed = 3,
    Timeout = 4,
    RoleChange = 5,
    Crash = 6,
    Recover = 7,
    Detect = 8,
    /** A frozen process: up, but it neither hears nor sends until it thaws. */
    Freeze = 9,
    Thaw = 10,
    DroppedAtFrozen = 11,
    /** The network delivers a second copy of a send to `dst`. */
    Duplicate = 12,
}

/** A process sends `frame` to `to`. */
export interface SendRecord {
    type: TraceType.Send
    time: number
    /** The sender. */
    node: number
    to: number[]
    frame: Frame
}

/** One copy of a send that the network lost, duplicated, or found its destination crashed or frozen. */
export interface LinkRecord {
    type: TraceType.Lost | TraceType.DroppedAtCrashed | TraceType.DroppedAtFrozen | TraceType.Duplicate
    time: number
    /** The sender. */
    node: number
    dst: number
    frame: Frame
}

export interface TimeoutRecord {
    type: TraceType.Timeout
    time: number
    node: number
    /** The timer's name. */
    timer: string
}

export interface FreezeRecord {
    type: TraceType.Freeze
    time: number
    node: number
    duration: number
}

export interface RoleRecord {
    type: TraceType.RoleChange
    time: number
    node: number
    role: Role
    coordinator: number
    epoch: number
}

/** Something that happens to one process: it crashes, recovers, notices a failure, thaws. */
export interface ProcessRecord {
    type: TraceType.Crash | TraceType.Recover | TraceType.Detect | TraceType.Thaw
    time: number
    node: number
}

export type TraceRecord = SendRecord | LinkRecord | TimeoutRecord | FreezeRecord | RoleRecord | ProcessRecord

/** Polynomial hash step, exact in doubles (the VM's `%` is not, past int32). */
function fold(h: number, x: number): number {
    return mod(h * 31 + mod(x, 2147483647), 2147483647)
}

/** The digest `h` folded with one record: what happened, when, to whom (timer names left out). */
export function digestRecord(h: number, r: TraceRecord): number {
    h = fold(fold(fold(h, r.type), Math.round(r.time * 1000)), r.node)
    switch (r.type) {
        case TraceType.Send:
            h = fold(fold(h, r.frame.kind), r.frame.epoch)
            for (let i = 0; i < r.to.length; i++) h = fold(h, r.to[i])
            return h
        case TraceType.Lost:
        case TraceType.DroppedAtCrashed:
        case TraceType.DroppedAtFrozen:
        case TraceType.Duplicate:
            return fold(fold(fold(h, r.frame.kind), r.frame.epoch), r.dst)
        case TraceType.RoleChange:
            return fold(fold(fold(h, r.role), r.coordinator + 1), r.epoch)
        case TraceType.Freeze:
            return fold(h, Math.round(r.duration * 1000))
        default:
            return h
    }
}
