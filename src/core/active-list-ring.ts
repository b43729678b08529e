// The ring algorithm of seed 000 (Silberschatz): elect(i) messages and active lists, on
// the ring family's acknowledged passing to the next live process (ring-base.ts).
//
// elect(j) is an ELECTION with j in `initiator` and its election's epoch. A process that
// detects the coordinator's failure sends elect(i) with a new active list {i}; on its
// first elect(j) a process starts a list {i, j} and sends elect(i), then elect(j); later
// ones add j and pass elect(j) on; its own elect(i) coming back completes the list, and
// the process follows the list's largest number (no announcement circulates). A recovered
// process sends INQUIRY round the ring; the coordinator answers it with a unicast
// COORDINATOR carrying its number in `bid`.
//
// Why, the choices the seed leaves open, and the message counts: docs/algorithms.md,
// "`active-list-ring`", "The ring family" and, for the epochs, "Converging under faults".

import { AlgorithmDescriptor, AlgorithmLabels, CheckHints } from "./descriptor"
import { Algorithm, Frame, Kind } from "./frame"
import { Action, ActionType, cancelTimer, NO_NODE, NodeConfig, Role, setTimer } from "./contract"
import { ringElectionBound } from "./bounds"
import { epochAfter, maxOf, nextEpoch } from "./portable"
import { forgetDown, RingBaseNode, ringBaseCheckHints, TIMER_RING_FREE } from "./ring-base"
import { frameFrom, isMember, oldNews } from "./node-state"

export class ActiveListRingNode extends RingBaseNode {
    // (state public to the module: its steps are functions after the class, which cost a
    // board no class-table entry each)
    // (each starts as resetRing sets it)
    /** Seen or sent an elect message in the current election. */
    participating: boolean
    /** The active list of the current (or last) election. */
    active: number[]
    /** Recovered, INQUIRY out, waiting for the coordinator's reply. */
    inquiring: boolean
    /** The epoch of the election this process takes part in (or took part in last); -1: none. */
    electionEpoch: number
    /** Our election was held to carry a newer epoch to this process, whose elect came stale; -1: none. */
    answersStale: number

    constructor(config: NodeConfig) {
        super(Algorithm.ActiveListRing, config)
        this.resetRing()
    }

    /** An election and its result each go round once: 2R, and T' to spare (bid-ring's is its own). */
    override electionBound(): number {
        return ringElectionBound(this.ringOrder.length, this.timing)
    }

    /** This process's active list (a copy). */
    activeList(): number[] {
        return this.active.slice(0)
    }

    protected resetRing() {
        this.answersStale = -1
        this.participating = false
        this.active = []
        this.inquiring = false
        this.electionEpoch = -1
    }

    /**
     * Leaving (deadline, or a higher coordinator heard) keeps the election's epoch and the
     * elect messages passed on: a late elect of it is passed on once more, never joined.
     */
    protected override leaveRing() {
        this.answersStale = -1
        this.participating = false
        this.inquiring = false
    }

    /**
     * An election held to answer a stale elect must reach its sender, the only carrier of
     * the newer epoch: a coordinator's heartbeat does not end it (our extension; without
     * it the sender, a higher process, restarts behind the others for ever: campaign seed
     * active-list-ring mixed 5953). Unless the heartbeat's sender outranks that process: it
     * follows it then, and an election it no longer needs died at that coordinator's
     * followers (old news) and held this process electing for the deadline.
     */
    override carriesOthersElection(rank: number): boolean {
        return this.participating && this.answersStale > rank
    }

    /**
     * (our extension) A lower coordinator heartbeats in an epoch not older than our
     * election's: that epoch's election ended without our elect (lost, or dead at a process
     * of a newer epoch), and we would wait for the deadline. Elect again, in a newer epoch.
     */
    override lowerLeadsWhileElecting(heartbeat: Frame, now: number, out: Action[]) {
        if (!this.participating) return
        const epoch = heartbeat.epoch
        if (epochAfter(this.electionEpoch, epoch)) return
        if (epochAfter(epoch, this.epoch)) this.epoch = epoch
        this.participating = false
        this.beginElection(now, out)
    }

    protected isRingKind(kind: number): boolean {
        return kind === Kind.ELECTION || kind === Kind.INQUIRY
    }

    protected endsAt(frame: Frame, id: number): boolean {
        return frame.initiator === id
    }

    /**
     * (our extension, as the ring's initiator) Our elect is not back within R + T' of
     * sending it: it died on the way (lost in a storm, with a process that crashed holding
     * it, or at a follower of a stale coordinator), and only the election deadline (2.5
     * elections) would end the wait. Elect again, in a newer epoch (campaign seeds
     * active-list-ring mixed 4938 and 2160), unless it leads or follows by then (seed 7148,
     * coordinator-crash 8338).
     * The only timer of ours (TIMER_RING_FREE).
     */
    protected onRingTimer(timer: number, now: number, out: Action[]) {
        if (!this.participating) return
        this.participating = false
        // leading or following by now (its elect died as old news at a coordinator's
        // followers, or at the coordinator): no election
        if (this.role !== Role.Electing) return
        this.beginElection(now, out)
    }

    beginElection(now: number, out: Action[]) {
        if (this.participating) return
        this.answersStale = -1
        // Rule 1: a new active list holding i; elect(i) to the right.
        this.epoch = nextEpoch(this.epoch)
        this.electionEpoch = this.epoch
        forgetDown(this)
        this.participating = true
        this.active = [this.id]
        this.enterElection(out)
        sendElect(this, this.id, 0, now, out)
    }

    protected onRecover(now: number, out: Action[]) {
        this.setRole(Role.Follower, NO_NODE, out)
        this.inquiring = true
        const f = frameFrom(this, Kind.INQUIRY, 0)
        f.initiator = this.id
        this.passOn(f, now, out)
    }

    protected onRingFrame(frame: Frame, now: number, out: Action[]): boolean {
        if (!isMember(this, frame.initiator)) return false
        if (frame.kind === Kind.ELECTION) {
            // (our extension) an election a sitting coordinator above j would win (or its
            // own, over since it heartbeats, unless it comes from it): maybe old news, it dies
            // here. Should the coordinator have failed, this process's own detector says so.
            const j = frame.initiator
            if (oldNews(this, j !== this.coordinator || frame.src === j ? j : -1)) return true
            return onElect(this, j, frame.seq, frame.epoch, now, out)
        }
        if (frame.kind === Kind.INQUIRY) {
            const asker = frame.initiator
            this.markUp(asker)
            if (asker === this.id) {
                // Round the ring and nobody claims to be coordinator (our extension: unless a
                // coordinator became known meanwhile, as a late INQUIRY finds it).
                if (!this.inquiring) return true
                this.inquiring = false
                if (this.coordinator === NO_NODE) this.beginElection(now, out)
                return true
            }
            if (this.role === Role.Coordinator) {
                const f = frameFrom(this, Kind.COORDINATOR, asker)
                f.bid = this.id
                out.push({ type: ActionType.Send, to: [asker], frame: f })
                return true
            }
            const f = frameFrom(this, Kind.INQUIRY, 0)
            // the same ring message, forwarded
            f.seq = frame.seq
            f.initiator = asker
            this.passOn(f, now, out)
            return true
        }
        return false
    }

    /** The coordinator's reply to our INQUIRY. */
    protected onDirectFrame(frame: Frame, now: number, out: Action[]): boolean {
        if (frame.kind !== Kind.COORDINATOR) return false
        if (!this.inquiring) return false
        if (!isMember(this, frame.bid)) return false
        this.inquiring = false
        const c = frame.bid
        if (c > this.id) this.follow(c, now, out)
        else this.beginElection(now, out)
        return true
    }
}

function onElect(node: ActiveListRingNode, j: number, seq: number, epoch: number, now: number, out: Action[]): boolean {
    node.markUp(j)
    if (node.electionEpoch >= 0) {
        if (epochAfter(node.electionEpoch, epoch)) {
            if (!node.participating) {
                // (our extension) a sitting coordinator below j (above, it died just now):
                // j's election may yet complete in its own epoch, and our newer one would die
                // at the first process following that coordinator. Pass it on as it is.
                if (oldNews(node, -1)) {
                    const f = frameFrom(node, Kind.ELECTION, 0)
                    f.epoch = epoch
                    f.seq = seq
                    f.initiator = j
                    node.passOn(f, now, out)
                    return true
                }
                node.beginElection(now, out)
                node.answersStale = j
            }
            return true
        }
    }
    if (j === node.id) {
        // Rule c: our own message is back; the active list is complete.
        if (!node.participating) return true
        if (epoch !== node.electionEpoch) return true
        node.participating = false
        cancelTimer(TIMER_RING_FREE, out)
        const c = maxOf(node.active)
        if (c === node.id) node.assumeCoordinatorRole(out)
        else node.follow(c, now, out)
        return true
    }
    if (!node.participating) {
        if (epoch === node.electionEpoch) {
            // A late elect of the election we have finished or left: on its way back to j,
            // passed on once. Seen here before, it went round without meeting j (j gone
            // back to following, or down): it dies rather than circle (our extension).
            if (node.active.indexOf(j) >= 0) return true
            node.active.push(j)
            sendElect(node, j, seq, now, out)
            return true
        }
    }
    if (!node.participating || epoch !== node.electionEpoch) {
        // Rule a: the first elect seen (of this election: a newer one starts afresh);
        // active list {i, j}; elect(i), then elect(j).
        node.electionEpoch = epoch
        forgetDown(node)
        node.participating = true
        node.answersStale = -1
        node.inquiring = false
        node.active = [node.id, j]
        node.enterElection(out)
        sendElect(node, node.id, 0, now, out)
        sendElect(node, j, seq, now, out)
        return true
    }
    // Rule b. An elect(j) already listed went round without meeting j: drop it.
    if (node.active.indexOf(j) >= 0) return true
    node.active.push(j)
    sendElect(node, j, seq, now, out)
    return true
}

/** elect(j); `seq` 0 for a message of our own, else the one being forwarded. */
function sendElect(node: ActiveListRingNode, j: number, seq: number, now: number, out: Action[]) {
    const f = frameFrom(node, Kind.ELECTION, 0)
    f.epoch = node.electionEpoch
    f.seq = seq
    f.initiator = j
    node.passOn(f, now, out)
    // our own elect: it should be back within a round trip (onRingTimer)
    if (j === node.id) setTimer(TIMER_RING_FREE, node.roundTrip() + node.timing.coordinatorTimeout, out)
}

export const activeListRingDescriptor: AlgorithmDescriptor = {
    algorithm: Algorithm.ActiveListRing,
    name: "active-list-ring",
    electionBound: ringElectionBound,
    create: (config: NodeConfig) => new ActiveListRingNode(config),
    usesRingOrder: true,
    usesGraph: false,
    usesSuitability: false,
    needsFifoLinks: true,
}

/** The exhaustive check's hints (descriptor.ts): the ring's. */
export function activeListRingCheckHints(): CheckHints {
    return ringBaseCheckHints()
}

/** How charts and traces name active-list-ring's frames and timers (descriptor.ts). No board calls this. */
export function activeListRingLabels(): AlgorithmLabels {
    return {
        frames: ["ELECTION elect({initiator})", "INQUIRY from {initiator}", "COORDINATOR {bid} epoch={epoch}"],
        timers: ["no ACK within T", "own elect not back within R + T'"],
    }
}

/**
 * Most heap, bytes after a collection, a board running active-list-ring may hold at 12 boards through the
 * lab's failover-10 (sim/lab/heap-size.ts): the peaks measured and about 2 KB for how they
 * vary. No board calls this, so no board image holds it.
 */
export function activeListRingHeapBudget(): number {
    return 32 * 1024
}
