// The acknowledged link the ring algorithms and echo share (seed 003: "If each process
// acknowledges each message it gets with a reply to the sender, then a process can detect
// the failure of its successor"). An algorithm owns one: it tells the link which messages
// wait for an ACK, hands it the ACKs that arrive, and decides itself what a missing ACK
// means (a ring: that successor is down, send past it; echo: that neighbour is down, no
// reply is awaited from it).
//
// - Each waiting message has a destination, a tag (what an ACK must name to acknowledge
//   it; 0 when any ACK from that destination will do) and a deadline, now + T.
// - One timer for the whole link, armed for the oldest waiting message: set when the first
//   one is added; the owner moves it (`rearm`) or stops it (`cancel`) as its rules say
//   (the ring re-arms when the oldest is acknowledged; echo stops it when none is left).
// - An ACK acknowledges the oldest waiting message from its sender with its tag; a late
//   ACK (nothing waits for it) is the owner's to count.
//
// Portable (DeviceScript subset): parallel plain arrays, no splice.

import { Action, ActionType } from "./contract"
import { Frame } from "./frame"

export class AckLink {
    /** The owner's timer id for the wait. */
    readonly timer: number
    /** T: how long an ACK may take. */
    readonly timeout: number
    // public for the exhaustive check, which writes them into a state's key
    dsts: number[] = []
    tags: number[] = []
    frames: Frame[] = []
    deadlines: number[] = []

    constructor(timer: number, timeout: number) {
        this.timer = timer
        this.timeout = timeout
    }

    /** Messages still waiting for their ACK. */
    count(): number {
        return this.dsts.length
    }

    dstAt(k: number): number {
        return this.dsts[k]
    }

    /** The message kept for a resend (null when the owner kept none). */
    frameAt(k: number): Frame {
        return this.frames[k]
    }

    deadlineAt(k: number): number {
        return this.deadlines[k]
    }

    /** A message tagged `tag` went to `dst` at `now`: wait for its ACK (keep `frame` for a resend, or null). */
    expect(dst: number, tag: number, frame: Frame, now: number, out: Action[]) {
        this.dsts.push(dst)
        this.tags.push(tag)
        this.frames.push(frame)
        this.deadlines.push(now + this.timeout)
        if (this.dsts.length === 1) this.setTimer(this.timeout, out)
    }

    /** Position of the oldest message waiting on `from` with `tag`, or -1. */
    find(from: number, tag: number): number {
        for (let k = 0; k < this.dsts.length; k++) if (this.dsts[k] === from && this.tags[k] === tag) return k
        return -1
    }

    /**
     * An ACK from `from` naming `tag`: drops the message it acknowledges and returns where
     * it was (0: the oldest), or -1 when nothing waits for it (late, or unknown). The timer
     * is the owner's to move (`rearm`) or stop (`cancel`).
     */
    acknowledge(from: number, tag: number): number {
        const k = this.find(from, tag)
        if (k >= 0) this.removeAt(k)
        return k
    }

    /** Drops the message at position k (the timer is the caller's to rearm). */
    removeAt(k: number) {
        const dsts: number[] = []
        const tags: number[] = []
        const frames: Frame[] = []
        const deadlines: number[] = []
        for (let j = 0; j < this.dsts.length; j++) {
            if (j === k) continue
            dsts.push(this.dsts[j])
            tags.push(this.tags[j])
            frames.push(this.frames[j])
            deadlines.push(this.deadlines[j])
        }
        this.dsts = dsts
        this.tags = tags
        this.frames = frames
        this.deadlines = deadlines
    }

    /**
     * Removes every message waiting on `dst`, oldest first, and returns their frames (a
     * resend goes past `dst`). The timer is the caller's to rearm.
     */
    takeWaitingOn(dst: number): Frame[] {
        const taken: Frame[] = []
        const dsts: number[] = []
        const tags: number[] = []
        const frames: Frame[] = []
        const deadlines: number[] = []
        for (let k = 0; k < this.dsts.length; k++) {
            if (this.dsts[k] === dst) {
                taken.push(this.frames[k])
                continue
            }
            dsts.push(this.dsts[k])
            tags.push(this.tags[k])
            frames.push(this.frames[k])
            deadlines.push(this.deadlines[k])
        }
        this.dsts = dsts
        this.tags = tags
        this.frames = frames
        this.deadlines = deadlines
        return taken
    }

    /** Arms the timer for the oldest waiting message (or cancels it when none is left). */
    rearm(now: number, out: Action[]) {
        if (this.dsts.length === 0) this.cancel(out)
        else {
            const wait = this.deadlines[0] - now
            // a deadline already reached fires as soon as the clock moves, never at once
            this.setTimer(wait > 0 ? wait : this.timeout / 1000, out)
        }
    }

    /** Stops waiting: the owner's timer is cancelled. */
    cancel(out: Action[]) {
        out.push({ type: ActionType.CancelTimer, timer: this.timer })
    }

    /** Forgets every waiting message (no action: the owner cancels or re-arms). */
    clear() {
        this.dsts = []
        this.tags = []
        this.frames = []
        this.deadlines = []
    }

    private setTimer(delay: number, out: Action[]) {
        out.push({ type: ActionType.SetTimer, timer: this.timer, delay: delay })
    }
}
