// The improved Bully algorithm of seed 004.
//
// Each process keeps a status table (`alive`: NORMAL or CRASHED per process). A process
// that notices the coordinator's failure sends ELECTION to the highest process below the
// coordinator that the table calls NORMAL (none: it wins at once) and waits T for an
// OK (AWAITING_OK), then T' for COORDINATOR (AWAITING_COORDINATOR); a silent candidate
// is marked CRASHED and the next one down is asked. The receiver of an ELECTION answers OK and sends COORDINATOR to the
// lower processes its table calls NORMAL. A recovered process sends REQUEST to the next
// process in id order (AWAITING_TABLE, the next one on each timeout), gets TABLE back, and
// sends UPDATE to all the others, or COORDINATOR when it outranks the coordinator.
//
// Why, the choices the paper leaves open, and the message counts: docs/algorithms.md,
// "`improved-bully`" and "Seed 004's example".

import { AlgorithmDescriptor, AlgorithmLabels, CheckHints } from "./descriptor"
import { Algorithm, Frame, Kind, MAX_LIST_LENGTH } from "./frame"
import {
    Action,
    ActionType,
    cancelTimer,
    indexOfSorted,
    NO_NODE,
    NodeConfig,
    Role,
    setTimer,
    TIMER_ALGORITHM,
} from "./contract"
import { ElectionNode } from "./node"
import { checkSitting, onSittingCheck } from "./liveness"
import { allMembers, frameFrom, isMember, isStaleCoordinator, multicast, othersIds, send } from "./node-state"
import { improvedBullyElectionBound } from "./bounds"

const TIMER_ANSWER = TIMER_ALGORITHM
const TIMER_COORDINATOR = TIMER_ALGORITHM + 1
const TIMER_TABLE = TIMER_ALGORITHM + 2
/** News that the coordinator is gone came while it sat: is it still heard T later? */
const TIMER_NEWS = TIMER_ALGORITHM + 3

const IDLE = 0
/** Sent ELECTION to `candidate`, waiting T for its OK. */
const AWAITING_OK = 1
/** Got the candidate's OK, waiting T' for its COORDINATOR. */
const AWAITING_COORDINATOR = 2
/** Recovered; sent REQUEST to `candidate`, waiting T for the table. */
const AWAITING_TABLE = 3

export class ImprovedBullyNode extends ElectionNode {
    // (state public to the module: its steps are functions after the class, which cost a
    // board no class-table entry each)
    // (each starts as resetAlgorithm sets it)
    /** alive[i] describes ids[i]: true NORMAL, false CRASHED. */
    alive: boolean[]
    phase: number
    /** Index (in ids) of the process asked last. */
    candidate: number
    /** When this process last became coordinator (public: the exhaustive check keys it as now or past). */
    wonAt: number

    /** The cascade may ask every process in turn, each within T + T'. */
    override electionBound(): number {
        return improvedBullyElectionBound(this.ids.length, this.timing)
    }

    constructor(config: NodeConfig) {
        super(Algorithm.ImprovedBully, config)
        this.resetAlgorithm()
    }

    /** True when this node's table calls `id` NORMAL. */
    believesAlive(id: number): boolean {
        const i = indexOfSorted(this.ids, id)
        return i >= 0 && this.alive[i]
    }

    protected resetAlgorithm() {
        this.phase = IDLE
        this.candidate = -1
        this.wonAt = -1
        markAllAlive(this)
    }

    onSuspect(now: number, out: Action[]) {
        if (this.phase !== IDLE) return
        let failed = indexOfSorted(this.ids, this.coordinator)
        if (failed < 0) failed = this.ids.length
        else this.alive[failed] = false
        this.enterElection(out)
        askBelow(this, failed, now, out)
    }

    /**
     * We just followed, by its heartbeat, a coordinator our table calls CRASHED: we were cut
     * off from it (a partition, a broker outage), and while cut off we marked everybody we
     * could not reach CRASHED, and they us. Followers never speak at steady state, so nothing
     * else would correct the tables, and the next failover would announce to nobody. Coming
     * back from a cut is a recovery: UPDATE to all (case 4.3), everybody NORMAL again.
     */
    override rejoined(now: number, out: Action[]) {
        const i = indexOfSorted(this.ids, this.coordinator)
        if (i < 0 || this.alive[i]) return
        markAllAlive(this)
        multicast(this, Kind.UPDATE, othersIds(this), out)
    }

    /** A departed process is CRASHED; if it was the candidate we wait for, ask the next one now. */
    protected override onPeerLeft(id: number, now: number, out: Action[]) {
        const i = indexOfSorted(this.ids, id)
        if (i < 0) return
        this.alive[i] = false
        if ((this.phase === AWAITING_OK || this.phase === AWAITING_COORDINATOR) && i === this.candidate) {
            stopWaiting(this, out)
            askBelow(this, i, now, out)
        }
    }

    /** A lower process acts as coordinator: take over, as a recovered higher process does (4.4). */
    override contest(now: number, out: Action[]) {
        if (this.phase !== IDLE) return
        markAboveCrashed(this, this.index)
        win(this, liveLowerIds(this), now, out)
    }

    protected onRecover(now: number, out: Action[]) {
        this.enterElection(out)
        this.candidate = this.index
        askNextNeighbour(this, now, out)
    }

    /**
     * Any frame (a heartbeat too) from a process above the coordinator we had refutes what
     * that one's win made us believe: that everybody above it is down. Those in between are
     * NORMAL again, or the next failover would skip them and a lower process would lead
     * beside a live one. The sender's own mark is left to onFrame and rejoined, which read it.
     * Our coordinator heard while our table calls it CRASHED (we came back to it by a RESIGN
     * naming it, after such a win): the table is wrong, everybody NORMAL, as in rejoined.
     */
    protected override heardFrom(id: number) {
        const had = indexOfSorted(this.ids, this.coordinator)
        const from = had > this.index ? had : this.index
        const to = indexOfSorted(this.ids, id)
        for (let i = from + 1; i < to; i++) this.alive[i] = true
        if (to !== had) return
        if (this.role !== Role.Follower) return
        if (!this.alive[to]) markAllAlive(this)
    }

    protected onFrame(frame: Frame, now: number, out: Action[]): boolean {
        const from = frame.src
        const fromIndex = indexOfSorted(this.ids, from)
        const kind = frame.kind
        if (kind === Kind.ELECTION) {
            if (from > this.id) return false
            const wasKnownAlive = this.alive[fromIndex]
            this.alive[fromIndex] = true
            send(this, Kind.OK, from, out)
            // (our extension) while a coordinator above us sits, only if it stops
            if (checkSitting(this, this.id, TIMER_NEWS, out)) return true
            if (this.coordinator !== this.id || this.phase !== IDLE) {
                markAboveCrashed(this, this.index)
                win(this, liveLowerIds(this), now, out)
            } else if (!wasKnownAlive || now !== this.wonAt) {
                // The sender missed our announcement (or was left out of it).
                send(this, Kind.COORDINATOR, from, out)
            }
            return true
        }
        if (kind === Kind.OK) {
            // an answer after T still shows its sender alive
            this.alive[fromIndex] = true
            if (this.phase !== AWAITING_OK || fromIndex !== this.candidate) return false
            this.phase = AWAITING_COORDINATOR
            cancelTimer(TIMER_ANSWER, out)
            setTimer(TIMER_COORDINATOR, this.timing.coordinatorTimeout, out)
            return true
        }
        if (kind === Kind.COORDINATOR) {
            if (isStaleCoordinator(this, frame)) return false
            this.alive[fromIndex] = true
            // (our extension) a process below the coordinator that sits leads: maybe old news
            if (checkSitting(this, from < this.id ? this.id : from, TIMER_NEWS, out)) return false
            if (from < this.id) {
                // A live process outranks the announcer: take over (case 4.4).
                markAboveCrashed(this, this.index)
                win(this, liveLowerIds(this), now, out)
                return true
            }
            markAboveCrashed(this, fromIndex)
            stopWaiting(this, out)
            this.follow(from, now, out)
            return true
        }
        if (kind === Kind.REQUEST) {
            this.alive[fromIndex] = true
            replyTable(this, from, out)
            return true
        }
        if (kind === Kind.TABLE) {
            if (this.phase !== AWAITING_TABLE || fromIndex !== this.candidate) return false
            // every id in the payload must be a member: a table cannot name a stranger
            if (!allMembers(this, frame.list) || (frame.bid === 1 && !isMember(this, frame.initiator))) return false
            cancelTimer(TIMER_TABLE, out)
            this.phase = IDLE
            adoptTable(this, frame)
            const coordinator = frame.bid === 1 ? frame.initiator : NO_NODE
            if (coordinator !== NO_NODE && coordinator > this.id) {
                // Case 4.3: tell everybody we are back.
                multicast(this, Kind.UPDATE, othersIds(this), out)
                this.follow(coordinator, now, out)
            } else {
                // Case 4.4: we outrank the coordinator and take over.
                win(this, othersIds(this), now, out)
            }
            return true
        }
        if (kind === Kind.UPDATE) {
            this.alive[fromIndex] = true
            return true
        }
        return false
    }


    protected onTimer(timer: number, now: number, out: Action[]) {
        if (timer === TIMER_NEWS) onSittingCheck(this, now, out)
        else if (timer === TIMER_ANSWER && this.phase === AWAITING_OK) {
            this.alive[this.candidate] = false
            askBelow(this, this.candidate, now, out)
        } else if (timer === TIMER_COORDINATOR && this.phase === AWAITING_COORDINATOR) {
            this.alive[this.candidate] = false
            askBelow(this, this.candidate, now, out)
        } else if (timer === TIMER_TABLE && this.phase === AWAITING_TABLE) {
            this.alive[this.candidate] = false
            askNextNeighbour(this, now, out)
        }
    }
}

/** ELECTION to the highest process below index `limit` believed alive, or win. */
function askBelow(node: ImprovedBullyNode, limit: number, now: number, out: Action[]) {
    let c = limit - 1
    while (c > node.index && !node.alive[c]) c--
    if (c <= node.index) {
        win(node, liveLowerIds(node), now, out)
        return
    }
    node.candidate = c
    node.phase = AWAITING_OK
    send(node, Kind.ELECTION, node.ids[c], out)
    setTimer(TIMER_ANSWER, node.timing.answerTimeout, out)
}

/** REQUEST to the next neighbour after `candidate` in id order, wrapping round. */
function askNextNeighbour(node: ImprovedBullyNode, now: number, out: Action[]) {
    const n = node.ids.length
    const next = (node.candidate + 1) % n
    if (next === node.index) {
        // Nobody answered: this process is alone.
        node.phase = IDLE
        win(node, othersIds(node), now, out)
        return
    }
    node.candidate = next
    node.phase = AWAITING_TABLE
    send(node, Kind.REQUEST, node.ids[next], out)
    setTimer(TIMER_TABLE, node.timing.answerTimeout, out)
}

function win(node: ImprovedBullyNode, announceTo: number[], now: number, out: Action[]) {
    stopWaiting(node, out)
    node.wonAt = now
    node.alive[node.index] = true
    node.takeCoordinatorRole(out)
    multicast(node, Kind.COORDINATOR, announceTo, out)
}

function stopWaiting(node: ImprovedBullyNode, out: Action[]) {
    if (node.phase === AWAITING_OK) cancelTimer(TIMER_ANSWER, out)
    else if (node.phase === AWAITING_COORDINATOR) cancelTimer(TIMER_COORDINATOR, out)
    else if (node.phase === AWAITING_TABLE) cancelTimer(TIMER_TABLE, out)
    node.phase = IDLE
}

function replyTable(node: ImprovedBullyNode, to: number, out: Action[]) {
    const f = frameFrom(node, Kind.TABLE, to)
    const known = node.coordinator !== NO_NODE && node.alive[indexOfSorted(node.ids, node.coordinator)]
    f.initiator = known ? node.coordinator : 0
    f.bid = known ? 1 : 0
    for (let i = 0; i < node.ids.length && f.list.length < MAX_LIST_LENGTH; i++)
        if (!node.alive[i] && node.ids[i] !== to) f.list.push(node.ids[i])
    out.push({ type: ActionType.Send, to: [to], frame: f })
}

function adoptTable(node: ImprovedBullyNode, frame: Frame) {
    markAllAlive(node)
    for (let i = 0; i < frame.list.length; i++) {
        const at = indexOfSorted(node.ids, frame.list[i])
        if (at >= 0 && at !== node.index) node.alive[at] = false
    }
}

function liveLowerIds(node: ImprovedBullyNode): number[] {
    const lower: number[] = []
    for (let i = 0; i < node.index; i++) if (node.alive[i]) lower.push(node.ids[i])
    return lower
}

function markAboveCrashed(node: ImprovedBullyNode, index: number) {
    for (let i = index + 1; i < node.ids.length; i++) node.alive[i] = false
}

function markAllAlive(node: ImprovedBullyNode) {
    const n = node.ids.length
    node.alive = []
    for (let i = 0; i < n; i++) node.alive.push(true)
}


export const improvedBullyDescriptor: AlgorithmDescriptor = {
    algorithm: Algorithm.ImprovedBully,
    name: "improved-bully",
    electionBound: improvedBullyElectionBound,
    create: (config: NodeConfig) => new ImprovedBullyNode(config),
    usesRingOrder: false,
    usesGraph: false,
    usesSuitability: false,
    needsFifoLinks: false,
}

/** The exhaustive check's hints (descriptor.ts): the win's time is only compared with a later event's. */
export function improvedBullyCheckHints(): CheckHints {
    return { instants: (n: ImprovedBullyNode) => [n.wonAt] }
}

/** How charts and traces name improved-bully's frames and timers (descriptor.ts). No board calls this. */
export function improvedBullyLabels(): AlgorithmLabels {
    return {
        frames: ["COORDINATOR epoch={epoch}", "TABLE coordinator={initiator:known} crashed={list:none}"],
        timers: ["no OK within T", "no COORDINATOR within T'", "no TABLE within T", "news of a coordinator gone"],
    }
}

/**
 * Most heap, bytes after a collection, a board running improved-bully may hold at 12 boards through the
 * lab's failover-10 (sim/lab/heap-size.ts): the peaks measured and about 2 KB for how they
 * vary. No board calls this, so no board image holds it.
 */
export function improvedBullyHeapBudget(): number {
    return 31.5 * 1024
}
