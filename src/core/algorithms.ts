// The algorithm registry: one place that maps a wire/CLI algorithm to its state machine.

import { BullyNode } from "./bully"
import { Algorithm } from "./frame"
import { ImprovedBullyNode } from "./improved-bully"
import { ElectionNode, NodeConfig } from "./node"
import { RingNode } from "./ring"
import { ActiveListRingNode } from "./active-list-ring"
import { BidRingNode } from "./bid-ring"
import { EchoNode } from "./echo"

/** Algorithms with a state machine in this version of the core. */
export const IMPLEMENTED_ALGORITHMS = [
    Algorithm.Bully,
    Algorithm.ImprovedBully,
    Algorithm.Ring,
    Algorithm.ActiveListRing,
    Algorithm.BidRing,
    Algorithm.Echo,
]

export function isImplemented(algorithm: number): boolean {
    return IMPLEMENTED_ALGORITHMS.indexOf(algorithm) >= 0
}

/** A node running `algorithm`, or null when this core has no such algorithm. */
export function createNode(algorithm: number, config: NodeConfig): ElectionNode {
    if (algorithm === Algorithm.Bully) return new BullyNode(config)
    if (algorithm === Algorithm.ImprovedBully) return new ImprovedBullyNode(config)
    if (algorithm === Algorithm.Ring) return new RingNode(config)
    if (algorithm === Algorithm.ActiveListRing) return new ActiveListRingNode(config)
    if (algorithm === Algorithm.BidRing) return new BidRingNode(config)
    if (algorithm === Algorithm.Echo) return new EchoNode(config)
    return null
}
