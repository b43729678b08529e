// Each algorithm's time bounds as formulas of n and the timing (T answer timeout, T'
// coordinator timeout, F failure timeout, H heartbeat): how long one election may last
// (the election deadline's base) and how long after the faults end a cluster may take to
// converge. The reasoning is in docs/algorithms.md, "Converging under faults".

import type { Timing } from "./contract"

/** bully: ELECTION, T for OKs, T' for COORDINATOR, and once more after a restart (whatever n, which every bound takes). */
export function bullyElectionBound(n: number, timing: Timing): number {
    return 2 * (timing.answerTimeout + timing.coordinatorTimeout)
}

/** improved-bully: the cascade may ask every process in turn, each within T + T'. */
export function improvedBullyElectionBound(n: number, timing: Timing): number {
    return (n + 2) * (timing.answerTimeout + timing.coordinatorTimeout)
}

/** R, a ring message's worst-case round trip: every hop in 1, or in T + 1 past a dead successor. */
export function ringRoundTrip(n: number, timing: Timing): number {
    return n * (timing.answerTimeout + 1)
}

/** ring, active-list-ring: an election and its result each go round once: 2R, and T' to spare. */
export function ringElectionBound(n: number, timing: Timing): number {
    return 2 * ringRoundTrip(n, timing) + timing.coordinatorTimeout
}

/** bid-ring: past the voters' own wait (2R), after which they initiate (R more). */
export function bidRingElectionBound(n: number, timing: Timing): number {
    return 4 * ringRoundTrip(n, timing) + timing.coordinatorTimeout
}

/** echo: a wave goes down a tree at most n deep and back, each level within T + 1. */
export function echoElectionBound(n: number, timing: Timing): number {
    return n * (timing.answerTimeout + 1) + 2 * timing.coordinatorTimeout
}

/** The election deadline's longest wait for an election bound B: 2B after restarts in a row, and a jitter below B/2 + 1. */
export function longestDeadline(bound: number): number {
    return 2 * bound + Math.floor(bound / 2)
}

/**
 * Convergence after the faults end, for an algorithm whose election lasts at most B: a
 * dead coordinator is suspected within F, an election stuck on a lost message ends at its
 * deadline (at most 2.5 B after it was armed), then one election on a quiet network (B)
 * and one heartbeat for a follower of a lower coordinator to hear the new one (H).
 */
export function convergenceAfterFaults(bound: number, timing: Timing): number {
    const stuck = longestDeadline(bound)
    return (timing.failureTimeout > stuck ? timing.failureTimeout : stuck) + bound + timing.heartbeatInterval
}
