// The ring election with bids of seed 003, on the ring family's acknowledged passing to
// the next live process (ring-base.ts).
//
// A bid is suitability * 65536 + id (`makeBid`, a u32 in the frame's `bid`). The initiator
// sends ELECTION with itself in `initiator` and its bid; each receiver forwards the better
// of the message's bid and its own. Back at the initiator the bid names the winner, and
// COORDINATOR (the winner's bid, the initiator) goes round once. A station waiting for a
// result (`waitingFor`) discards a notice from a smaller initiator (a voter still
// electing, for R: past it the larger notice was lost) and cancels its election for a
// larger one's. The
// initiator re-initiates after R = n(T + 1) (TIMER_REINITIATE); a voter that hears no
// result within 2R starts an election of its own (TIMER_RESULT).
//
// Why, the choices the seed leaves open, and the message counts: docs/algorithms.md,
// "`bid-ring`" and "The ring family".

import { AlgorithmDescriptor, AlgorithmLabels, CheckHints } from "./descriptor"
import { Algorithm, Frame, Kind } from "./frame"
import { Action, cancelTimer, NO_NODE, NodeConfig, Role, setTimer } from "./contract"
import { bidRingElectionBound } from "./bounds"
import { epochAfter, mod, nextEpoch } from "./portable"
import { RingBaseNode, ringBaseCheckHints, TIMER_RING_FREE } from "./ring-base"
import { frameFrom, isMember, oldNews } from "./node-state"

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
    // (the fields below start as resetRing sets them, and are the module's functions' too)
    /** Waiting for the result of the election initiated by `waitingFor`. */
    waiting: boolean
    waitingFor: number
    /** When a voter last passed on `waitingFor`'s notice (set before it is read: onNotice). */
    waitingSince: number
    /** This process's own election is on (not cancelled, not completed). */
    initiating: boolean
    /** Epoch of the result accepted last; -1 before any. */
    acceptedEpoch: number
    /** The coordinator was suspected (or contested) while this process waited: its 2R wait must end in an election. */
    suspectedWhileWaiting: boolean

    constructor(config: NodeConfig) {
        super(Algorithm.BidRing, config)
        this.suitability = config.suitability ? config.suitability : 0
        this.bid = this.suitability * 65536 + this.id // makeBid
        this.resetRing()
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

    beginElection(now: number, out: Action[]) {
        // Waiting for a result, still electing: the wait's end initiates. A voter that has
        // accepted a result meanwhile and now suspects or outranks its coordinator has
        // nothing left to wait for: it initiates at once, not up to 2R later (our extension).
        if (this.waiting) {
            if (this.role === Role.Electing) {
                this.suspectedWhileWaiting = true
                return
            }
        }
        initiate(this, now, out)
    }

    /**
     * A voter waiting for a result hears a lower bid lead: the election it voted in was
     * settled without it (its notice cancelled, or the result passed it by). It initiates at
     * once rather than at the end of its 2R wait (our extension).
     */
    override lowerLeadsWhileElecting(heartbeat: Frame, now: number, out: Action[]) {
        if (this.waiting) {
            if (!this.initiating) initiate(this, now, out)
        }
    }

    protected onRecover(now: number, out: Action[]) {
        initiate(this, now, out)
    }

    protected onRingTimer(timer: number, now: number, out: Action[]) {
        // (nested ifs rather than &&: a board's compiler spends bytes on each && it evaluates)
        if (timer === TIMER_REINITIATE) {
            if (this.initiating) {
                if (this.waitingFor === this.id) {
                    // (our extension) leading or following by now (a handover, a result
                    // that missed us): no notice. A coordinator's own notice died at its
                    // followers as old news, and it sent it again every R, each time taking
                    // its successor out of following it (campaign seed bid-ring mixed 86).
                    if (this.role === Role.Electing) {
                        sendNotice(this, now, out)
                        setTimer(TIMER_REINITIATE, this.roundTrip(), out)
                    } else this.initiating = false
                }
            }
        } else if (timer === TIMER_RESULT) {
            if (this.waiting) {
                if (!this.initiating) {
                    this.waiting = false
                    // A result accepted meanwhile (a lower initiator's) leaves no dead end to
                    // get out of, unless its coordinator was suspected since: the watch is not
                    // re-armed. Otherwise the failure detector and the contest watch that
                    // coordinator.
                    if (this.role === Role.Electing || this.coordinator === NO_NODE || this.suspectedWhileWaiting)
                        initiate(this, now, out)
                }
            }
        }
    }

    protected onRingFrame(frame: Frame, now: number, out: Action[]): boolean {
        if (!isMember(this, frame.initiator)) return false
        if (!isMember(this, bidId(frame.bid))) return false
        if (frame.kind === Kind.ELECTION) {
            onNotice(this, frame, now, out)
            return true
        }
        if (frame.kind === Kind.COORDINATOR) {
            onResult(this, frame, now, out)
            return true
        }
        return false
    }
}

function initiate(node: BidRingNode, now: number, out: Action[]) {
    node.suspectedWhileWaiting = false
    cancelTimer(TIMER_RESULT, out)
    node.waiting = true
    node.waitingFor = node.id
    node.initiating = true
    node.enterElection(out)
    sendNotice(node, now, out)
    setTimer(TIMER_REINITIATE, node.roundTrip(), out)
}

function sendNotice(node: BidRingNode, now: number, out: Action[]) {
    const f = frameFrom(node, Kind.ELECTION, 0)
    f.initiator = node.id
    f.bid = node.bid
    node.passOn(f, now, out)
}

function onNotice(node: BidRingNode, frame: Frame, now: number, out: Action[]) {
    const initiator = frame.initiator
    node.markUp(initiator)
    if (initiator === node.id) {
        // Our notice is back. Cancelled or already decided: it is dropped.
        if (!node.initiating) return
        if (!node.waiting) return
        if (node.waitingFor !== node.id) return
        const winner = frame.bid > node.bid ? frame.bid : node.bid
        node.initiating = false
        node.waiting = false
        cancelTimer(TIMER_REINITIATE, out)
        // A new epoch, after every epoch the notice met on its way round.
        node.epoch = nextEpoch(node.epoch)
        accept(node, winner, now, out)
        const f = frameFrom(node, Kind.COORDINATOR, 0)
        f.initiator = node.id
        f.bid = winner
        node.passOn(f, now, out)
        return
    }
    // (our extension) an election a sitting coordinator outbids (or its own, over since it
    // heartbeats, unless it comes from it): maybe old news, it dies here. Should the
    // coordinator have failed, this process's own detector says so.
    if (oldNews(node, initiator !== node.coordinator || frame.src === initiator ? frame.bid : -1)) return
    if (node.waiting) {
        // The larger initiator's election goes on: it had R to come back to its initiator.
        // Past R it was lost (its initiator crashed), and this notice carries the
        // election instead of dying until the 2R wait ends (our extension).
        // A voter that has accepted a result meanwhile (a smaller initiator's) still discards:
        // a late notice must not open an election once it follows.
        if (node.waitingFor > initiator) {
            if (node.initiating) return
            // (our extension) unless its bid outranks the coordinator accepted: a higher
            // process is up and electing, and its election must go on (campaign seed bid-ring
            // mixed 104, delivered as the boards do; and 5087, 5047, 9019, 8002, 3679)
            if (node.role !== Role.Electing) {
                if (frame.bid <= (node.role === Role.Coordinator ? node.bid : node.coordinatorRank)) return
            } else if (now - node.waitingSince < node.roundTrip()) return
        }
        if (node.waitingFor < initiator) {
            if (node.initiating) {
                // Cancel our own election for the larger initiator's.
                node.initiating = false
                cancelTimer(TIMER_REINITIATE, out)
            }
        }
    }
    node.waiting = true
    node.waitingFor = initiator
    node.waitingSince = now
    node.enterElection(out)
    const f = frameFrom(node, Kind.ELECTION, 0)
    // the same ring message, forwarded
    f.seq = frame.seq
    f.initiator = initiator
    f.bid = frame.bid > node.bid ? frame.bid : node.bid
    node.passOn(f, now, out)
    setTimer(TIMER_RESULT, 2 * node.roundTrip(), out)
}

function onResult(node: BidRingNode, frame: Frame, now: number, out: Action[]) {
    const announcer = frame.initiator
    node.markUp(announcer)
    if (announcer === node.id) return // round once: removed
    // (our extension) a result a sitting coordinator outbids: maybe old news, it dies here
    if (oldNews(node, frame.bid)) return
    // A result older than the one accepted is stale: it dies here instead of circling.
    if (node.acceptedEpoch >= 0) {
        if (epochAfter(node.acceptedEpoch, frame.epoch)) return
    }
    if (node.waiting) {
        if (node.waitingFor <= announcer || frame.bid >= node.bid) {
            node.waiting = false
            node.initiating = false
            cancelTimer(TIMER_RESULT, out)
            cancelTimer(TIMER_REINITIATE, out)
        }
    }
    accept(node, frame.bid, now, out)
    const f = frameFrom(node, Kind.COORDINATOR, 0)
    // the same ring message, forwarded
    f.seq = frame.seq
    f.epoch = frame.epoch
    f.initiator = announcer
    f.bid = frame.bid
    node.passOn(f, now, out)
}

function accept(node: BidRingNode, winnerBid: number, now: number, out: Action[]) {
    node.acceptedEpoch = node.epoch
    const winner = bidId(winnerBid)
    if (winner === node.id) node.assumeCoordinatorRole(out)
    else {
        node.follow(winner, now, out)
        node.noteCoordinatorRank(winnerBid, out)
    }
}

export const bidRingDescriptor: AlgorithmDescriptor = {
    algorithm: Algorithm.BidRing,
    name: "bid-ring",
    electionBound: bidRingElectionBound,
    create: (config: NodeConfig) => new BidRingNode(config),
    usesRingOrder: true,
    usesGraph: false,
    usesSuitability: true,
    needsFifoLinks: false,
}

/** The exhaustive check's hints (descriptor.ts): the ring's, the bid, fixed at construction, and the wait's start. */
export function bidRingCheckHints(): CheckHints {
    const hints = ringBaseCheckHints()
    // waitingSince is read only while a voter waits, when TIMER_RESULT, set with it, ends 2R
    // after it: the timer's deadline in the state says as much
    hints.skipped = (n: BidRingNode) => [n.ringPos, n.suitability, n.bid, n.waitingSince]
    return hints
}

/** How charts and traces name bid-ring's frames and timers (descriptor.ts). No board calls this. */
export function bidRingLabels(): AlgorithmLabels {
    return {
        frames: ["ELECTION initiator={initiator} bid={bid:rank}", "COORDINATOR {bid:rank} initiator={initiator} epoch={epoch}"],
        timers: ["no ACK within T", "notice not back within R", "no result within 2R"],
    }
}

/**
 * Most heap, bytes after a collection, a board running bid-ring may hold at 12 boards through the
 * lab's failover-10 (sim/lab/heap-size.ts): the peaks measured and about 2 KB for how they
 * vary. No board calls this, so no board image holds it.
 */
export function bidRingHeapBudget(): number {
    return 31 * 1024
}
