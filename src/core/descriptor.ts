// What an algorithm module tells the rest of the project about itself: one descriptor per
// algorithm, listed once in the registry (algorithms.ts). Adding an algorithm touches its
// own file and the registry.

import { Algorithm, Frame, kindName } from "./frame"
import { ElectionNode, NodeConfig, Timing } from "./node"
import { mod } from "./portable"

export interface AlgorithmDescriptor {
    algorithm: Algorithm
    /** The CLI and manifest name (the same as frame.ts's algorithmName). */
    name: string
    create: (config: NodeConfig) => ElectionNode
    /** How a message chart shows one of its frames: the kind and its payload, read as this algorithm means it. */
    describeFrame: (frame: Frame) => string
    /** Messages travel in the order of the ids as given (the ring). */
    usesRingOrder: boolean
    /** Runs on a graph (`neighbors`); the others assume every process reaches every other. */
    usesGraph: boolean
    /** Bids carry a suitability prefix. */
    usesSuitability: boolean
    /** Longest time from the end of the faults to the last role change, n processes (bounds.ts). */
    convergenceBound: (n: number, timing: Timing) => number
}

/** A bid as the id, or suitability:id when a suitability prefix is set. */
export function formatBid(bid: number): string {
    const suitability = Math.floor(bid / 65536)
    const id = mod(bid, 65536)
    return suitability > 0 ? suitability + ":" + id : "" + id
}

/** The kind alone: for frames whose payload says nothing more. */
export function kindOnly(frame: Frame): string {
    return kindName(frame.kind)
}
