// What every part of a node works on: its configuration, its state, the helpers that build
// frames and actions, and the hooks each algorithm fills in. The parts themselves are
// modules of step functions over it: the frames a node ignores (frame-filter.ts), the
// heartbeats and the contest rule (liveness.ts), the election deadline (deadline.ts) and
// the handover (handover.ts); node.ts ties them together behind the entry points a driver
// calls.
//
// Members are the core's, open to those modules as a Go package's are to its files: a
// driver calls only the entry points of ElectionNode.

import { FailureDetector, makeFailureDetector } from "./failure-detector"
import { Algorithm, BROADCAST, Frame, Kind, makeFrame, MAX_SEQ } from "./frame"
import { epochAfter, Jitter } from "./portable"
import { Action, ActionType, cancelTimer, indexOfSorted, NO_NODE, NodeConfig, Role, sortedIds, TIMER_ALGORITHM, TIMER_CONTEST, Timing } from "./contract"

export abstract class NodeState {
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
    /** Misconfigured only because frames of another algorithm come: lifted once they stop. */
    otherAlgorithm = false

    lastHeardFromCoordinator = 0
    /**
     * When the coordinator we follow was last heard leading: its last heartbeat (any other
     * frame of its shows it alive, not leading). Set by setRole whenever the coordinator
     * changes, as it does at the start (no initializer: bytes on a board).
     */
    leadHeardAt!: number
    /** Rank of the coordinator as its heartbeats (or a bid-ring result) carry it; -1 until known. */
    coordinatorRank = -1
    /** This process's epoch before the frame being handled raised it. */
    epochBeforeFrame = 0
    /** Elections restarted in a row by the deadline: the backoff grows with it, bounded. */
    restarts = 0
    readonly jitter: Jitter
    /** Decides how long the coordinator may be silent: the fixed timeout, or learned from its heartbeats. */
    readonly detector: FailureDetector
    /** Number of the last heartbeat sent: followers tell a late heartbeat from a lost one. */
    heartbeatSeq = 0
    /** Time of the event being handled (the entry points' `now`), for rules that need it deeper down. */
    clock = 0
    /** Handover (our extension): waiting for the sitting coordinator's RESIGN before taking the role. */
    claiming = false
    /** Started or recovered and has known no coordinator since: one may sit unknown to it. */
    freshMemory = false
    /** Powered on and claiming: others may not hear it yet (bus roles still binding), so it waits a failure timeout too. */
    poweredOn = false
    /** When the claim's wait ends (TIMER_HANDOVER): a lower coordinator heard meanwhile extends it, never shortens it. */
    claimUntil = 0
    /** RESIGN received from ids[i] during this claim; a claim to all leads once everybody answered. */
    resigned: boolean[] = []
    /** The process the claim names as sitting (its RESIGN is enough), or NO_NODE: the claim went to all. */
    claimNamed = NO_NODE
    /** The failure detector (or a last will, or a scenario's detect) said our coordinator is down. */
    coordinatorSuspected = false
    /** Our coordinator claims the role (HANDOVER) and may stay silent until then, waiting for answers. */
    claimedUntil = 0

    constructor(algorithm: Algorithm, config: NodeConfig) {
        this.algorithm = algorithm
        this.id = config.id
        this.ids = sortedIds(config.ids)
        this.ringOrder = config.ids.slice(0)
        this.index = indexOfSorted(this.ids, config.id)
        this.group = config.group
        this.timing = config.timing
        this.jitter = new Jitter(config.seed !== undefined ? config.seed : config.id)
        const t = config.timing
        this.detector = makeFailureDetector(t.failureDetector ? t.failureDetector : "fixed", t.heartbeatInterval, t.failureTimeout)
    }

    // ---- what each algorithm defines ----

    protected abstract resetAlgorithm(): void
    abstract onSuspect(now: number, out: Action[]): void
    protected abstract onRecover(now: number, out: Action[]): void
    /** Returns false for a frame the algorithm does not expect (counted as ignored). */
    protected abstract onFrame(frame: Frame, now: number, out: Action[]): boolean
    protected abstract onTimer(timer: number, now: number, out: Action[]): void

    /** Any frame from `id` (a heartbeat too) shows it alive: algorithms with a view of who is up note it. */
    protected heardFrom(id: number) {}

    /**
     * This process just followed a coordinator it learnt of by heartbeat, not by an election:
     * it was cut off (a partition, a broker outage) or booted apart. Algorithms whose view of
     * who is up was built while it was cut off correct it here.
     */
    rejoined(now: number, out: Action[]) {}

    /** Algorithms with a view of who is alive note a departure here. */
    protected onPeerLeft(id: number, now: number, out: Action[]) {}

    /**
     * True while this process is a link another process's election cannot do without, so a
     * higher coordinator's heartbeat (its sender ranked `rank`) must not make it leave (echo:
     * a wave waits for it).
     */
    carriesOthersElection(rank: number): boolean {
        return false
    }

    /** A lower-ranked coordinator heartbeats (`heartbeat`) while this process elects: by default its own election goes on. */
    lowerLeadsWhileElecting(heartbeat: Frame, now: number, out: Action[]) {}

    /**
     * A live lower process acts as coordinator while this one is alive: by default, hold
     * an election (which this process, outranking it, wins).
     */
    contest(now: number, out: Action[]) {
        this.onSuspect(now, out)
    }

    /**
     * Drop this process's part in the election under way (its state and its timers).
     * Ring algorithms override it to keep passing on what they carry for others.
     */
    forgetElection(now: number, out: Action[]) {
        for (let t = TIMER_ALGORITHM; t < TIMER_CONTEST; t++) cancelTimer(t, out)
        this.resetAlgorithm()
    }

    /**
     * How long an election may last before the deadline restarts it: longer than this
     * algorithm's fault-free election, so that it never fires in the seeds' examples.
     */
    abstract electionBound(): number

    /** How this process ranks as a candidate: the higher wins. Process number unless an algorithm bids. */
    rank(): number {
        return this.id
    }

    /** True when rank is the process number, so a coordinator's id tells its rank. */
    ranksById(): boolean {
        return true
    }

    // ---- role bookkeeping (node.ts), which the parts call ----

    abstract setRole(role: Role, coordinator: number, out: Action[]): void
    abstract follow(coordinator: number, now: number, out: Action[]): void
    abstract assumeCoordinatorRole(out: Action[]): void
    abstract noteCoordinatorRank(rank: number, out: Action[]): void
    abstract misconfigure(out: Action[]): void

    // ---- helpers ----

    /** Silence from the coordinator after which it is suspected. */
    suspicionDelay(): number {
        return this.detector.delay()
    }
}

// Helpers, as functions: a method is in every image that holds the class, called or not, a
// function only in those that call it (and a call to it names no receiver).

/** True when `id` is one of the cluster's processes: ids taken from payloads are checked. */
export function isMember(node: NodeState, id: number): boolean {
    return indexOfSorted(node.ids, id) >= 0
}

export function othersIds(node: NodeState): number[] {
    const all: number[] = []
    for (let i = 0; i < node.ids.length; i++) if (i !== node.index) all.push(node.ids[i])
    return all
}

export function frameFrom(node: NodeState, kind: Kind, dst: number): Frame {
    return makeFrame(kind, node.algorithm, node.group, node.epoch, node.id, dst)
}

export function send(node: NodeState, kind: Kind, to: number, out: Action[]): Frame {
    const f = frameFrom(node, kind, to)
    out.push({ type: ActionType.Send, to: [to], frame: f })
    return f
}

/** One frame to several processes: one message each, one broadcast frame on a bus. */
export function multicast(node: NodeState, kind: Kind, to: number[], out: Action[]): Frame {
    if (to.length === 0) return null
    const f = frameFrom(node, kind, to.length === 1 ? to[0] : BROADCAST)
    out.push({ type: ActionType.Send, to: to, frame: f })
    return f
}

/** A heartbeat to all, with the sender's rank, so that conflicts are settled by rank (bids), not by id. */
export function sendHeartbeat(node: NodeState, out: Action[]) {
    const f = frameFrom(node, Kind.HEARTBEAT, BROADCAST)
    f.bid = node.rank()
    node.heartbeatSeq = node.heartbeatSeq < MAX_SEQ ? node.heartbeatSeq + 1 : 1
    f.seq = node.heartbeatSeq
    out.push({ type: ActionType.Send, to: othersIds(node), frame: f })
}

/**
 * True while the coordinator this process knows sits above `rank`: itself, leading with
 * heartbeats on (it makes itself heard), or another, not suspected and heard at `heardAt`,
 * within the last 1.5 heartbeat periods. The handover asks it with the last frame heard from
 * that coordinator (does one sit, does it outrank us?); old news with its last heartbeat.
 */
export function sitsAbove(node: NodeState, rank: number, heardAt: number): boolean {
    const h = node.timing.heartbeatInterval
    if (h > 0) {
        if (node.role === Role.Coordinator) return node.rank() > rank
        if (node.coordinator !== node.id) if (!node.coordinatorSuspected) if (node.clock - heardAt <= 1.5 * h)
            return (node.coordinatorRank >= 0 ? node.coordinatorRank : node.coordinator) > rank
    }
    return false
}

/**
 * (our extension) For a process that follows or leads: true when a frame's news that a
 * coordinator sitting above `rank` is gone is old news. Such a frame (a lower ELECTION, a
 * result naming a process below it) is older than this process's own evidence, or from a
 * process that has not heard it yet: links that held frames for seconds delivered a storm's
 * elections long after it, each one an election anew. The evidence is the coordinator's
 * heartbeats: its other frames show it alive, not leading (a recovered coordinator's own
 * election must not pass for it). A detector that fires missed a heartbeat this process got
 * (its delay is 2.5 periods or more), so the news of a coordinator that did fail is not held
 * up for long. An electing process acts on frames as its election needs.
 */
export function oldNews(node: NodeState, rank: number): boolean {
    if (node.role === Role.Electing) return false
    return sitsAbove(node, rank, node.leadHeardAt)
}

/**
 * Fencing (our extension): a COORDINATOR from an epoch older than this process had
 * reached before the frame came is stale (delayed, duplicated, or from the far side
 * of a partition) and is refused, unless its sender outranks the coordinator we have:
 * a recovered process's epoch may lag behind, and the seeds let the highest take over.
 */
export function isStaleCoordinator(node: NodeState, frame: Frame): boolean {
    if (!epochAfter(node.epochBeforeFrame, frame.epoch)) return false
    const current = node.coordinator === NO_NODE ? -1 : node.coordinator
    return frame.src <= current || frame.src <= node.id
}

/** True when every id in `list` is one of `node`'s members. */
export function allMembers(node: NodeState, list: number[]): boolean {
    for (let i = 0; i < list.length; i++) if (indexOfSorted(node.ids, list[i]) < 0) return false
    return true
}
