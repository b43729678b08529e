// The acknowledged link the ring algorithms and echo share (seed 003: "If each process
// acknowledges each message it gets with a reply to the sender, then a process can detect
// the failure of its successor"). An algorithm owns one: it tells the link which messages
// wait for an ACK, hands it the ACKs that arrive, and decides itself what a missing ACK
// means (a ring: that successor is down, send past it; echo: that neighbour is down, no
// reply is awaited from it).
//
// - Each waiting message has a destination, a tag (what an ACK must name to acknowledge
//   it; 0 when any ACK from that destination will do) and a deadline, now + the wait (T;
//   the ring family lengthens it under load: `adaptWait`).
// - One timer for the whole link, armed for the oldest waiting message: set when the first
//   one is added; the owner moves it (`rearm`) or stops it (`cancel`) as its rules say
//   (the ring re-arms when the oldest is acknowledged; echo stops it when none is left).
// - An ACK acknowledges the oldest waiting message from its sender with its tag; a late
//   ACK (nothing waits for it any more) is the owner's to count.
//
// Portable (DeviceScript subset): parallel plain arrays, no splice.

import { Action, cancelTimer, setTimer } from "./contract"
import { Frame } from "./frame"

export class AckLink {
    /** The owner's timer id for the wait. */
    readonly timer: number
    /** T: how long an ACK may take. */
    readonly timeout: number
    /** The longest a grown wait may be (`adaptWait`; 0: it never grows). */
    readonly longest: number
    // public for the exhaustive check, which writes them into a state's key, and for the
    // owner, which reads them (accessor methods would cost every image bytes)
    dsts: number[]
    tags: number[]
    /** The message kept for a resend (null when the owner kept none). */
    frames: Frame[]
    deadlines: number[]
    /** How long a new message waits for its ACK: T, unless the owner adapts it (`adaptWait`). */
    wait: number
    /** When a grown wait falls back to T: 8 T after the last late ACK. */
    waitUntil: number

    constructor(timer: number, timeout: number, longest: number) {
        this.clear()
        this.timer = timer
        this.timeout = timeout
        this.longest = longest
        this.wait = timeout
        this.waitUntil = 0
    }

    /** A message tagged `tag` went to `dst` at `now`: wait for its ACK (keep `frame` for a resend, or null). */
    expect(dst: number, tag: number, frame: Frame, now: number, out: Action[]) {
        this.dsts.push(dst)
        this.tags.push(tag)
        this.frames.push(frame)
        if (now >= this.waitUntil) this.wait = this.timeout
        this.deadlines.push(now + this.wait)
        if (this.dsts.length === 1) setTimer(this.timer, this.wait, out)
    }

    /**
     * An ACK from `from` naming `tag`: drops the oldest message waiting on `from` with `tag`
     * and returns where it was (0: the oldest), or -1 when nothing waits for it (late, or
     * unknown). The timer is the owner's to move (`rearm`) or stop (`cancel`).
     */
    acknowledge(from: number, tag: number): number {
        for (let k = 0; k < this.dsts.length; k++)
            if (this.dsts[k] === from) {
                if (this.tags[k] === tag) {
                    removeMessages(this, k, -1)
                    return k
                }
            }
        return -1
    }

    /** Arms the timer for the oldest waiting message (or cancels it when none is left). */
    rearm(now: number, out: Action[]) {
        if (this.dsts.length === 0) this.cancel(out)
        else {
            const wait = this.deadlines[0] - now
            // a deadline already reached fires as soon as the clock moves, never at once
            setTimer(this.timer, wait > 0 ? wait : this.timeout / 1000, out)
        }
    }

    /** Stops waiting: the owner's timer is cancelled. */
    cancel(out: Action[]) {
        cancelTimer(this.timer, out)
    }

    /** Forgets every waiting message (no action: the owner cancels or re-arms). */
    clear() {
        this.dsts = []
        this.tags = []
        this.frames = []
        this.deadlines = []
    }
}

/**
 * The ring family's wait under load (our extension): a late ACK makes the wait for the next
 * messages 4 times longer, up to `longest` (the ring's: 3 F); a timely one, or a wait that
 * ran out, halves it back towards T, and 8 T after the last late ACK it is T again. On a
 * congested bus every ACK came later than T; with a wait of T the ring passed each message
 * past live successors, which loaded the bus more, and elections restarted until the end
 * of the run. A wait still grown after the faults met a dead successor and slowed the
 * election that followed them.
 */
export function adaptWait(link: AckLink, late: boolean, now: number) {
    if (late) link.waitUntil = now + 8 * link.timeout
    const w = late ? link.wait * 4 : link.wait / 2
    if (w >= link.timeout) if (w <= link.longest) link.wait = w
}

/**
 * Removes the message at position `at` and every message waiting on `dst` (-1: none), and
 * returns their frames, oldest first. The timer is the caller's to rearm.
 */
export function removeMessages(link: AckLink, at: number, dst: number): Frame[] {
    const taken: Frame[] = []
    const dsts: number[] = []
    const tags: number[] = []
    const frames: Frame[] = []
    const deadlines: number[] = []
    for (let k = 0; k < link.dsts.length; k++) {
        if (k === at || link.dsts[k] === dst) {
            taken.push(link.frames[k])
            continue
        }
        dsts.push(link.dsts[k])
        tags.push(link.tags[k])
        frames.push(link.frames[k])
        deadlines.push(link.deadlines[k])
    }
    link.dsts = dsts
    link.tags = tags
    link.frames = frames
    link.deadlines = deadlines
    return taken
}
