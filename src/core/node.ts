// The state-machine interface every algorithm implements, and the parts they share:
// role and coordinator bookkeeping, frame filtering, and the heartbeat failure detector.
//
// A driver (simulator, firmware, host node) calls the entry points with the current
// time and carries out the actions appended to `out`. Nothing here reads a clock,
// draws a random number or touches a transport.

import { AdaptiveDetector } from "./failure-detector"
import { Algorithm, BROADCAST, Frame, Kind, makeFrame } from "./frame"

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
    return role >= 0 && role < ROLE_NAMES.length ? ROLE_NAMES[role] : "role" + role
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
/** First timer id free for an algorithm's own use. */
export const TIMER_ALGORITHM = 2
export const MAX_TIMERS = 8

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

/** Timing for the ideal network (delay 1): T above a round trip, T' above T + 1. */
export function idealTiming(): Timing {
    return { answerTimeout: 3, coordinatorTimeout: 5, heartbeatInterval: 0, failureTimeout: 0 }
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

export function sortedIds(ids: number[]): number[] {
    const copy = ids.slice(0)
    copy.sort((a, b) => a - b)
    return copy
}

export abstract class ElectionNode {
    readonly id: number
    /** All ids, ascending. */
    readonly ids: number[]
    /** Position of `id` in `ids`. */
    readonly index: number
    /** All ids in ring order, as configured. */
    readonly ringOrder: number[]
    readonly group: number
    readonly timing: Timing
    readonly algorithm: Algorithm

    coordinator: number = NO_NODE
    epoch = 0
    role: Role = Role.Follower
    crashed = false
    /** Frames ignored, by reason (see Ignored). */
    ignored: number[] = [0, 0, 0, 0, 0, 0]
    /** Set when the node saw a sign that the lab is misconfigured (e.g. another node with its id). */
    misconfigured = false

    private lastHeardFromCoordinator = 0
    /** Rank of the coordinator as its heartbeats carry it; -1 until one arrived. */
    private coordinatorRank = -1
    /** Learns the coordinator's heartbeat arrivals when the timing asks for it; null: the fixed timeout. */
    private adaptiveDetector: AdaptiveDetector = null

    constructor(algorithm: Algorithm, config: NodeConfig) {
        this.algorithm = algorithm
        this.id = config.id
        this.ids = sortedIds(config.ids)
        this.ringOrder = config.ids.slice(0)
        this.index = indexOfSorted(this.ids, config.id)
        this.group = config.group
        this.timing = config.timing
        if (config.timing.failureDetector === "adaptive" && config.timing.heartbeatInterval > 0)
            this.adaptiveDetector = new AdaptiveDetector(config.timing.heartbeatInterval, config.timing.failureTimeout)
    }

    /** How this process ranks as a candidate: the higher wins. Process number unless an algorithm bids. */
    rank(): number {
        return this.id
    }

    // ---- entry points, called by drivers ----

    /** Initial state of the seeds: everybody knows the highest process is coordinator. */
    start(now: number, out: Action[]) {
        this.crashed = false
        this.resetAlgorithm()
        this.epoch = 0
        const top = this.ids[this.ids.length - 1]
        if (top !== this.id) {
            this.follow(top, now, out)
            return
        }
        this.setRole(Role.Coordinator, this.id, out)
        if (this.timing.heartbeatInterval > 0)
            this.setTimer(TIMER_HEARTBEAT, this.timing.heartbeatInterval, out)
    }

    /** A decoded frame arrived. Returns true when the node acted on it. */
    receive(frame: Frame, now: number, out: Action[]): boolean {
        if (this.crashed) return false
        if (frame.group !== this.group) return this.ignore(Ignored.OtherGroup)
        if (frame.algorithm !== this.algorithm) {
            this.flagMisconfigured(out)
            return this.ignore(Ignored.OtherAlgorithm)
        }
        if (frame.dst !== BROADCAST && frame.dst !== this.id) return this.ignore(Ignored.NotForMe)
        if (frame.src === this.id) {
            this.flagMisconfigured(out)
            return this.ignore(Ignored.OwnId)
        }
        if (indexOfSorted(this.ids, frame.src) < 0) return this.ignore(Ignored.UnknownSender)
        if (frame.src === this.coordinator) this.lastHeardFromCoordinator = now
        if (frame.kind === Kind.HEARTBEAT) {
            this.onHeartbeat(frame, now, out)
            return true
        }
        if (frame.epoch > this.epoch) this.epoch = frame.epoch
        const handled = this.onFrame(frame, now, out)
        if (!handled) this.ignore(Ignored.Unexpected)
        return handled
    }

    timer(timer: number, now: number, out: Action[]) {
        if (this.crashed) return
        if (timer === TIMER_HEARTBEAT) this.onHeartbeatTimer(now, out)
        else if (timer === TIMER_WATCH) this.onWatchTimer(now, out)
        else this.onTimer(timer, now, out)
    }

    /** This process notices that the coordinator does not answer. */
    suspect(now: number, out: Action[]) {
        if (this.crashed || this.coordinator === this.id) return
        this.onSuspect(now, out)
    }

    /**
     * The transport reports that process `id` dropped off (an MQTT broker's last will):
     * news of a failure that no timeout had to wait for.
     */
    peerLeft(id: number, now: number, out: Action[]) {
        if (this.crashed || id === this.id) return
        this.onPeerLeft(id, now, out)
        if (id === this.coordinator && this.role === Role.Follower) this.onSuspect(now, out)
    }

    /** Algorithms with a view of who is alive note a departure here. */
    protected onPeerLeft(id: number, now: number, out: Action[]) {}

    crash(now: number, out: Action[]) {
        if (this.crashed) return
        this.crashed = true
        this.resetAlgorithm()
        for (let t = 0; t < MAX_TIMERS; t++) this.cancelTimer(t, out)
        this.setRole(Role.Crashed, NO_NODE, out)
    }

    /** Back from a crash with a blank memory, apart from the membership. */
    recover(now: number, out: Action[]) {
        if (!this.crashed) return
        this.crashed = false
        this.coordinator = NO_NODE
        if (this.adaptiveDetector) this.adaptiveDetector.clear()
        this.resetAlgorithm()
        this.onRecover(now, out)
    }

    // ---- what each algorithm defines ----

    protected abstract resetAlgorithm(): void
    protected abstract onSuspect(now: number, out: Action[]): void
    protected abstract onRecover(now: number, out: Action[]): void
    /** Returns false for a frame the algorithm does not expect (counted as ignored). */
    protected abstract onFrame(frame: Frame, now: number, out: Action[]): boolean
    protected abstract onTimer(timer: number, now: number, out: Action[]): void

    /** A short name for one of the algorithm's own timers, for traces. */
    protected abstract algorithmTimerName(timer: number): string

    timerName(timer: number): string {
        if (timer === TIMER_HEARTBEAT) return "heartbeat"
        if (timer === TIMER_WATCH) return "coordinator silent"
        return this.algorithmTimerName(timer)
    }

    // ---- helpers for algorithms ----

    protected frame(kind: Kind, dst: number): Frame {
        return makeFrame(kind, this.algorithm, this.group, this.epoch, this.id, dst)
    }

    protected send(kind: Kind, to: number, out: Action[]): Frame {
        const f = this.frame(kind, to)
        out.push({ type: ActionType.Send, to: [to], frame: f })
        return f
    }

    /** One frame to several processes: one message each, one broadcast frame on a bus. */
    protected multicast(kind: Kind, to: number[], out: Action[]): Frame {
        if (to.length === 0) return null
        const f = this.frame(kind, to.length === 1 ? to[0] : BROADCAST)
        out.push({ type: ActionType.Send, to: to, frame: f })
        return f
    }

    protected setTimer(timer: number, delay: number, out: Action[]) {
        out.push({ type: ActionType.SetTimer, timer: timer, delay: delay })
    }

    protected cancelTimer(timer: number, out: Action[]) {
        out.push({ type: ActionType.CancelTimer, timer: timer })
    }

    protected setRole(role: Role, coordinator: number, out: Action[]) {
        if (this.misconfigured) role = Role.Misconfigured
        if (role === this.role && coordinator === this.coordinator) return
        if (coordinator !== this.coordinator) this.coordinatorRank = -1
        this.role = role
        this.coordinator = coordinator
        out.push({
            type: ActionType.RoleChange,
            role: role,
            coordinator: coordinator,
            epoch: this.epoch,
        })
    }

    /** Ids above this one, ascending. */
    protected higherIds(): number[] {
        return this.ids.slice(this.index + 1)
    }

    /** Ids below this one, ascending. */
    protected lowerIds(): number[] {
        return this.ids.slice(0, this.index)
    }

    protected othersIds(): number[] {
        const all: number[] = []
        for (let i = 0; i < this.ids.length; i++) if (i !== this.index) all.push(this.ids[i])
        return all
    }

    /** Take the coordinator role in a new epoch and start heartbeats. */
    protected takeCoordinatorRole(out: Action[]) {
        this.epoch = this.epoch + 1
        this.assumeCoordinatorRole(out)
    }

    /** Take the coordinator role in the current epoch (set by the election) and start heartbeats. */
    protected assumeCoordinatorRole(out: Action[]) {
        this.setRole(Role.Coordinator, this.id, out)
        this.cancelTimer(TIMER_WATCH, out)
        if (this.timing.heartbeatInterval > 0)
            this.setTimer(TIMER_HEARTBEAT, this.timing.heartbeatInterval, out)
    }

    /** Accept `coordinator` and watch it for silence. */
    protected follow(coordinator: number, now: number, out: Action[]) {
        if (this.adaptiveDetector) this.adaptiveDetector.watch(coordinator)
        this.setRole(Role.Follower, coordinator, out)
        this.lastHeardFromCoordinator = now
        if (this.timing.heartbeatInterval > 0) {
            this.cancelTimer(TIMER_HEARTBEAT, out)
            this.setTimer(TIMER_WATCH, this.suspicionDelay(), out)
        }
    }

    /** Silence from the coordinator after which it is suspected. */
    suspicionDelay(): number {
        return this.adaptiveDetector ? this.adaptiveDetector.delay() : this.timing.failureTimeout
    }

    protected enterElection(out: Action[]) {
        this.setRole(Role.Electing, this.coordinator, out)
    }

    // ---- failure detector ----

    private onHeartbeatTimer(now: number, out: Action[]) {
        if (this.coordinator !== this.id) return
        const others = this.othersIds()
        const f = this.frame(Kind.HEARTBEAT, BROADCAST)
        // the sender's rank, so that conflicts are settled by rank (bids), not by id
        f.bid = this.rank()
        out.push({ type: ActionType.Send, to: others, frame: f })
        this.setTimer(TIMER_HEARTBEAT, this.timing.heartbeatInterval, out)
    }

    private onWatchTimer(now: number, out: Action[]) {
        if (this.role !== Role.Follower || this.coordinator === NO_NODE) return
        const silence = now - this.lastHeardFromCoordinator
        const limit = this.suspicionDelay()
        // (a rounding margin: now + (limit - silence) can land a hair short of the limit, forever)
        if (silence >= limit - 0.000001) this.onSuspect(now, out)
        else this.setTimer(TIMER_WATCH, limit - silence, out)
    }

    /**
     * A heartbeat from a process other than our coordinator: two processes believe they
     * lead (boards that booted apart, a partition that healed). The higher rank must win:
     * follow a sender that outranks both us and our coordinator; contest a sender we outrank.
     */
    private onHeartbeat(frame: Frame, now: number, out: Action[]) {
        const senderRank = frame.bid
        if (frame.src === this.coordinator) {
            this.coordinatorRank = senderRank
            if (this.adaptiveDetector) {
                this.adaptiveDetector.heartbeat(now)
                // the suspicion delay just changed: watch from this arrival
                if (this.role === Role.Follower) this.setTimer(TIMER_WATCH, this.suspicionDelay(), out)
            }
            return
        }
        if (this.role === Role.Electing) return
        const mine = this.rank()
        // the coordinator's rank as its heartbeats told it; its id until one arrived
        const theirs = this.coordinatorRank >= 0 ? this.coordinatorRank : this.coordinator
        if (senderRank > mine && (this.coordinator === NO_NODE || senderRank > theirs)) {
            if (frame.epoch > this.epoch) this.epoch = frame.epoch
            this.follow(frame.src, now, out)
            this.coordinatorRank = senderRank
        } else if (senderRank < mine) {
            if (frame.epoch > this.epoch) this.epoch = frame.epoch
            this.contest(now, out)
        }
    }

    /**
     * A live lower process acts as coordinator while this one is alive: by default, hold
     * an election (which this process, outranking it, wins).
     */
    protected contest(now: number, out: Action[]) {
        this.onSuspect(now, out)
    }

    private ignore(reason: Ignored): boolean {
        this.ignored[reason]++
        return false
    }

    private flagMisconfigured(out: Action[]) {
        if (this.misconfigured) return
        this.misconfigured = true
        this.setRole(Role.Misconfigured, this.coordinator, out)
    }
}
