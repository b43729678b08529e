// The engine's event queue: time-bucketed FIFO, events due at the same time in the order
// they were scheduled. Portable (DeviceScript subset): parallel arrays, no splice.

import { TimerGenerations } from "./timer-generations"

import { Frame } from "./frame"

/**
 * Events due at one time, in scheduling order. Fields live in parallel arrays rather
 * than one object per event: a 1000-process Bully election queues half a million
 * events at once, and numbers in arrays cost the garbage collector nothing.
 */
class Bucket {
    type: number[] = []
    /** Index of the target node (unused for EV_DELIVER_MANY). */
    node: number[] = []
    /** Timer: timer id. */
    arg: number[] = []
    /** Timer: generation when scheduled. */
    gen: number[] = []
    frame: Frame[] = []
    /** EV_DELIVER_MANY: indices of the target nodes. */
    targets: number[][] = []
    next = 0
    constructor(public time: number) {}
}

/** Time-bucketed FIFO: O(1) per event when many events share a time, as in the ideal network. */
export class EventQueue {
    private buckets: Bucket[] = []
    private first = 0
    size = 0

    // the event pop() took last
    type = 0
    node = 0
    arg = 0
    gen = 0
    frame: Frame = null
    targets: number[] = null

    push(
        time: number,
        type: number,
        node: number,
        frame: Frame,
        arg: number,
        gen: number,
        targets: number[]
    ) {
        const b = this.buckets
        let i = b.length - 1
        while (i >= this.first && b[i].time > time) i--
        let bucket: Bucket
        if (i >= this.first && b[i].time === time) {
            bucket = b[i]
        } else {
            bucket = new Bucket(time)
            // insert at i + 1 (no splice in DeviceScript)
            b.push(bucket)
            for (let j = b.length - 1; j > i + 1; j--) b[j] = b[j - 1]
            b[i + 1] = bucket
        }
        bucket.type.push(type)
        bucket.node.push(node)
        bucket.arg.push(arg)
        bucket.gen.push(gen)
        bucket.frame.push(frame)
        bucket.targets.push(targets)
        this.size++
    }

    /** Time of the next event, or -1 when empty. */
    peekTime(): number {
        if (this.size === 0) return -1
        return this.buckets[this.first].time
    }

    /** True when the next event is a timer firing that `timers` no longer wants. */
    headIsStaleTimer(timerType: number, timers: TimerGenerations, timersPerNode: number): boolean {
        if (this.size === 0) return false
        const b = this.buckets[this.first]
        const k = b.next
        if (b.type[k] !== timerType) return false
        return !timers.isCurrent(b.node[k] * timersPerNode + b.arg[k], b.gen[k])
    }

    /** Takes the next event into this queue's fields. Returns false when empty. */
    pop(): boolean {
        if (this.size === 0) return false
        const b = this.buckets[this.first]
        const k = b.next
        this.type = b.type[k]
        this.node = b.node[k]
        this.arg = b.arg[k]
        this.gen = b.gen[k]
        this.frame = b.frame[k]
        this.targets = b.targets[k]
        b.frame[k] = null
        b.targets[k] = null
        b.next++
        if (b.next >= b.type.length) {
            this.first++
            if (this.first > 256) {
                this.buckets = this.buckets.slice(this.first)
                this.first = 0
            }
        }
        this.size--
        return true
    }
}
