// The adaptive failure detector: how long a follower waits after the coordinator's last
// heartbeat before it suspects it, learned from the heartbeats' arrival times
// (Chen, Toueg and Aguilera's estimated next arrival plus a safety margin).
//
// The coordinator sends a heartbeat every period; the follower sees each gap between two
// arrivals as a whole number of periods (1, or more when heartbeats were lost) plus
// jitter. It estimates
//   P  the actual period: the median of the last WINDOW gaps (a busy sender's timer runs
//      late: 50 ms configured came every 60 ms from a DeviceScript VM on a loaded machine),
//   σ  the spread of those gaps round their whole number of periods,
//   p  the loss rate over the last LONG_MEMORY heartbeats, (lost + 1/2) / (sent + 1):
//      never zero, and high while the evidence is thin; heartbeats carry a sequence
//      number, so a late heartbeat counts as late (jitter, in σ), not as lost,
// and suspects after   D = (m + 1)·P + max(k·σ, interval/2)
// where m ≥ 1 is the smallest number of heartbeats in a row whose loss has a chance
// p^(m+1) ≤ RISK: a lossy path earns more patience, a clean one as little as one missed
// heartbeat. Pauses (a stalled process, a busy broker) are rarer than the window is long
// and not normal: D is also at least half an interval above the longest gap of the last
// LONG_MEMORY heartbeats. D is clamped to [FLOOR, ceiling]; the ceiling is the configured
// failure timeout: the detector only ever suspects earlier than the fixed one, and with
// too few samples it is the fixed one.
//
// Pure and portable: no clock (arrival times come from the driver with the heartbeats),
// no Map, Math.max with two arguments only.

import { zeroBytes } from "./codec"
import { MAX_SEQ } from "./frame"

/** The fixed failure timeout (the default) or the adaptive detector. */
export type DetectorName = "fixed" | "adaptive"

/**
 * How long a follower waits after the watched coordinator's last heartbeat before it
 * suspects it. A node owns one (`makeFailureDetector`); the node keeps the watch timer.
 */
export interface FailureDetector {
    /** The coordinator to watch (a new one, or the same again after a false alarm). */
    watch(coordinator: number): void
    /** A heartbeat from the watched coordinator arrived at `now`, numbered `seq` by its sender (0: unnumbered). */
    heartbeat(now: number, seq: number): void
    /** Silence after the last heartbeat after which the coordinator is suspected. */
    delay(): number
    /** Forget everything (a process back from a crash has a blank memory). */
    clear(): void
    /** True when `delay()` changes with heartbeats, so the watch restarts from each one. */
    learns(): boolean
}

/** The default: suspect after the configured failure timeout, whatever the heartbeats did. */
export class FixedDetector implements FailureDetector {
    readonly timeout: number

    constructor(timeout: number) {
        this.timeout = timeout
    }

    watch(coordinator: number) {}
    heartbeat(now: number, seq: number) {}
    delay(): number {
        return this.timeout
    }
    clear() {}
    learns(): boolean {
        return false
    }
}

/** The detector `name` asks for; adaptive only with heartbeats on (`interval` > 0). */
export function makeFailureDetector(name: string, interval: number, failureTimeout: number): FailureDetector {
    if (name === "adaptive" && interval > 0) return new AdaptiveDetector(interval, failureTimeout)
    return new FixedDetector(failureTimeout)
}

export const DETECTOR_NAMES: DetectorName[] = ["fixed", "adaptive"]

/** Gaps for the period and the jitter: at 50 ms heartbeats, the last 3.2 s. */
export const WINDOW = 64
/** Blocks of WINDOW heartbeats for the loss rate and the longest gap: 1024 heartbeats, 51 s at 50 ms. */
export const LONG_MEMORY_BLOCKS = 16
/** Below this many gaps the spread means little: use the ceiling. */
export const MIN_SAMPLES = 8
/** Safety margin in standard deviations of the gaps' jitter. */
export const SPREAD_FACTOR = 5
/**
 * Accepted chance, per heartbeat, that m + 1 heartbeats in a row are lost: at 20 heartbeats
 * a second and 4 followers, one false alarm in about 3.5 hours at the estimated loss rate.
 */
export const RISK = 0.000001
/**
 * Floor, in intervals: one lost heartbeat plus half a period of lateness never makes a
 * suspect. A heartbeat can always be lost on a shared bus or a WiFi link, and a coordinator's
 * timer can fire late when its VM or radio is busy, in ways the window has not seen yet.
 */
export const FLOOR_INTERVALS = 2.5
/** A number at most this far behind the last is a reordered heartbeat; further: the sender restarted. */
export const MAX_REORDER = WINDOW

export class AdaptiveDetector implements FailureDetector {
    readonly interval: number
    readonly ceiling: number
    // Fixed slots, made once: arrays that grow by pushes are copied a quarter larger at each
    // step and leave the old copy behind, and a board's heap ran out in those copies.
    /** The last `count` gaps, a ring once WINDOW are in (`nextSlot` next). */
    private gaps: number[] = zeroBytes(WINDOW)
    /** Heartbeats sent over each gap, from the sequence numbers; 0: unnumbered, judged from the gap. */
    private gapSent: number[] = zeroBytes(WINDOW)
    /** The same `count` gaps in ascending order, kept so on each arrival (the VM's sort is quadratic). */
    private sortedGaps: number[] = zeroBytes(WINDOW)
    /** Gaps learnt, at most WINDOW (a field, not a method: a method costs every image bytes). */
    count: number
    private lastSeq: number
    /** Where the next gap goes once the window is full. */
    private nextSlot: number
    private lastArrival: number
    /** The coordinator whose heartbeats these are; -1: none yet. */
    private watched: number
    // per block of WINDOW heartbeats (the last LONG_MEMORY_BLOCKS full ones, in a ring: `blocks`
    // of them, `nextBlock` next; then the open one): the longest gap, the heartbeats received
    // and the periods they spanned
    private blockLongest: number[] = zeroBytes(LONG_MEMORY_BLOCKS)
    private blockReceived: number[] = zeroBytes(LONG_MEMORY_BLOCKS)
    private blockPeriods: number[] = zeroBytes(LONG_MEMORY_BLOCKS)
    private blocks: number
    private nextBlock: number
    private openLongest: number
    private openReceived: number
    private openPeriods: number

    /** `interval`: the coordinator's heartbeat period; `ceiling`: the fixed failure timeout. */
    constructor(interval: number, ceiling: number) {
        this.clear()
        this.interval = interval
        this.ceiling = ceiling
    }

    /**
     * The coordinator to watch. Another one than before: its first heartbeat starts a new
     * series, and what was learned stays (it describes the network and the configured
     * period, not one coordinator). The same one again (after a false alarm): the silence
     * that caused it is measured when its next heartbeat comes, so the detector learns it.
     */
    watch(coordinator: number) {
        if (coordinator === this.watched) return
        this.watched = coordinator
        this.lastArrival = -1
        this.lastSeq = 0
    }

    /** Forget everything (a process back from a crash has a blank memory). */
    clear() {
        this.count = 0
        this.lastSeq = 0
        this.nextSlot = 0
        this.lastArrival = -1
        this.watched = -1
        this.blocks = 0
        this.nextBlock = 0
        this.openLongest = 0
        this.openReceived = 0
        this.openPeriods = 0
    }

    /**
     * A heartbeat from the watched coordinator arrived at `now`, numbered `seq` by its sender
     * (1 to MAX_SEQ, counting up; 0: unnumbered).
     */
    heartbeat(now: number, seq: number = 0) {
        // a silence beyond the ceiling was a failure (or a pause), not a sample of the jitter
        // (nested ifs, not &&: cheaper on a board)
        if (this.lastArrival >= 0) if (now >= this.lastArrival) if (now - this.lastArrival <= this.ceiling) {
            const gap = now - this.lastArrival
            // Heartbeats the coordinator sent over the gap, counted by their numbers: a late
            // heartbeat is one, however long the gap. 0 when the numbers cannot tell
            // (unnumbered, reordered, or more than the gap leaves time for: a restarted
            // sender numbering afresh).
            let sent = seq === 0 || this.lastSeq === 0 ? 0 : seqAhead(this.lastSeq, seq)
            if (!(sent >= 1 && sent <= Math.floor(gap / this.interval) + 1)) sent = 0
            // the long memory: per block, the longest gap, the heartbeats and the periods
            if (gap > this.openLongest) this.openLongest = gap
            this.openReceived = this.openReceived + 1
            this.openPeriods += sent > 0 ? sent : periodsIn(gap, this.period())
            if (this.openReceived >= WINDOW) {
                const b = this.nextBlock
                this.blockLongest[b] = this.openLongest
                this.blockReceived[b] = this.openReceived
                this.blockPeriods[b] = this.openPeriods
                this.nextBlock = b + 1 < LONG_MEMORY_BLOCKS ? b + 1 : 0
                if (this.blocks < LONG_MEMORY_BLOCKS) this.blocks = this.blocks + 1
                this.openLongest = 0
                this.openReceived = 0
                this.openPeriods = 0
            }
            // the slot the gap takes: the next free one, else the oldest's (out of the sorted ones first)
            let slot = this.count
            if (slot < WINDOW) this.count = slot + 1
            else {
                slot = this.nextSlot
                removeSorted(this.sortedGaps, WINDOW, this.gaps[slot])
                this.nextSlot = slot + 1 < WINDOW ? slot + 1 : 0
            }
            this.gaps[slot] = gap
            this.gapSent[slot] = sent
            insertSorted(this.sortedGaps, this.count - 1, gap)
        }
        this.lastArrival = now
        // an older number (reordered) leaves the count where it was; one far behind is a
        // restarted sender numbering afresh: follow it, or its numbers stay unbelieved for long
        if (seq > 0 && (this.lastSeq === 0 || seqAhead(this.lastSeq, seq) > 0 || seqAhead(seq, this.lastSeq) > MAX_REORDER))
            this.lastSeq = seq
    }

    learns(): boolean {
        return true
    }

    /** The sender's period as observed: the median gap once there are enough, else the configured one. */
    period(): number {
        const n = this.count
        if (n < MIN_SAMPLES) return this.interval
        const mid = n >> 1
        const m = n % 2 === 1 ? this.sortedGaps[mid] : (this.sortedGaps[mid - 1] + this.sortedGaps[mid]) / 2
        return m > 0 ? m : this.interval
    }

    /** Silence after the last heartbeat after which the coordinator is suspected. */
    delay(): number {
        const n = this.count
        if (n < MIN_SAMPLES) return this.ceiling
        if (!(this.interval > 0)) return this.ceiling
        const period = this.period()
        let squares = 0
        for (let i = 0; i < n; i++) {
            const sent = this.gapSent[i] > 0 ? this.gapSent[i] : periodsIn(this.gaps[i], period)
            const r = this.gaps[i] - sent * period
            squares += r * r
        }
        const spread = Math.sqrt(squares / n)
        const lossRate = this.lossRate()
        let misses = 1
        let chance = lossRate * lossRate
        while (chance > RISK && misses < WINDOW) {
            misses++
            chance = chance * lossRate
        }
        const margin = Math.max(SPREAD_FACTOR * spread, this.interval / 2)
        const estimate = Math.max((misses + 1) * period + margin, this.longestGap() + this.interval / 2)
        return Math.min(this.ceiling, Math.max(FLOOR_INTERVALS * this.interval, estimate))
    }

    /** Estimated chance that a heartbeat is lost, over the long memory. */
    lossRate(): number {
        let received = this.openReceived
        let periods = this.openPeriods
        for (let i = 0; i < this.blocks; i++) {
            received += this.blockReceived[i]
            periods += this.blockPeriods[i]
        }
        return (periods - received + 0.5) / (periods + 1)
    }

    /** The longest gap in the long memory. */
    longestGap(): number {
        let longest = this.openLongest
        for (let i = 0; i < this.blocks; i++) if (this.blockLongest[i] > longest) longest = this.blockLongest[i]
        return longest
    }
}

/**
 * Whole periods a gap spans (at least one). A gap counts as a lost heartbeat from 1.75
 * periods on, not 1.5: WiFi's jitter alone stretches gaps to 1.6 periods (50 ms heartbeats,
 * 20-50 ms a hop), and a late heartbeat must not pass for a lost one.
 */
function periodsIn(gap: number, period: number): number {
    const k = Math.floor(gap / period + 0.25)
    return k < 1 ? 1 : k
}

/** How far `seq` is ahead of `last` in the 1..MAX_SEQ cycle (0 is never used); behind: 0. */
function seqAhead(last: number, seq: number): number {
    const ahead = seq >= last ? seq - last : seq + MAX_SEQ - last
    return ahead <= MAX_SEQ / 2 ? ahead : 0
}

/** Inserts `value` into the ascending first `n` of `list`, which has room for it at `n`. */
function insertSorted(list: number[], n: number, value: number) {
    let i = n
    while (i > 0 && list[i - 1] > value) {
        list[i] = list[i - 1]
        i--
    }
    list[i] = value
}

/** Removes one occurrence of `value` from the ascending first `n` of `list`. */
function removeSorted(list: number[], n: number, value: number) {
    let i = 0
    while (i < n && list[i] !== value) i++
    for (; i < n - 1; i++) list[i] = list[i + 1]
}
