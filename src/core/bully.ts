// The Bully algorithm of Garcia-Molina (seeds 000, 001, 002).
//
// A process that notices the coordinator's failure, or recovers, holds an election:
// ELECTION to every higher process, then it waits T for an OK (AWAITING_OK). None: it
// sends COORDINATOR to the lower processes and leads. An OK: it waits T' for COORDINATOR
// (AWAITING_COORDINATOR) and holds the election again if none comes. An ELECTION from a
// lower process is answered with OK, and starts the receiver's own election unless one
// is running. A COORDINATOR from a lower process makes a higher receiver hold an election.
//
// Why, the choices the seeds leave open, and the message counts: docs/algorithms.md,
// "`bully`"; the fencing, deadline and contest rules every node shares (node-state.ts,
// deadline.ts, liveness.ts): same page, "Converging under faults".

import { AlgorithmDescriptor, AlgorithmLabels } from "./descriptor"
import { Algorithm, Frame, Kind } from "./frame"
import { Action, cancelTimer, NodeConfig, setTimer, TIMER_ALGORITHM } from "./contract"
import { ElectionNode } from "./node"
import { isStaleCoordinator, multicast, oldNews, send } from "./node-state"
import { checkSitting, onSittingCheck } from "./liveness"
import { bullyElectionBound } from "./bounds"

const TIMER_ANSWER = TIMER_ALGORITHM
const TIMER_COORDINATOR = TIMER_ALGORITHM + 1
/** News that the coordinator is gone came while it sat: is it still heard T later? */
const TIMER_NEWS = TIMER_ALGORITHM + 2

const IDLE = 0
/** Sent ELECTION, waiting T for an OK. */
const AWAITING_OK = 1
/** Got an OK, waiting T' for COORDINATOR. */
const AWAITING_COORDINATOR = 2

export class BullyNode extends ElectionNode {
    // (state public to the module: its steps are functions after the class, which cost a
    // board no class-table entry each)
    phase = IDLE

    constructor(config: NodeConfig) {
        super(Algorithm.Bully, config)
    }

    /** ELECTION, T for OKs, T' for COORDINATOR, and once more after a restart. */
    electionBound(): number {
        return bullyElectionBound(this.ids.length, this.timing)
    }

    protected resetAlgorithm() {
        this.phase = IDLE
    }

    onSuspect(now: number, out: Action[]) {
        if (this.phase === IDLE) holdElection(this, now, out)
    }

    protected onRecover(now: number, out: Action[]) {
        holdElection(this, now, out)
    }

    protected onFrame(frame: Frame, now: number, out: Action[]): boolean {
        const from = frame.src
        if (frame.kind === Kind.ELECTION) {
            if (from > this.id) return false
            send(this, Kind.OK, from, out)
            if (this.coordinator === this.id) {
                // The highest process is already coordinator: its "election" would be a
                // fresh announcement to everybody; telling the asker is enough. So it is for
                // any coordinator with heartbeats on (our extension): a higher process alive
                // makes itself heard (its heartbeats, its claim), and the ELECTION may be
                // seconds old.
                if (this.index === this.ids.length - 1 || oldNews(this, from)) {
                    send(this, Kind.COORDINATOR, from, out)
                    return true
                }
            }
            // (our extension) while a coordinator above us sits, only if it stops
            if (this.phase === IDLE) if (!checkSitting(this, this.id, TIMER_NEWS, out)) holdElection(this, now, out)
            return true
        }
        if (frame.kind === Kind.OK) {
            if (this.phase !== AWAITING_OK || from < this.id) return false
            this.phase = AWAITING_COORDINATOR
            cancelTimer(TIMER_ANSWER, out)
            setTimer(TIMER_COORDINATOR, this.timing.coordinatorTimeout, out)
            return true
        }
        if (frame.kind === Kind.COORDINATOR) {
            if (isStaleCoordinator(this, frame)) return false
            // (our extension) a process below the coordinator that sits leads: maybe old news
            if (checkSitting(this, from < this.id ? this.id : from, TIMER_NEWS, out)) return false
            if (from < this.id) {
                if (this.phase === IDLE) holdElection(this, now, out)
                return true
            }
            cancelElection(this, out)
            this.follow(from, now, out)
            return true
        }
        return false
    }


    protected onTimer(timer: number, now: number, out: Action[]) {
        if (timer === TIMER_NEWS) onSittingCheck(this, now, out)
        else if (timer === TIMER_ANSWER && this.phase === AWAITING_OK) win(this, out)
        else if (timer === TIMER_COORDINATOR && this.phase === AWAITING_COORDINATOR) {
            this.phase = IDLE
            holdElection(this, now, out)
        }
    }
}

function holdElection(node: BullyNode, now: number, out: Action[]) {
    const higher = node.ids.slice(node.index + 1)
    if (higher.length === 0) {
        win(node, out)
        return
    }
    node.phase = AWAITING_OK
    node.enterElection(out)
    multicast(node, Kind.ELECTION, higher, out)
    setTimer(TIMER_ANSWER, node.timing.answerTimeout, out)
}

function win(node: BullyNode, out: Action[]) {
    cancelElection(node, out)
    node.takeCoordinatorRole(out)
    multicast(node, Kind.COORDINATOR, node.ids.slice(0, node.index), out)
}

function cancelElection(node: BullyNode, out: Action[]) {
    if (node.phase === AWAITING_OK) cancelTimer(TIMER_ANSWER, out)
    if (node.phase === AWAITING_COORDINATOR) cancelTimer(TIMER_COORDINATOR, out)
    node.phase = IDLE
}


export const bullyDescriptor: AlgorithmDescriptor = {
    algorithm: Algorithm.Bully,
    name: "bully",
    electionBound: bullyElectionBound,
    create: (config: NodeConfig) => new BullyNode(config),
    usesRingOrder: false,
    usesGraph: false,
    usesSuitability: false,
    needsFifoLinks: false,
}

/** How charts and traces name bully's frames and timers (descriptor.ts). No board calls this. */
export function bullyLabels(): AlgorithmLabels {
    return {
        frames: ["COORDINATOR epoch={epoch}"],
        timers: ["no OK within T", "no COORDINATOR within T'", "news of a coordinator gone"],
    }
}

/**
 * Most heap, bytes after a collection, a board running bully may hold at 12 boards through the
 * lab's failover-10 (sim/lab/heap-size.ts): the peaks measured and about 2 KB for how they
 * vary. No board calls this, so no board image holds it.
 */
export function bullyHeapBudget(): number {
    return 28 * 1024
}
