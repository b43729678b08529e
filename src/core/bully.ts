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

import { AlgorithmDescriptor } from "./descriptor"
import { Algorithm, Frame, Kind } from "./frame"
import { Action, cancelTimer, NodeConfig, setTimer, TIMER_ALGORITHM } from "./contract"
import { ElectionNode } from "./node"
import { isStaleCoordinator } from "./node-state"
import { bullyElectionBound } from "./bounds"

const TIMER_ANSWER = TIMER_ALGORITHM
const TIMER_COORDINATOR = TIMER_ALGORITHM + 1

const IDLE = 0
/** Sent ELECTION, waiting T for an OK. */
const AWAITING_OK = 1
/** Got an OK, waiting T' for COORDINATOR. */
const AWAITING_COORDINATOR = 2

export class BullyNode extends ElectionNode {
    private phase = IDLE

    constructor(config: NodeConfig) {
        super(Algorithm.Bully, config)
    }

    protected resetAlgorithm() {
        this.phase = IDLE
    }

    onSuspect(now: number, out: Action[]) {
        if (this.phase === IDLE) this.holdElection(now, out)
    }

    protected onRecover(now: number, out: Action[]) {
        this.holdElection(now, out)
    }

    protected onFrame(frame: Frame, now: number, out: Action[]): boolean {
        const from = frame.src
        if (frame.kind === Kind.ELECTION) {
            if (from > this.id) return false
            this.send(Kind.OK, from, out)
            if (this.coordinator === this.id && this.index === this.ids.length - 1) {
                // The highest process is already coordinator: its "election" would be a
                // fresh announcement to everybody; telling the asker is enough.
                this.send(Kind.COORDINATOR, from, out)
                return true
            }
            if (this.phase === IDLE) this.holdElection(now, out)
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
            if (from < this.id) {
                if (this.phase === IDLE) this.holdElection(now, out)
                return true
            }
            this.cancelElection(out)
            this.follow(from, now, out)
            return true
        }
        return false
    }


    protected onTimer(timer: number, now: number, out: Action[]) {
        if (timer === TIMER_ANSWER && this.phase === AWAITING_OK) this.win(out)
        else if (timer === TIMER_COORDINATOR && this.phase === AWAITING_COORDINATOR) {
            this.phase = IDLE
            this.holdElection(now, out)
        }
    }

    private holdElection(now: number, out: Action[]) {
        const higher = this.ids.slice(this.index + 1)
        if (higher.length === 0) {
            this.win(out)
            return
        }
        this.phase = AWAITING_OK
        this.enterElection(out)
        this.multicast(Kind.ELECTION, higher, out)
        setTimer(TIMER_ANSWER, this.timing.answerTimeout, out)
    }

    private win(out: Action[]) {
        this.cancelElection(out)
        this.takeCoordinatorRole(out)
        this.multicast(Kind.COORDINATOR, this.ids.slice(0, this.index), out)
    }

    private cancelElection(out: Action[]) {
        if (this.phase === AWAITING_OK) cancelTimer(TIMER_ANSWER, out)
        if (this.phase === AWAITING_COORDINATOR) cancelTimer(TIMER_COORDINATOR, out)
        this.phase = IDLE
    }
}

export const bullyDescriptor: AlgorithmDescriptor = {
    algorithm: Algorithm.Bully,
    name: "bully",
    electionBound: bullyElectionBound,
    create: (config: NodeConfig) => new BullyNode(config),
    frameLabels: ["COORDINATOR epoch={epoch}"],
    timerLabels: ["no OK within T", "no COORDINATOR within T'"],
    usesRingOrder: false,
    usesGraph: false,
    usesSuitability: false,
    needsFifoLinks: false,
}
