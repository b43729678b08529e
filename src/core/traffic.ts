// What a run's traffic cost since the last reset: the counts of a summary.

import { Frame, Kind, MAX_KIND, MAX_LIST_LENGTH } from "./frame"

export class TrafficCounts {
    /** Election messages, one per destination (heartbeats apart). */
    messages = 0
    /** Election messages by frame kind. */
    byKind: number[] = []
    /** Physical transmissions (a broadcast medium carries a multicast in one). */
    frames = 0
    heartbeats = 0
    lost = 0
    /** Messages whose frame is too long for one Jacdac packet (a list past 108 ids). */
    oversize = 0
    /** Extra copies the network delivered. */
    duplicated = 0

    constructor() {
        this.reset()
    }

    reset() {
        this.messages = 0
        this.byKind = []
        for (let k = 0; k <= MAX_KIND; k++) this.byKind.push(0)
        this.frames = 0
        this.heartbeats = 0
        this.lost = 0
        this.oversize = 0
        this.duplicated = 0
    }

    /** One send of `frame` to `destinations` processes, carried by `frames` transmissions. */
    countSend(frame: Frame, destinations: number, frames: number) {
        if (frame.kind === Kind.HEARTBEAT) this.heartbeats += destinations
        else {
            this.messages += destinations
            this.byKind[frame.kind] += destinations
        }
        if (frame.list.length > MAX_LIST_LENGTH) this.oversize += destinations
        this.frames += frames
    }
}
