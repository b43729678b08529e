// The ring election with bids of seed 003, on the ring family's acknowledged passing to
// the next live process (ring-base.ts).
//
// A bid is suitability * 65536 + id (`makeBid`, a u32 in the frame's `bid`). The initiator
// sends ELECTION with itself in `initiator` and its bid; each receiver forwards the better
// of the message's bid and its own. Back at the initiator the bid names the winner, and
// COORDINATOR (the winner's bid, the initiator) goes round once. A station waiting for a
// result (`waitingFor`) discards a notice from a smaller initiator and cancels its
// election for a larger one's. The initiator re-initiates after R = n(T + 1)
// (TIMER_REINITIATE); a voter that hears no result within 2R starts an election of its
// own (TIMER_RESULT).
//
// Why, the choices the seed leaves open, and the message counts: docs/algorithms.md,
// "`bid-ring`" and "The ring family".

import { AlgorithmDescriptor } from "./descriptor"
import { Algorithm, Frame, Kind } from "./frame"
import { Action, cancelTimer, NO_NODE, NodeConfig, Role, setTimer } from "./contract"
import { bidRingElectionBound } from "./bounds"
import { epochAfter, mod, nextEpoch } from "./portable"
import { RingBaseNode, TIMER_RING_FREE } from "./ring-base"

const TIMER_REINITIATE = TIMER_RING_FREE
const TIMER_RESULT = TIMER_RING_FREE + 1

/** The id in a bid. */
export function bidId(bid: number): number {
    return mod(bid, 65536)
}

export function makeBid(suitability: number, id: number): number {
    return suitability * 65536 + id
}

export class BidRingNode extends RingBaseNode {
    readonly suitability: number
    readonly bid: number
    /** Waiting for the result of the election initiated by `waitingFor`. */
    private waiting = false
    private waitingFor = NO_NODE
    /** This process's own election is on (not cancelled, not completed). */
    private initiating = false
    /** Epoch of the result accepted last; -1 before any. */
    private acceptedEpoch = -1
    /** The coordinator was suspected (or contested) while this process waited: its 2R wait must end in an election. */
    private suspectedWhileWaiting = false

    constructor(config: NodeConfig) {
        super(Algorithm.BidRing, config)
        this.suitability = config.suitability ? config.suitability : 0
        this.bid = makeBid(this.suitability, this.id)
    }

    override rank(): number {
        return this.bid
    }

    /** Past the voters' own wait (2R), after which they initiate (R more). */
    override electionBound(): number {
        return bidRingElectionBound(this.ringOrder.length, this.timing)
    }

    override ranksById(): boolean {
        return false
    }

    /** The initiator of the election this process waits for, or -1. */
    waitingForInitiator(): number {
        return this.waiting ? this.waitingFor : NO_NODE
    }

    protected resetRing() {
        this.waiting = false
        this.waitingFor = NO_NODE
        this.initiating = false
        this.acceptedEpoch = -1
        this.suspectedWhileWaiting = false
    }

    protected isRingKind(kind: number): boolean {
        return kind === Kind.ELECTION || kind === Kind.COORDINATOR
    }

    protected endsAt(frame: Frame, id: number): boolean {
        return frame.initiator === id
    }

    protected onDirectFrame(frame: Frame, now: number, out: Action[]): boolean {
        return false
    }


    protected beginElection(now: number, out: Action[]) {
        // Waiting for a result, still electing: the wait's end initiates. A voter that has
        // accepted a result meanwhile and now suspects or outranks its coordinator has
        // nothing left to wait for: it initiates at once, not up to 2R later (our extension).
        if (this.waiting && this.role === Role.Electing) {
            this.suspectedWhileWaiting = true
            return
        }
        this.initiate(now, out)
    }

    /**
     * A voter waiting for a result hears a lower bid lead: the election it voted in was
     * settled without it (its notice cancelled, or the result passed it by). It initiates at
     * once rather than at the end of its 2R wait (our extension).
     */
    override lowerLeadsWhileElecting(now: number, out: Action[]) {
        if (this.waiting && !this.initiating) this.initiate(now, out)
    }

    protected onRecover(now: number, out: Action[]) {
        this.initiate(now, out)
    }

    protected onRingTimer(timer: number, now: number, out: Action[]) {
        if (timer === TIMER_REINITIATE && this.initiating && this.waitingFor === this.id) {
            this.sendNotice(now, out)
            setTimer(TIMER_REINITIATE, this.roundTrip(), out)
        } else if (timer === TIMER_RESULT && this.waiting && !this.initiating) {
            this.waiting = false
            // A result accepted meanwhile (a lower initiator's) leaves no dead end to get out
            // of, unless its coordinator was suspected since: the watch is not re-armed.
            // Otherwise the failure detector and the contest watch that coordinator.
            if (this.role === Role.Electing || this.coordinator === NO_NODE || this.suspectedWhileWaiting)
                this.initiate(now, out)
        }
    }

    protected onRingFrame(frame: Frame, now: number, out: Action[]): boolean {
        if (!this.isMember(frame.initiator) || !this.isMember(bidId(frame.bid))) return false
        if (frame.kind === Kind.ELECTION) {
            this.onNotice(frame, now, out)
            return true
        }
        if (frame.kind === Kind.COORDINATOR) {
            this.onResult(frame, now, out)
            return true
        }
        return false
    }

    private initiate(now: number, out: Action[]) {
        this.suspectedWhileWaiting = false
        cancelTimer(TIMER_RESULT, out)
        this.waiting = true
        this.waitingFor = this.id
        this.initiating = true
        this.enterElection(out)
        this.sendNotice(now, out)
        setTimer(TIMER_REINITIATE, this.roundTrip(), out)
    }

    private sendNotice(now: number, out: Action[]) {
        const f = this.frame(Kind.ELECTION, 0)
        f.initiator = this.id
        f.bid = this.bid
        this.passOn(f, now, out)
    }

    private onNotice(frame: Frame, now: number, out: Action[]) {
        const initiator = frame.initiator
        this.markUp(initiator)
        if (initiator === this.id) {
            // Our notice is back. Cancelled or already decided: it is dropped.
            if (!this.initiating || !this.waiting || this.waitingFor !== this.id) return
            const winner = frame.bid > this.bid ? frame.bid : this.bid
            this.initiating = false
            this.waiting = false
            cancelTimer(TIMER_REINITIATE, out)
            // A new epoch, after every epoch the notice met on its way round.
            this.epoch = nextEpoch(this.epoch)
            this.accept(winner, now, out)
            const f = this.frame(Kind.COORDINATOR, 0)
            f.initiator = this.id
            f.bid = winner
            this.passOn(f, now, out)
            return
        }
        if (this.waiting && this.waitingFor > initiator) return // the larger initiator's election goes on
        if (this.waiting && this.waitingFor < initiator && this.initiating) {
            // Cancel our own election for the larger initiator's.
            this.initiating = false
            cancelTimer(TIMER_REINITIATE, out)
        }
        this.waiting = true
        this.waitingFor = initiator
        this.enterElection(out)
        const f = this.sameMessage(frame, this.frame(Kind.ELECTION, 0))
        f.initiator = initiator
        f.bid = frame.bid > this.bid ? frame.bid : this.bid
        this.passOn(f, now, out)
        setTimer(TIMER_RESULT, 2 * this.roundTrip(), out)
    }

    private onResult(frame: Frame, now: number, out: Action[]) {
        const announcer = frame.initiator
        this.markUp(announcer)
        if (announcer === this.id) return // round once: removed
        // A result older than the one accepted is stale: it dies here instead of circling.
        if (this.acceptedEpoch >= 0 && epochAfter(this.acceptedEpoch, frame.epoch)) return
        if (this.waiting && this.waitingFor <= announcer) {
            this.waiting = false
            this.initiating = false
            cancelTimer(TIMER_RESULT, out)
            cancelTimer(TIMER_REINITIATE, out)
        }
        this.accept(frame.bid, now, out)
        const f = this.sameMessage(frame, this.frame(Kind.COORDINATOR, 0))
        f.epoch = frame.epoch
        f.initiator = announcer
        f.bid = frame.bid
        this.passOn(f, now, out)
    }

    private accept(winnerBid: number, now: number, out: Action[]) {
        this.acceptedEpoch = this.epoch
        const winner = bidId(winnerBid)
        if (winner === this.id) this.assumeCoordinatorRole(out)
        else {
            this.follow(winner, now, out)
            this.noteCoordinatorRank(winnerBid, out)
        }
    }
}

export const bidRingDescriptor: AlgorithmDescriptor = {
    algorithm: Algorithm.BidRing,
    name: "bid-ring",
    electionBound: bidRingElectionBound,
    create: (config: NodeConfig) => new BidRingNode(config),
    frameLabels: ["ELECTION initiator={initiator} bid={bid:rank}", "COORDINATOR {bid:rank} initiator={initiator} epoch={epoch}"],
    timerLabels: ["no ACK within T", "notice not back within R", "no result within 2R"],
    usesRingOrder: true,
    usesGraph: false,
    usesSuitability: true,
    needsFifoLinks: false,
}
