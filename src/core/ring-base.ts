// What the ring algorithms (`ring`, `active-list-ring`, `bid-ring`) share: passing a
// message to the next live process in ring order, and finding out that a successor is
// down from a missing acknowledgement (seed 003: "If each process acknowledges each
// message it gets with a reply to the sender, then a process can detect the failure of
// its successor and begin a search for a working successor"; seeds 001/002: "If the
// successor is down the sender skips over the successor and goes to the next member").
//
// - Every ring message is acknowledged at once by its receiver: ACK, unicast back to
//   the sender (counted as messages of kind ACK, like every send).
// - The sender keeps each ring message until its ACK comes. No ACK within T
//   (timing.answerTimeout): the successor is marked down in this process's own view,
//   and every message still waiting on it is sent again, in the order first sent, to the
//   next successor in ring order not known to be down. The simulator never tells a
//   process who is down.
// - An ACK acknowledges the oldest message still waiting on its sender.
// - A process is marked up again as soon as anything shows it alive: a frame from it,
//   or its id in a message (an election list, an initiator field).
// - A message is dropped instead of passed over a process known to be down when that
//   process is where the message ends (`endsAt`: e.g. a notice whose initiator is dead
//   would otherwise circulate for ever).
// - With every other process down, a message "comes back" at once: it is handed to the
//   process's own handler, as if it had gone round.
// - The process that notices the coordinator's failure marks it down (it has just seen
//   it not answer). A process that contests a lower process's heartbeat holds an
//   election without marking anybody down.
//
// Portable (DeviceScript subset): plain arrays, no splice, no super calls.

import { Algorithm, Frame, Kind } from "./frame"
import { Action, ActionType, ElectionNode, indexOfSorted, NO_NODE, NodeConfig, TIMER_ALGORITHM } from "./node"

/** Timer of the acknowledgement wait. */
export const TIMER_RING_ACK = TIMER_ALGORITHM
/** First timer id free for a ring algorithm's own use. */
export const TIMER_RING_FREE = TIMER_ALGORITHM + 1

export function copyFrame(f: Frame): Frame {
    return {
        version: f.version,
        kind: f.kind,
        algorithm: f.algorithm,
        group: f.group,
        epoch: f.epoch,
        src: f.src,
        dst: f.dst,
        initiator: f.initiator,
        bid: f.bid,
        seq: f.seq,
        list: f.list.slice(0),
    }
}

export abstract class RingBaseNode extends ElectionNode {
    /** Position of this process in `ringOrder`. */
    readonly ringPos: number
    /** down[i]: this process believes ids[i] is down. */
    private down: boolean[] = []
    /** Ring messages sent and not yet acknowledged, oldest first, with their deadlines. */
    private pendingFrames: Frame[] = []
    private pendingDeadlines: number[] = []

    constructor(algorithm: Algorithm, config: NodeConfig) {
        super(algorithm, config)
        this.ringPos = this.ringOrder.indexOf(this.id)
        this.clearRing()
    }

    // ---- what each ring algorithm defines ----

    /** Forget the algorithm's own state (start, crash, recovery). */
    protected abstract resetRing(): void
    /** Start this algorithm's election (unless one is already on here). */
    protected abstract beginElection(now: number, out: Action[]): void
    /** True for the kinds that travel round the ring (acknowledged, bypassing dead successors). */
    protected abstract isRingKind(kind: number): boolean
    /** A ring message arrived (already acknowledged). */
    protected abstract onRingFrame(frame: Frame, now: number, out: Action[]): boolean
    /** Any other frame (a unicast reply). */
    protected abstract onDirectFrame(frame: Frame, now: number, out: Action[]): boolean
    /** True when `frame` has no use past `id`, found down: drop it rather than go round `id`. */
    protected abstract endsAt(frame: Frame, id: number): boolean
    protected abstract onRingTimer(timer: number, now: number, out: Action[]): void
    protected abstract ringTimerName(timer: number): string

    // ---- the shared mechanism ----

    protected resetAlgorithm() {
        this.clearRing()
        this.resetRing()
    }

    protected onSuspect(now: number, out: Action[]) {
        if (this.coordinator !== NO_NODE && this.coordinator !== this.id) this.markDown(this.coordinator)
        this.beginElection(now, out)
    }

    /** A lower process heartbeats as coordinator: hold an election; nobody is known down. */
    protected override contest(now: number, out: Action[]) {
        this.beginElection(now, out)
    }

    protected onFrame(frame: Frame, now: number, out: Action[]): boolean {
        if (frame.kind === Kind.ACK) return this.onAck(frame, now, out)
        this.markUp(frame.src)
        if (this.isRingKind(frame.kind)) {
            this.send(Kind.ACK, frame.src, out)
            return this.onRingFrame(frame, now, out)
        }
        return this.onDirectFrame(frame, now, out)
    }

    protected onTimer(timer: number, now: number, out: Action[]) {
        if (timer === TIMER_RING_ACK) this.onAckTimeout(now, out)
        else this.onRingTimer(timer, now, out)
    }

    protected algorithmTimerName(timer: number): string {
        if (timer === TIMER_RING_ACK) return "no ACK within T"
        return this.ringTimerName(timer)
    }

    /** R, a notice's worst-case round trip: every hop in 1, or in T + 1 past a dead successor. */
    roundTrip(): number {
        return this.ringOrder.length * (this.timing.answerTimeout + 1)
    }

    /** Past every ring algorithm's own waits (bid-ring's voters wait 2R, then initiate). */
    override electionBound(): number {
        return 4 * this.roundTrip() + this.timing.coordinatorTimeout
    }

    /** True when this process believes `id` is down. */
    isDown(id: number): boolean {
        const i = indexOfSorted(this.ids, id)
        return i >= 0 && this.down[i]
    }

    protected markDown(id: number) {
        const i = indexOfSorted(this.ids, id)
        if (i >= 0 && id !== this.id) this.down[i] = true
    }

    protected markUp(id: number) {
        const i = indexOfSorted(this.ids, id)
        if (i >= 0) this.down[i] = false
    }

    /** A membership list is the truth about who is up: everybody else is down. */
    protected adoptMembers(members: number[]) {
        for (let i = 0; i < this.ids.length; i++) this.down[i] = this.ids[i] !== this.id
        for (let k = 0; k < members.length; k++) this.markUp(members[k])
    }

    /** Ring messages still waiting for their ACK. */
    unacknowledged(): number {
        return this.pendingFrames.length
    }

    /**
     * Sends `f` (src, kind and payload set) to the next successor not known to be down,
     * and waits for its ACK.
     */
    protected passOn(f: Frame, now: number, out: Action[]) {
        const n = this.ringOrder.length
        for (let step = 1; step < n; step++) {
            const id = this.ringOrder[(this.ringPos + step) % n]
            if (!this.isDown(id)) {
                f.dst = id
                out.push({ type: ActionType.Send, to: [id], frame: f })
                this.pendingFrames.push(f)
                this.pendingDeadlines.push(now + this.timing.answerTimeout)
                if (this.pendingFrames.length === 1)
                    this.setTimer(TIMER_RING_ACK, this.timing.answerTimeout, out)
                return
            }
            if (this.endsAt(f, id)) return
        }
        // Everybody else is down: the message has gone round.
        f.dst = this.id
        this.onRingFrame(f, now, out)
    }

    private onAck(frame: Frame, now: number, out: Action[]): boolean {
        const from = frame.src
        for (let k = 0; k < this.pendingFrames.length; k++) {
            if (this.pendingFrames[k].dst !== from) continue
            this.dropPending(k)
            if (k === 0) this.rearm(now, out)
            return true
        }
        return false // late: the sender was already given up
    }

    private onAckTimeout(now: number, out: Action[]) {
        while (this.pendingFrames.length > 0 && this.pendingDeadlines[0] <= now) {
            const dead = this.pendingFrames[0].dst
            this.markDown(dead)
            // Everything still waiting on `dead` goes to the next successor, in order.
            const again: Frame[] = []
            const keptFrames: Frame[] = []
            const keptDeadlines: number[] = []
            for (let k = 0; k < this.pendingFrames.length; k++) {
                if (this.pendingFrames[k].dst === dead) again.push(this.pendingFrames[k])
                else {
                    keptFrames.push(this.pendingFrames[k])
                    keptDeadlines.push(this.pendingDeadlines[k])
                }
            }
            const wasEmpty = keptFrames.length === 0
            this.pendingFrames = keptFrames
            this.pendingDeadlines = keptDeadlines
            for (let k = 0; k < again.length; k++) {
                this.passOn(copyFrame(again[k]), now, out)
            }
            // passOn armed the timer when the queue was empty; otherwise arm it here.
            if (!wasEmpty) this.rearm(now, out)
        }
    }

    /** Arms the ACK timer for the oldest waiting message (or cancels it). */
    private rearm(now: number, out: Action[]) {
        if (this.pendingFrames.length === 0) this.cancelTimer(TIMER_RING_ACK, out)
        else this.setTimer(TIMER_RING_ACK, this.pendingDeadlines[0] - now, out)
    }

    private dropPending(k: number) {
        const frames: Frame[] = []
        const deadlines: number[] = []
        for (let j = 0; j < this.pendingFrames.length; j++) {
            if (j === k) continue
            frames.push(this.pendingFrames[j])
            deadlines.push(this.pendingDeadlines[j])
        }
        this.pendingFrames = frames
        this.pendingDeadlines = deadlines
    }

    private clearRing() {
        this.down = []
        for (let i = 0; i < this.ids.length; i++) this.down.push(false)
        this.pendingFrames = []
        this.pendingDeadlines = []
    }
}
