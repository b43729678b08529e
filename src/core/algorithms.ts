// The registry: every algorithm's descriptor, listed once. Adding an algorithm means its
// own module (state machine and descriptor) and one line here.

import { activeListRingDescriptor } from "./active-list-ring"
import { bidRingDescriptor } from "./bid-ring"
import { bullyDescriptor } from "./bully"
import { NodeConfig } from "./contract"
import { AlgorithmDescriptor } from "./descriptor"
import { echoDescriptor } from "./echo"
import { Frame } from "./frame"
import { improvedBullyDescriptor } from "./improved-bully"
import { ElectionNode } from "./node"
import { ringDescriptor } from "./ring"

export const ALGORITHMS: AlgorithmDescriptor[] = [
    bullyDescriptor,
    improvedBullyDescriptor,
    ringDescriptor,
    activeListRingDescriptor,
    bidRingDescriptor,
    echoDescriptor,
]

/** The descriptor of wire algorithm number `algorithm`, or null. */
export function descriptorOf(algorithm: number): AlgorithmDescriptor {
    for (let i = 0; i < ALGORITHMS.length; i++) if (ALGORITHMS[i].algorithm === algorithm) return ALGORITHMS[i]
    return null
}

/** The descriptor named `name` (CLI, manifest), or null. */
export function descriptorNamed(name: string): AlgorithmDescriptor {
    return descriptorOf(parseAlgorithm(name))
}

/** A node running `algorithm`, or null when this core has no such algorithm. */
export function createNode(algorithm: number, config: NodeConfig): ElectionNode {
    const d = descriptorOf(algorithm)
    return d ? d.create(config) : null
}


/** The CLI and manifest name of wire algorithm number `algorithm` ("algorithmN" when unknown). */
export function algorithmName(algorithm: number): string {
    const d = descriptorOf(algorithm)
    return d ? d.name : "algorithm" + algorithm
}

/** The algorithm with this CLI name, or 0 when there is none. */
export function parseAlgorithm(name: string): number {
    for (let i = 0; i < ALGORITHMS.length; i++) if (ALGORITHMS[i].name === name) return ALGORITHMS[i].algorithm
    return 0
}
