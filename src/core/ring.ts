// The ring algorithm of seeds 001 and 002 (Tanenbaum), on the ring family's
// acknowledged passing to the next live process (ring-base.ts).
//
// A process that notices the coordinator's failure, or recovers, sends ELECTION with a
// list holding its number to its successor; each receiver appends its number and passes
// it on. The process that finds its own number in the list turns the message into
// COORDINATOR (the list's highest number, the list as the members), which goes round
// once and is removed by the process that converted it. Frames: ELECTION carries the
// newest accepted epoch in `bid`; COORDINATOR the coordinator in `bid`, the converter in
// `initiator`, the members in `list`.
//
// Why, the choices the seeds leave open, and the message counts: docs/algorithms.md,
// "`ring`" and "The ring family".

import { AlgorithmDescriptor, AlgorithmLabels, CheckHints } from "./descriptor"
import { Algorithm, Frame, Kind } from "./frame"
import { Action, cancelTimer, NodeConfig, Role, setTimer } from "./contract"
import { ringElectionBound } from "./bounds"
import { epochAfter, maxOf, nextEpoch } from "./portable"
import { allMembers, frameFrom, isMember, oldNews } from "./node-state"
import { adoptMembers, RingBaseNode, ringBaseCheckHints, TIMER_RING_FREE } from "./ring-base"

/** A forwarder's wait for the result of the ELECTION it passed on. */
const TIMER_RESULT = TIMER_RING_FREE

export class RingNode extends RingBaseNode {
    // (state public to the module: its steps are functions after the class, which cost a
    // board no class-table entry each)
    /** This process's own ELECTION is out. */
    electing = false
    /** Epoch of the COORDINATOR accepted last. */
    acceptedEpoch = -1

    constructor(config: NodeConfig) {
        super(Algorithm.Ring, config)
    }

    /** An election and its result each go round once: 2R, and T' to spare (bid-ring's is its own). */
    override electionBound(): number {
        return ringElectionBound(this.ringOrder.length, this.timing)
    }

    protected resetRing() {
        this.electing = false
        this.acceptedEpoch = -1
    }

    protected isRingKind(kind: number): boolean {
        return kind === Kind.ELECTION || kind === Kind.COORDINATOR
    }

    /** A result naming a process found down: nobody past it may follow a dead coordinator. */
    protected endsAt(frame: Frame, id: number): boolean {
        return frame.kind === Kind.COORDINATOR && frame.bid === id
    }

    protected onDirectFrame(frame: Frame, now: number, out: Action[]): boolean {
        return false
    }

    /**
     * Our extension: a process that hears no result within R + T' of passing an ELECTION
     * on, or of starting one, holds a new election. The ELECTION's trip back to its
     * initiator and the result's trip on to the forwarder make one round (R); the initiator
     * drops its returning ELECTION when it already follows that result from someone else's
     * COORDINATOR, one process's stale view may skip the forwarder, and an initiator's
     * ELECTION lost in a storm never comes back: without this only the election deadline
     * (2.5 elections) would end the wait (campaign seeds ring mixed 3830 and 561).
     */
    protected onRingTimer(timer: number, now: number, out: Action[]) {
        if (timer !== TIMER_RESULT) return
        if (this.role !== Role.Electing) return
        this.electing = false
        holdElection(this, now, out)
    }

    beginElection(now: number, out: Action[]) {
        if (this.electing) return
        holdElection(this, now, out)
    }

    protected onRecover(now: number, out: Action[]) {
        holdElection(this, now, out)
    }

    protected onRingFrame(frame: Frame, now: number, out: Action[]): boolean {
        // Ids from payloads must be members (a list naming a stranger is dropped).
        if (!isMember(this, frame.initiator)) return false
        if (!allMembers(this, frame.list)) return false
        if (frame.list.length === 0) return false
        if (frame.kind === Kind.ELECTION) {
            const list = frame.list
            if (list.indexOf(this.id) >= 0) {
                electionReturned(this, frame, now, out)
                return true
            }
            // (our extension) an election a sitting coordinator above its initiator would win
            // (or its own, over since it heartbeats, unless it comes from it): maybe old news,
            // it dies here. Should the
            // coordinator have failed, this process's own detector says so.
            const i = frame.initiator
            if (oldNews(this, i !== this.coordinator || frame.src === i ? i : -1)) return true
            for (let k = 0; k < list.length; k++) this.markUp(list[k])
            if (this.role !== Role.Electing) this.enterElection(out)
            const f = frameFrom(this, Kind.ELECTION, 0)
            // the same ring message, forwarded
            f.seq = frame.seq
            f.initiator = frame.initiator
            // the newest accepted epoch on the way, compared as serial numbers (they wrap)
            f.bid = this.acceptedEpoch >= 0 && epochAfter(this.acceptedEpoch, frame.bid) ? this.acceptedEpoch : frame.bid
            f.list = list.slice(0)
            f.list.push(this.id)
            this.passOn(f, now, out)
            setTimer(TIMER_RESULT, this.roundTrip() + this.timing.coordinatorTimeout, out)
            return true
        }
        if (frame.kind === Kind.COORDINATOR) {
            // Back at the converter: it has circulated once.
            if (frame.initiator === this.id) return true
            const c = frame.bid
            if (frame.list.indexOf(c) < 0) return false
            // (our extension) a result below a sitting coordinator: maybe old news, it dies here
            if (oldNews(this, c)) return true
            if (this.role !== Role.Electing) {
                if (this.coordinator === c) {
                    if (this.acceptedEpoch === frame.epoch) return true
                }
            }
            // A result older than the one accepted is stale: it dies here instead of circling.
            if (this.acceptedEpoch >= 0) {
                if (epochAfter(this.acceptedEpoch, frame.epoch)) return true
            }
            adoptMembers(this, frame.list, now)
            accept(this, c, frame.epoch, now, out)
            const f = frameFrom(this, Kind.COORDINATOR, 0)
            // the same ring message, forwarded
            f.seq = frame.seq
            f.epoch = frame.epoch
            f.initiator = frame.initiator
            f.bid = c
            f.list = frame.list.slice(0)
            this.passOn(f, now, out)
            return true
        }
        return false
    }
}

function holdElection(node: RingNode, now: number, out: Action[]) {
    node.electing = true
    node.epoch = nextEpoch(node.epoch)
    node.enterElection(out)
    const f = frameFrom(node, Kind.ELECTION, 0)
    f.initiator = node.id
    f.bid = node.acceptedEpoch >= 0 ? node.acceptedEpoch : 0
    f.list = [node.id]
    node.passOn(f, now, out)
    setTimer(TIMER_RESULT, node.roundTrip() + node.timing.coordinatorTimeout, out)
}

/** The ELECTION went round: announce the highest number in it, once round the ring. */
function electionReturned(node: RingNode, frame: Frame, now: number, out: Action[]) {
    const c = maxOf(frame.list)
    // Someone else's COORDINATOR already told us this result.
    if (node.role !== Role.Electing) {
        if (node.coordinator === c) return
    }
    // (our extension) an old election of ours, naming a process below a sitting coordinator
    if (oldNews(node, c)) return
    // The new coordinator's epoch follows every epoch the ring has accepted (ours may be stale).
    if (!epochAfter(node.epoch, frame.bid)) node.epoch = nextEpoch(frame.bid)
    adoptMembers(node, frame.list, now)
    accept(node, c, node.epoch, now, out)
    const f = frameFrom(node, Kind.COORDINATOR, 0)
    f.initiator = node.id
    f.bid = c
    f.list = frame.list.slice(0)
    node.passOn(f, now, out)
}

function accept(node: RingNode, c: number, epoch: number, now: number, out: Action[]) {
    node.acceptedEpoch = epoch
    node.electing = false
    cancelTimer(TIMER_RESULT, out)
    if (epochAfter(epoch, node.epoch)) node.epoch = epoch
    if (c === node.id) node.assumeCoordinatorRole(out)
    else node.follow(c, now, out)
}

export const ringDescriptor: AlgorithmDescriptor = {
    algorithm: Algorithm.Ring,
    name: "ring",
    electionBound: ringElectionBound,
    create: (config: NodeConfig) => new RingNode(config),
    usesRingOrder: true,
    usesGraph: false,
    usesSuitability: false,
    needsFifoLinks: false,
}

/** The exhaustive check's hints (descriptor.ts): the ring's. */
export function ringCheckHints(): CheckHints {
    return ringBaseCheckHints()
}

/** How charts and traces name ring's frames and timers (descriptor.ts). No board calls this. */
export function ringLabels(): AlgorithmLabels {
    return {
        frames: ["ELECTION [{list}]", "COORDINATOR {bid} members [{list}] epoch={epoch}"],
        timers: ["no ACK within T", "no result within R + T'"],
    }
}

/**
 * Most heap, bytes after a collection, a board running ring may hold at 12 boards through the
 * lab's failover-10 (sim/lab/heap-size.ts): the peaks measured and about 2 KB for how they
 * vary. No board calls this, so no board image holds it.
 */
export function ringHeapBudget(): number {
    return 32 * 1024
}
