// The default timing of each transport, in one table: the simulator, scenario files, the
// virtual lab, host nodes and the boards' settings all start from it.

import type { Timing } from "./contract"

/** Transports with a timing of their own: the ideal network (ticks), the Jacdac bus and WiFi/MQTT (ms). */
export type TimingProfile = "ideal" | "bus" | "wifi"

/**
 * Each row holds the failure detector's values for when it runs (heartbeat, failure
 * timeout); a driver that runs without it sets both to 0 (`withoutDetector`).
 * ideal: T above a round trip (2), T' above T + 1. bus and wifi: the boards' timing
 * documented in docs/benchmarks.md (both transports answer well inside T = 200 ms).
 */
export function defaultTiming(profile: string): Timing {
    if (profile === "ideal")
        return { answerTimeout: 3, coordinatorTimeout: 5, heartbeatInterval: 10, failureTimeout: 25, failureDetector: "fixed" }
    if (profile === "bus" || profile === "wifi" || profile === "mqtt")
        return { answerTimeout: 200, coordinatorTimeout: 400, heartbeatInterval: 250, failureTimeout: 800, failureDetector: "fixed" }
    return null
}

/** The same timing with the heartbeat failure detector off. */
export function withoutDetector(timing: Timing): Timing {
    return {
        answerTimeout: timing.answerTimeout,
        coordinatorTimeout: timing.coordinatorTimeout,
        heartbeatInterval: 0,
        failureTimeout: 0,
    }
}

/** Timing for the ideal network (delay 1): T above a round trip, T' above T + 1. */
export function idealTiming(): Timing {
    return withoutDetector(defaultTiming("ideal"))
}
