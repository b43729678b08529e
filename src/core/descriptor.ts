// What an algorithm module tells the rest of the project about itself: one descriptor per
// algorithm, listed once in the registry (algorithms.ts). Adding an algorithm touches its
// own file and the registry.

import { AckLink } from "./ack-link"
import { NodeConfig, Timing } from "./contract"
import { Algorithm } from "./frame"
import { ElectionNode } from "./node"

/**
 * What the exhaustive check (`electlab check`) must know of an algorithm's own node fields,
 * beyond those every node has. Accessors: the check learns which fields each one reads by
 * calling it on a recorder, so renaming a field renames its hint or breaks the build; it
 * calls downSince, downCap, ageCap and seqs on real nodes too. Each algorithm module declares its
 * hints beside its descriptor, in a function the registry's checkHintsOf calls; not in the
 * descriptor itself: the boards carry every descriptor, and their code space is full,
 * while a function that nothing on a board calls is left out of its image. Methods, not
 * function fields, so that a hint may take the algorithm's own node class.
 */
export interface CheckHints {
    /** Fields that never change after construction: left out of a state. */
    skipped?(n: ElectionNode): unknown[]
    /** Fields a node's copies may share (never changed in place). */
    shared?(n: ElectionNode): unknown[]
    /** Times only ever compared for equality with a later event's time: hashed as now or past. */
    instants?(n: ElectionNode): unknown[]
    /** Counters only compared below a bound, each followed by its bound: hashed capped. */
    capped?(n: ElectionNode): unknown[]
    /**
     * Per process: since when this node believes it down, and whether it does. Read only
     * with heartbeats: hashed as each down mark's age capped at `downCap`, else left out.
     */
    downSince?(n: ElectionNode): [number[], boolean[]]
    downCap?(n: ElectionNode): number
    /**
     * Times read only with heartbeats, negative for none: hashed as their age capped at
     * `ageCap` (older is as old), else left out.
     */
    aged?(n: ElectionNode): unknown[]
    ageCap?(n: ElectionNode): number
    /** A ring's seqs, renamed by who gave them: the last seq given, the acknowledged link, the seen tags. */
    seqs?(n: ElectionNode): [number, AckLink, number[]]
}

/**
 * How charts and traces name an algorithm's frames and timers, from a function of its module
 * that the registry's labelsOf calls: no board calls it, so no board image holds the labels.
 */
export interface AlgorithmLabels {
    /**
     * A template per kind whose payload says more than its name, starting with that name
     * (describeFrame fills it in).
     */
    frames: string[]
    /** Its own timers' names, from TIMER_ALGORITHM on. */
    timers: string[]
}

export interface AlgorithmDescriptor {
    algorithm: Algorithm
    /** The CLI and manifest name (the only place it is written; algorithmName reads it). */
    name: string
    create: (config: NodeConfig) => ElectionNode
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

/** A cluster's nodes, one per process by ascending id, the descriptor of the algorithm they run, and its names for its timers (labelsOf). */
export interface Cluster {
    descriptor: AlgorithmDescriptor
    nodes: ElectionNode[]
    timerLabels: string[]
}
