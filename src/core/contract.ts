// The contract between a driver and an algorithm: the types and constants both share.
// Roles, the actions a node hands its driver (send a frame, set or cancel a timer, a role
// change), the timer ids, the timing, a node's configuration and why a frame was ignored;
// with them, the role names and the lookups in sorted ids that both sides use.

import type { Frame } from "./frame"
import { nameIn } from "./portable"

/** What a board's LED shows. */
export enum Role {
    Follower = 0,
    Coordinator = 1,
    Electing = 2,
    Crashed = 3,
    Misconfigured = 4,
}

const ROLE_NAMES = ["follower", "coordinator", "electing", "crashed", "misconfigured"]

export function roleName(role: number): string {
    return nameIn(ROLE_NAMES, role, 0, "role")
}

/** No coordinator known. */
export const NO_NODE = -1

export enum ActionType {
    Send = 1,
    SetTimer = 2,
    CancelTimer = 3,
    RoleChange = 4,
}

/** Send one frame to each id in `to` (one logical message per destination). */
export interface SendAction {
    type: ActionType.Send
    to: number[]
    frame: Frame
}

/** (Re)arm timer `timer` to fire `delay` time units from now; replaces a pending one. */
export interface SetTimerAction {
    type: ActionType.SetTimer
    timer: number
    delay: number
}

export interface CancelTimerAction {
    type: ActionType.CancelTimer
    timer: number
}

/** Appends a SetTimer action (a function, not a node method: cheaper at every call on a board). */
export function setTimer(timer: number, delay: number, out: Action[]) {
    out.push({ type: ActionType.SetTimer, timer: timer, delay: delay })
}

/** Appends a CancelTimer action. */
export function cancelTimer(timer: number, out: Action[]) {
    out.push({ type: ActionType.CancelTimer, timer: timer })
}

/** The node's role or its belief about the coordinator changed. */
export interface RoleChangeAction {
    type: ActionType.RoleChange
    role: Role
    coordinator: number
    epoch: number
}

export type Action = SendAction | SetTimerAction | CancelTimerAction | RoleChangeAction

/** Timer ids. Drivers keep at most one pending timer per id and node. */
export const TIMER_HEARTBEAT = 0
export const TIMER_WATCH = 1
/** First timer id free for an algorithm's own use (up to TIMER_CONTEST - 1). */
export const TIMER_ALGORITHM = 2
/** A follower of a lower-ranked coordinator contests it after this timer. */
export const TIMER_CONTEST = 6
/** Leads out of Electing when an election does not end (our extension: no dead ends). */
export const TIMER_DEADLINE = 7
/** A process claiming the role waits this long (T) for the sitting coordinator's RESIGN. */
export const TIMER_HANDOVER = 8
/** Frames of another algorithm stopped coming: the node takes part again (a hint, not a verdict). */
export const TIMER_OTHER_ALGORITHM = 9
export const MAX_TIMERS = 10

/** Time values are in the driver's unit: ticks in the ideal network, ms on boards. */
export interface Timing {
    /** T: how long to wait for an answer (OK, TABLE) before assuming the peer is down. */
    answerTimeout: number
    /** T': after an OK, how long to wait for COORDINATOR before restarting. */
    coordinatorTimeout: number
    /** Coordinator heartbeat period; 0 turns the failure detector off. */
    heartbeatInterval: number
    /** Silence from the coordinator after which a follower suspects it. */
    failureTimeout: number
    /** "adaptive": suspect earlier when heartbeats arrive regularly (never later than failureTimeout); absent or "fixed": failureTimeout. */
    failureDetector?: string
}

export interface NodeConfig {
    id: number
    /** Every process id in the cluster (this one included), in ring order: each sends to the next, the last to the first. */
    ids: number[]
    group: number
    timing: Timing
    /** Graph neighbours (tree/echo election); absent means every other process. */
    neighbors?: number[]
    /** bid-ring: suitability prefix of this process's bid (0..65535); absent means 0. */
    suitability?: number
    /** Seed of the re-election backoff's jitter, drawn by the driver (the core draws nothing). */
    seed?: number
}

/** Why a node ignored a frame it was handed. */
export enum Ignored {
    OtherGroup = 0,
    OtherAlgorithm = 1,
    NotForMe = 2,
    OwnId = 3,
    UnknownSender = 4,
    Unexpected = 5,
}

/** Position of `id` in ascending `ids`, or -1 (binary search: clusters can be large). */
export function indexOfSorted(ids: number[], id: number): number {
    const n = ids.length
    if (n === 0) return -1
    // Ids are usually contiguous (1..n): try the direct position first.
    const guess = id - ids[0]
    if (guess >= 0 && guess < n && ids[guess] === id) return guess
    let lo = 0
    let hi = n - 1
    while (lo <= hi) {
        const mid = (lo + hi) >> 1
        const v = ids[mid]
        if (v === id) return mid
        if (v < id) lo = mid + 1
        else hi = mid - 1
    }
    return -1
}

/** The ids in increasing order (an insertion sort: a dozen ids, and no sort in a board's image). */
export function sortedIds(ids: number[]): number[] {
    const copy: number[] = []
    for (let i = 0; i < ids.length; i++) {
        let k = copy.length
        copy.push(ids[i])
        while (k > 0 && copy[k - 1] > ids[i]) {
            copy[k] = copy[k - 1]
            k--
        }
        copy[k] = ids[i]
    }
    return copy
}

/** What a cluster's nodes are made from: the simulator's engine and the exhaustive check build them alike. */
export interface ClusterOptions {
    algorithm: number
    /** Process ids in ring order. */
    ids: number[]
    group: number
    timing: Timing
    /** Graph neighbours of each process, aligned with `ids`; absent: complete graph. */
    neighbors?: number[][]
    /** bid-ring suitability of each process, aligned with `ids`; absent: all 0. */
    suitability?: number[]
    /** Seeds the processes' re-election jitter (the core draws nothing of its own). */
    seed?: number
}
