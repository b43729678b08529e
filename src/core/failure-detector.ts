// The adaptive failure detector: how long a follower waits after the coordinator's last
// heartbeat before it suspects it, learned from the heartbeats' arrival times
// (Chen, Toueg and Aguilera's estimated next arrival plus a safety margin).
//
// The coordinator sends a heartbeat every `interval`; the follower sees each gap between
// two arrivals as a whole number of intervals (1, or more when heartbeats were lost) plus
// jitter. From the last WINDOW gaps it estimates
//   P  the actual period (total time / total intervals: a slow sender's timer shows here),
//   σ  the spread of the gaps round their whole number of periods,
//   p  the loss rate, (lost + 1/2) / (sent + 1): never zero, and high while samples are few,
// and suspects after   D = (m + 1)·P + max(k·σ, interval/2),   clamped to [FLOOR, ceiling]
// where m ≥ 1 is the smallest number of heartbeats in a row whose loss has a chance
// p^(m+1) ≤ RISK: a lossy path earns more patience, a clean one as little as one missed
// heartbeat. The ceiling is the configured failure timeout: the detector only ever
// suspects earlier than the fixed one, and with too few samples it is the fixed one.
//
// Pure and portable: no clock (arrival times come from the driver with the heartbeats),
// no Map, Math.max with two arguments only.

/** The fixed failure timeout (the default) or the adaptive detector. */
export type DetectorName = "fixed" | "adaptive"

export const DETECTOR_NAMES: DetectorName[] = ["fixed", "adaptive"]

/** Gaps remembered: at 50 ms heartbeats, the last 3.2 s. */
export const WINDOW = 64
/** Below this many gaps the spread means little: use the ceiling. */
export const MIN_SAMPLES = 8
/** Safety margin in standard deviations of the gaps' jitter. */
export const SPREAD_FACTOR = 5
/** Accepted chance, per heartbeat, that a clean path loses m + 1 heartbeats in a row. */
export const RISK = 0.0001
/**
 * Floor, in intervals: one lost heartbeat plus half a period of lateness never makes a
 * suspect. A heartbeat can always be lost on a shared bus or a WiFi link, and a coordinator's
 * timer can fire late when its VM or radio is busy, in ways the window has not seen yet.
 */
export const FLOOR_INTERVALS = 2.5

export class AdaptiveDetector {
    readonly interval: number
    readonly ceiling: number
    private gaps: number[] = []
    /** Where the next gap goes once the window is full. */
    private nextSlot = 0
    private lastArrival = -1

    /** `interval`: the coordinator's heartbeat period; `ceiling`: the fixed failure timeout. */
    constructor(interval: number, ceiling: number) {
        this.interval = interval
        this.ceiling = ceiling
    }

    /**
     * A new coordinator to watch: its first heartbeat starts a new series. The gaps learned
     * stay: they describe the network and the configured period, not one coordinator.
     */
    restart() {
        this.lastArrival = -1
    }

    /** Forget everything (a process back from a crash has a blank memory). */
    clear() {
        this.gaps = []
        this.nextSlot = 0
        this.lastArrival = -1
    }

    /** A heartbeat from the watched coordinator arrived at `now`. */
    heartbeat(now: number) {
        // a silence beyond the ceiling was a failure (or a pause), not a sample of the jitter
        if (this.lastArrival >= 0 && now >= this.lastArrival && now - this.lastArrival <= this.ceiling) {
            const gap = now - this.lastArrival
            if (this.gaps.length < WINDOW) this.gaps.push(gap)
            else {
                this.gaps[this.nextSlot] = gap
                this.nextSlot = this.nextSlot + 1 < WINDOW ? this.nextSlot + 1 : 0
            }
        }
        this.lastArrival = now
    }

    samples(): number {
        return this.gaps.length
    }

    /** Silence after the last heartbeat after which the coordinator is suspected. */
    delay(): number {
        const n = this.gaps.length
        if (n < MIN_SAMPLES || !(this.interval > 0)) return this.ceiling
        let total = 0
        let periods = 0
        for (let i = 0; i < n; i++) {
            total += this.gaps[i]
            periods += this.periodsIn(this.gaps[i])
        }
        const period = total / periods
        let squares = 0
        for (let i = 0; i < n; i++) {
            const r = this.gaps[i] - this.periodsIn(this.gaps[i]) * period
            squares += r * r
        }
        const spread = Math.sqrt(squares / n)
        const lost = periods - n
        const lossRate = (lost + 0.5) / (periods + 1)
        let misses = 1
        let chance = lossRate * lossRate
        while (chance > RISK && misses < WINDOW) {
            misses++
            chance = chance * lossRate
        }
        const margin = Math.max(SPREAD_FACTOR * spread, this.interval / 2)
        const estimate = (misses + 1) * period + margin
        return Math.min(this.ceiling, Math.max(FLOOR_INTERVALS * this.interval, estimate))
    }

    /** Whole heartbeat periods a gap spans (at least one). */
    private periodsIn(gap: number): number {
        const k = Math.round(gap / this.interval)
        return k < 1 ? 1 : k
    }
}
