// What an algorithm module tells the rest of the project about itself: one descriptor per
// algorithm, listed once in the registry (algorithms.ts). Adding an algorithm touches its
// own file and the registry.

import { NodeConfig, Timing } from "./contract"
import { Algorithm } from "./frame"
import { ElectionNode } from "./node"

export interface AlgorithmDescriptor {
    algorithm: Algorithm
    /** The CLI and manifest name (the only place it is written; algorithmName reads it). */
    name: string
    create: (config: NodeConfig) => ElectionNode
    /**
     * How a message chart shows its frames: a template per kind whose payload says more than
     * its name, starting with that name (describeFrame fills it in). Templates, not functions:
     * the boards carry every descriptor, and their code area is nearly full.
     */
    frameLabels: string[]
    /** What traces call its own timers, from TIMER_ALGORITHM on (data, as frameLabels). */
    timerLabels: string[]
    /** Messages travel in the order of the ids as given (the ring). */
    usesRingOrder: boolean
    /** Runs on a graph (`neighbors`); the others assume every process reaches every other. */
    usesGraph: boolean
    /** Bids carry a suitability prefix. */
    usesSuitability: boolean
    /** Its rules assume links that keep their order (FIFO): where they do not, it may elect two coordinators. */
    needsFifoLinks: boolean
    /**
     * How long one election may last, n processes (bounds.ts); convergenceAfterFaults turns
     * it into the longest time from the end of the faults to the last role change. The
     * bound's own function, not a closure: the boards carry every descriptor they run.
     */
    electionBound: (n: number, timing: Timing) => number
}

/** A cluster's nodes, one per process by ascending id, and the descriptor of the algorithm they run. */
export interface Cluster {
    descriptor: AlgorithmDescriptor
    nodes: ElectionNode[]
}
