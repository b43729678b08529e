// The ring algorithm of seed 000 (Silberschatz): elect(i) messages and active lists.
//
// 1. A process i that detects the coordinator's failure creates a new active list
//    holding i, and sends elect(i) to its right neighbour (its successor).
// 2. A process i that receives elect(j) from the left:
//    a. if this is the first elect message it has seen or sent, creates a new active
//       list with i and j, then sends elect(i) followed by elect(j);
//    b. if j is not i, adds j to its active list and forwards elect(j);
//    c. if j is i, its own message has gone round: the active list now holds every
//       active process, and the coordinator is the largest number in it.
// Every process computes the result itself: no announcement circulates.
// Recovery: the recovered process sends INQUIRY round the ring; it is forwarded to the
// current coordinator, which replies with its number (a unicast COORDINATOR).
//
// Choices the seed leaves open (see docs/algorithms.md):
// - elect(j) is an ELECTION frame with j in `initiator`. Dead successors are found
//   from a missing ACK and bypassed (ring-base.ts), the coordinator too: suspecting
//   it marks nobody down. elect(j) and INQUIRY from j are dropped by
//   the process that finds j itself down: they could never come back.
// - Each elect(x) circulates the whole ring once, so with k live processes taking part
//   an election costs k² ELECTION messages (and k² ACKs), plus one send to each dead
//   successor before its predecessor gives it up.
// - An elect(j) already in the active list (it went round without meeting j) is dropped.
// - The initiator starts a new epoch; the others take it from the elect messages. Every
//   elect carries its election's epoch (our extension): an elect of a newer election makes
//   a process start afresh (rule a in that epoch), one of an older election dies, and a late
//   elect of the election a process has finished is passed on without starting another.
//   A finished process that gets an elect of an older election holds a newer one. A
//   process that starts or joins an election forgets which successors it found down: a
//   successor given up during lost ACKs would otherwise stay left out of every election.
//   Without this, a process that restarts a stalled election meets others still counting
//   the old one, and computes its result from an incomplete active list.
// - The coordinator's reply to INQUIRY carries its number in `bid` and is not
//   acknowledged (it is not a ring message).
// - A recovered process that outranks the coordinator named in the reply then starts an
//   election, which it wins (the seed says nothing; this keeps "the coordinator is always
//   the largest active number"). An INQUIRY that comes back to the inquirer found no
//   coordinator: the inquirer starts an election.

import { AlgorithmDescriptor } from "./descriptor"
import { Algorithm, Frame, Kind, kindName } from "./frame"
import { Action, ActionType, NO_NODE, NodeConfig, Role } from "./node"
import { epochAfter, maxOf, nextEpoch } from "./portable"
import { RingBaseNode } from "./ring-base"

export class ActiveListRingNode extends RingBaseNode {
    /** Seen or sent an elect message in the current election. */
    private participating = false
    /** The active list of the current (or last) election. */
    private active: number[] = []
    /** Recovered, INQUIRY out, waiting for the coordinator's reply. */
    private inquiring = false
    /** The epoch of the election this process takes part in (or took part in last); -1: none. */
    private electionEpoch = -1

    constructor(config: NodeConfig) {
        super(Algorithm.ActiveListRing, config)
    }

    /** This process's active list (a copy). */
    activeList(): number[] {
        return this.active.slice(0)
    }

    protected resetRing() {
        this.participating = false
        this.active = []
        this.inquiring = false
        this.electionEpoch = -1
    }

    protected isRingKind(kind: number): boolean {
        return kind === Kind.ELECTION || kind === Kind.INQUIRY
    }

    protected endsAt(frame: Frame, id: number): boolean {
        return frame.initiator === id
    }

    protected onRingTimer(timer: number, now: number, out: Action[]) {}

    protected ringTimerName(timer: number): string {
        return "timer " + timer
    }

    protected beginElection(now: number, out: Action[]) {
        if (this.participating) return
        // Rule 1: a new active list holding i; elect(i) to the right.
        this.epoch = nextEpoch(this.epoch)
        this.electionEpoch = this.epoch
        this.forgetDown()
        this.participating = true
        this.active = [this.id]
        this.enterElection(out)
        this.sendElect(this.id, 0, now, out)
    }

    protected onRecover(now: number, out: Action[]) {
        this.setRole(Role.Follower, NO_NODE, out)
        this.inquiring = true
        const f = this.frame(Kind.INQUIRY, 0)
        f.initiator = this.id
        this.passOn(f, now, out)
    }

    protected onRingFrame(frame: Frame, now: number, out: Action[]): boolean {
        if (!this.isMember(frame.initiator)) return false
        if (frame.kind === Kind.ELECTION) return this.onElect(frame.initiator, frame.seq, frame.epoch, now, out)
        if (frame.kind === Kind.INQUIRY) {
            const asker = frame.initiator
            this.markUp(asker)
            if (asker === this.id) {
                // Round the ring and nobody claims to be coordinator.
                if (!this.inquiring) return true
                this.inquiring = false
                this.beginElection(now, out)
                return true
            }
            if (this.role === Role.Coordinator) {
                const f = this.frame(Kind.COORDINATOR, asker)
                f.bid = this.id
                out.push({ type: ActionType.Send, to: [asker], frame: f })
                return true
            }
            const f = this.sameMessage(frame, this.frame(Kind.INQUIRY, 0))
            f.initiator = asker
            this.passOn(f, now, out)
            return true
        }
        return false
    }

    /** The coordinator's reply to our INQUIRY. */
    protected onDirectFrame(frame: Frame, now: number, out: Action[]): boolean {
        if (frame.kind !== Kind.COORDINATOR || !this.inquiring || !this.isMember(frame.bid)) return false
        this.inquiring = false
        const c = frame.bid
        if (c > this.id) this.follow(c, now, out)
        else this.beginElection(now, out)
        return true
    }

    private onElect(j: number, seq: number, epoch: number, now: number, out: Action[]): boolean {
        this.markUp(j)
        // An elect of an older election than ours is stale: it dies here. If ours is over,
        // its sender is behind and its election can never finish: hold a newer one, which
        // its elect messages carry to the sender (our extension).
        if (this.electionEpoch >= 0 && epochAfter(this.electionEpoch, epoch)) {
            if (!this.participating) this.beginElection(now, out)
            return true
        }
        if (j === this.id) {
            // Rule c: our own message is back; the active list is complete.
            if (!this.participating || epoch !== this.electionEpoch) return true
            this.participating = false
            const c = maxOf(this.active)
            if (c === this.id) this.assumeCoordinatorRole(out)
            else this.follow(c, now, out)
            return true
        }
        if (!this.participating && epoch === this.electionEpoch) {
            // A late elect of the election we have finished: on its way back to j.
            this.sendElect(j, seq, now, out)
            return true
        }
        if (!this.participating || epoch !== this.electionEpoch) {
            // Rule a: the first elect seen (of this election: a newer one starts afresh);
            // active list {i, j}; elect(i), then elect(j).
            this.electionEpoch = epoch
            this.forgetDown()
            this.participating = true
            this.inquiring = false
            this.active = [this.id, j]
            this.enterElection(out)
            this.sendElect(this.id, 0, now, out)
            this.sendElect(j, seq, now, out)
            return true
        }
        // Rule b. An elect(j) already listed went round without meeting j: drop it.
        if (this.active.indexOf(j) >= 0) return true
        this.active.push(j)
        this.sendElect(j, seq, now, out)
        return true
    }

    /** elect(j); `seq` 0 for a message of our own, else the one being forwarded. */
    private sendElect(j: number, seq: number, now: number, out: Action[]) {
        const f = this.frame(Kind.ELECTION, 0)
        f.epoch = this.electionEpoch
        f.seq = seq
        f.initiator = j
        this.passOn(f, now, out)
    }
}

export const activeListRingDescriptor: AlgorithmDescriptor = {
    algorithm: Algorithm.ActiveListRing,
    name: "active-list-ring",
    create: (config: NodeConfig) => new ActiveListRingNode(config),
    describeFrame: (frame: Frame) => {
        if (frame.kind === Kind.ELECTION) return "ELECTION elect(" + frame.initiator + ")"
        if (frame.kind === Kind.INQUIRY) return "INQUIRY from " + frame.initiator
        if (frame.kind === Kind.COORDINATOR) return "COORDINATOR " + frame.bid + " epoch=" + frame.epoch
        return kindName(frame.kind)
    },
    usesRingOrder: true,
    usesGraph: false,
    usesSuitability: false,
}
