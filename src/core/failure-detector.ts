// The adaptive failure detector: how long a follower waits after the coordinator's last
// heartbeat before it suspects it, learned from the heartbeats' arrival times
// (Chen, Toueg and Aguilera's estimated next arrival plus a safety margin).
//
// The coordinator sends a heartbeat every period; the follower sees each gap between two
// arrivals as a whole number of periods (1, or more when heartbeats were lost) plus
// jitter. From the last WINDOW gaps it estimates
//   P  the actual period: the median gap (a busy sender's timer runs late: 50 ms
//      configured came every 60 ms from a DeviceScript VM on a loaded machine),
//   σ  the spread of the gaps round their whole number of periods,
//   p  the loss rate, (lost + 1/2) / (sent + 1): never zero, and high while samples are few,
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

/** The fixed failure timeout (the default) or the adaptive detector. */
export type DetectorName = "fixed" | "adaptive"

export const DETECTOR_NAMES: DetectorName[] = ["fixed", "adaptive"]

/** Gaps remembered: at 50 ms heartbeats, the last 3.2 s. */
export const WINDOW = 64
/** Blocks of WINDOW gaps whose longest gap is remembered: 16 × 64 = 1024 heartbeats, 51 s at 50 ms. */
export const LONG_MEMORY_BLOCKS = 16
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
    /** Longest gap of each of the last LONG_MEMORY_BLOCKS full blocks, and of the block being filled. */
    private blockMaxima: number[] = []
    private blockMax = 0
    private blockCount = 0

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
        this.blockMaxima = []
        this.blockMax = 0
        this.blockCount = 0
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
            this.rememberLongest(gap)
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
        const period = median(this.gaps)
        if (!(period > 0)) return this.ceiling
        let periods = 0
        let squares = 0
        for (let i = 0; i < n; i++) {
            const k = periodsIn(this.gaps[i], period)
            const r = this.gaps[i] - k * period
            periods += k
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
        const estimate = Math.max((misses + 1) * period + margin, this.longestGap() + this.interval / 2)
        return Math.min(this.ceiling, Math.max(FLOOR_INTERVALS * this.interval, estimate))
    }

    /** The longest gap of the last LONG_MEMORY_BLOCKS blocks and the current one. */
    longestGap(): number {
        let longest = this.blockMax
        for (let i = 0; i < this.blockMaxima.length; i++) if (this.blockMaxima[i] > longest) longest = this.blockMaxima[i]
        return longest
    }

    private rememberLongest(gap: number) {
        if (gap > this.blockMax) this.blockMax = gap
        this.blockCount++
        if (this.blockCount < WINDOW) return
        this.blockMaxima.push(this.blockMax)
        if (this.blockMaxima.length > LONG_MEMORY_BLOCKS) this.blockMaxima = this.blockMaxima.slice(1)
        this.blockMax = 0
        this.blockCount = 0
    }
}

/** Whole periods a gap spans (at least one). */
function periodsIn(gap: number, period: number): number {
    const k = Math.round(gap / period)
    return k < 1 ? 1 : k
}

/** Median of a non-empty list (the middle two averaged for an even count). */
function median(values: number[]): number {
    const sorted = values.slice(0)
    sorted.sort((a, b) => a - b)
    const mid = sorted.length >> 1
    return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
}
