// What the ring algorithms (`ring`, `active-list-ring`, `bid-ring`) share: a ring message
// goes to the next process in ring order not believed down and waits for its ACK on an
// acknowledged link (ack-link.ts); a missing ACK marks that successor down and sends what
// waited on it past it. The receiver ACKs every ring message and drops copies it has
// handled (`seen`). Each algorithm module supplies what to do with its messages
// (onRingFrame, onDirectFrame, endsAt) and its timers. The rules and why each one is
// there (seeds 001, 002, 003 and our extensions): docs/algorithms.md, "The ring family".
//
// Portable (DeviceScript subset): plain arrays, no splice, no super calls.

import { AckLink, adaptWait, removeMessages } from "./ack-link"
import { Algorithm, Frame, Kind, makeFrame, MAX_SEQ } from "./frame"
import { Action, ActionType, cancelTimer, indexOfSorted, NO_NODE, NodeConfig, TIMER_ALGORITHM, TIMER_CONTEST } from "./contract"
import { CheckHints } from "./descriptor"
import { ElectionNode } from "./node"
import { ringRoundTrip } from "./bounds"
import { send } from "./node-state"

/** Ring messages remembered to drop their copies. */
export const SEEN_MESSAGES = 32

/** Timer of the acknowledgement wait. */
export const TIMER_RING_ACK = TIMER_ALGORITHM
/** First timer id free for a ring algorithm's own use. */
export const TIMER_RING_FREE = TIMER_ALGORITHM + 1

export abstract class RingBaseNode extends ElectionNode {
    /** Position of this process in `ringOrder`. */
    readonly ringPos: number
    // down, downAt, link, lastSeq and seen are public: the exhaustive check writes them into
    // a state's key in its own way (times as ages, seqs by who gave them: ringBaseCheckHints)
    // (the fields below are set by the constructor and clearRing, not by initializers: the
    // same assignments twice would cost every ring image bytes)
    /** down[i]: this process believes ids[i] is down, since downAt[i]. */
    down: boolean[]
    downAt: number[]
    /** Ring messages sent and not yet acknowledged, oldest first (ack-link.ts). */
    readonly link: AckLink
    /** Last seq this process gave a message it originated. */
    lastSeq: number
    /** Keys of the ring messages handled last (a small ring buffer), to drop copies. */
    seen: number[]
    // (this one and the next are the module's functions' too)
    seenNext: number
    /** Depth of messages handed to our own handler because everybody else is down. */
    loopback: number

    constructor(algorithm: Algorithm, config: NodeConfig) {
        super(algorithm, config)
        this.ringPos = this.ringOrder.indexOf(this.id)
        this.link = new AckLink(TIMER_RING_ACK, config.timing.answerTimeout, 3 * config.timing.failureTimeout)
        // A rebooted board must not reuse the seqs its peers remember: start anywhere.
        this.lastSeq = this.jitter.below(MAX_SEQ)
        clearRing(this)
    }

    // ---- what each ring algorithm defines ----

    /** Forget the algorithm's own state (start, crash, recovery). */
    protected abstract resetRing(): void
    /** Start this algorithm's election (unless one is already on here). */
    abstract beginElection(now: number, out: Action[]): void
    /** True for the kinds that travel round the ring (acknowledged, bypassing dead successors). */
    protected abstract isRingKind(kind: number): boolean
    /** A ring message arrived (already acknowledged). */
    protected abstract onRingFrame(frame: Frame, now: number, out: Action[]): boolean
    /** Any other frame (a unicast reply). */
    protected abstract onDirectFrame(frame: Frame, now: number, out: Action[]): boolean
    /** True when `frame` has no use past `id`, found down: drop it rather than go round `id`. */
    protected abstract endsAt(frame: Frame, id: number): boolean
    protected abstract onRingTimer(timer: number, now: number, out: Action[]): void

    // ---- the shared mechanism ----

    protected resetAlgorithm() {
        clearRing(this)
        this.resetRing()
    }

    /**
     * Leaving an election (deadline, or a higher coordinator heard) forgets this process's
     * own part but keeps the messages it still has to pass on: another process's election
     * must not die with ours.
     */
    override forgetElection(now: number, out: Action[]) {
        for (let t = TIMER_RING_FREE; t < TIMER_CONTEST; t++) cancelTimer(t, out)
        // Our own election's messages still waiting for an ACK die with it.
        for (let k = this.link.dsts.length - 1; k >= 0; k--) if (this.link.frames[k].initiator === this.id) removeMessages(this.link, k, -1)
        this.link.rearm(now, out)
        this.leaveRing()
    }

    /** Leaving an election: forget this process's part (an algorithm may keep what it passed on). */
    protected leaveRing() {
        this.resetRing()
    }

    onSuspect(now: number, out: Action[]) {
        this.beginElection(now, out)
    }

    protected override heardFrom(id: number) {
        this.markUp(id)
    }

    protected onFrame(frame: Frame, now: number, out: Action[]): boolean {
        if (frame.kind === Kind.ACK) return onAck(this, frame, now, out)
        if (this.isRingKind(frame.kind)) {
            const ack = send(this, Kind.ACK, frame.src, out)
            ack.seq = frame.seq
            ack.initiator = frame.initiator
            ack.bid = frame.kind
            if (!firstSight(this, frame)) return true
            return this.onRingFrame(frame, now, out)
        }
        return this.onDirectFrame(frame, now, out)
    }

    protected onTimer(timer: number, now: number, out: Action[]) {
        if (timer === TIMER_RING_ACK) onAckTimeout(this, now, out)
        else this.onRingTimer(timer, now, out)
    }

    /** R, a notice's worst-case round trip: every hop in 1, or in T + 1 past a dead successor. */
    roundTrip(): number {
        return ringRoundTrip(this.ringOrder.length, this.timing)
    }

    markDown(id: number, now: number) {
        const i = indexOfSorted(this.ids, id)
        if (i >= 0) {
            if (id !== this.id) {
                this.down[i] = true
                this.downAt[i] = now
            }
        }
    }

    markUp(id: number) {
        const i = indexOfSorted(this.ids, id)
        if (i >= 0) this.down[i] = false
    }

    /**
     * Sends `f` (src, kind and payload set) to the next successor not known to be down,
     * and waits for its ACK.
     */
    passOn(f: Frame, now: number, out: Action[]) {
        if (f.seq === 0) f.seq = nextSeq(this)
        const n = this.ringOrder.length
        for (let step = 1; step < n; step++) {
            const id = this.ringOrder[(this.ringPos + step) % n]
            if (!believedDown(this, id, now)) {
                f.dst = id
                out.push({ type: ActionType.Send, to: [id], frame: f })
                this.link.expect(id, ackTag(f.kind, f.initiator, f.seq), f, now, out)
                return
            }
            if (this.endsAt(f, id)) return
        }
        // Everybody else is down: the message has gone round. Once only: a message our
        // handler passes on again from there could never reach anybody.
        if (this.loopback > 0) return
        f.dst = this.id
        this.loopback = this.loopback + 1
        this.onRingFrame(f, now, out)
        this.loopback = this.loopback - 1
    }
}

/**
 * Our extension: with the failure detector on, a process is believed down for one round
 * trip R, then the next message probes it again. A lost ACK, or a member list from an
 * election it missed, must not leave a live process out of every later election (it sends
 * nothing while it follows, so nothing else would show it alive). R is longer than one
 * message's pass over every dead successor, (n - 1)T, so a pass never probes one twice.
 */
function believedDown(node: RingBaseNode, id: number, now: number): boolean {
    const i = indexOfSorted(node.ids, id)
    if (i < 0) return false
    if (!node.down[i]) return false
    if (node.timing.heartbeatInterval > 0) {
        if (now - node.downAt[i] >= node.roundTrip()) {
            node.down[i] = false
            return false
        }
    }
    return true
}

function nextSeq(node: RingBaseNode): number {
    node.lastSeq = node.lastSeq >= MAX_SEQ ? 1 : node.lastSeq + 1
    return node.lastSeq
}

/**
 * False for a copy of a ring message this process has already handled: the same message
 * (kind, initiator, seq) whatever list or bid it carries. A late ACK makes the sender pass
 * the message past a live successor, which passes on its own version too, and a version's
 * list and bid grow on its way (ring's ELECTION carries the newest epoch it met):
 * forwarding each version would fork the message at every late hop and multiply it
 * round the ring.
 */
function firstSight(node: RingBaseNode, frame: Frame): boolean {
    const key = ackTag(frame.kind, frame.initiator, frame.seq)
    if (node.seen.indexOf(key) >= 0) return false
    if (node.seen.length < SEEN_MESSAGES) node.seen.push(key)
    else {
        node.seen[node.seenNext] = key
        node.seenNext = (node.seenNext + 1) % SEEN_MESSAGES
    }
    return true
}

function onAck(node: RingBaseNode, frame: Frame, now: number, out: Action[]): boolean {
    const k = node.link.acknowledge(frame.src, ackTag(frame.bid, frame.initiator, frame.seq))
    // late: nothing waits for it (with the failure detector on, as the boards run)
    if (k >= 0 || node.timing.heartbeatInterval > 0) adaptWait(node.link, k < 0, now)
    if (k === 0) node.link.rearm(now, out)
    return k >= 0 // false when late: the sender was already given up
}

function onAckTimeout(node: RingBaseNode, now: number, out: Action[]) {
    const link = node.link
    const due = link.dsts.length > 0 && link.deadlines[0] <= now
    while (link.dsts.length > 0 && link.deadlines[0] <= now) {
        const dead = link.dsts[0]
        node.markDown(dead, now)
        adaptWait(link, false, now)
        // Everything still waiting on `dead` goes to the next successor, in order.
        const again = removeMessages(link, -1, dead)
        const wasEmpty = link.dsts.length === 0
        for (let k = 0; k < again.length; k++) {
            // the frame itself: a driver sends a copy of what it was (the firmware encodes it at
            // once, the simulator copies it), so a new destination changes nothing on its way
            node.passOn(again[k], now, out)
        }
        // passOn armed the timer when the queue was empty; otherwise arm it here.
        if (!wasEmpty) link.rearm(now, out)
    }
    // The message this wait was for has gone (dropped with our election): wait for the
    // oldest one left.
    if (!due) link.rearm(now, out)
}

function clearRing(node: RingBaseNode) {
    // Emptied in place once made: a board keeps their blocks, where a list grown again after
    // each recovery asks for new ones (seen's last, 268 bytes, in a heap that may be in pieces).
    if (!node.seen) {
        node.down = []
        node.downAt = []
        node.seen = []
    }
    for (let i = 0; i < node.ids.length; i++) {
        node.down[i] = false
        node.downAt[i] = 0
    }
    node.link.clear()
    while (node.seen.length > 0) node.seen.pop()
    node.seenNext = 0
    node.loopback = 0
}

// Steps one ring algorithm takes, as functions: a method is in every ring image, a
// function only in those that call it.

/** Forget which successors `node` found down: the next message probes each of them again. */
export function forgetDown(node: RingBaseNode) {
    for (let i = 0; i < node.down.length; i++) node.down[i] = false
}

/** A membership list is the truth about who is up: everybody else is down. */
export function adoptMembers(node: RingBaseNode, members: number[], now: number) {
    for (let i = 0; i < node.ids.length; i++) {
        node.down[i] = node.ids[i] !== node.id
        node.downAt[i] = now
    }
    for (let k = 0; k < members.length; k++) {
        const i = indexOfSorted(node.ids, members[k])
        if (i >= 0) node.down[i] = false
    }
}

/** What an ACK names of a ring message, and what `seen` remembers: its kind, initiator and seq (the ACK carries the kind in `bid`). */
function ackTag(kind: number, initiator: number, seq: number): number {
    return (kind * 65536 + initiator) * 65536 + seq
}

/** The seq an ACK tag names (`electlab check` renames seqs: sim/check/abstraction.ts). */
export function seqOfAckTag(tag: number): number {
    return tag % 65536
}

/** The exhaustive check's hints for a ring node (descriptor.ts), which each ring algorithm's own hints start from. */
export function ringBaseCheckHints(): CheckHints {
    return {
        skipped: (n: RingBaseNode) => [n.ringPos],
        downSince: (n: RingBaseNode) => [n.downAt, n.down],
        // a process is probed again one round trip after it was marked down (believedDown)
        downCap: (n: RingBaseNode) => n.roundTrip(),
        seqs: (n: RingBaseNode) => [n.lastSeq, n.link, n.seen],
    }
}
