// The registry: every algorithm's descriptor, listed once. Adding an algorithm means its
// own module (state machine and descriptor) and one line here, two when it gives the
// exhaustive check hints (checkHintsOf).

import { activeListRingCheckHints, activeListRingDescriptor, activeListRingHeapBudget, activeListRingLabels } from "./active-list-ring"
import { bidRingCheckHints, bidRingDescriptor, bidRingHeapBudget, bidRingLabels } from "./bid-ring"
import { bullyDescriptor, bullyHeapBudget, bullyLabels } from "./bully"
import { ClusterOptions, NodeConfig, sortedIds } from "./contract"
import { AlgorithmDescriptor, AlgorithmLabels, CheckHints, Cluster } from "./descriptor"
import { echoCheckHints, echoDescriptor, echoHeapBudget, echoLabels } from "./echo"
import { Algorithm, Frame } from "./frame"
import { improvedBullyCheckHints, improvedBullyDescriptor, improvedBullyHeapBudget, improvedBullyLabels } from "./improved-bully"
import { ElectionNode } from "./node"
import { mod } from "./portable"
import { ringCheckHints, ringDescriptor, ringHeapBudget, ringLabels } from "./ring"

export const ALGORITHMS: AlgorithmDescriptor[] = [
    bullyDescriptor,
    improvedBullyDescriptor,
    ringDescriptor,
    activeListRingDescriptor,
    bidRingDescriptor,
    echoDescriptor,
]

/**
 * The exhaustive check's hints for wire algorithm number `algorithm` (descriptor.ts), each
 * from its module; none for an algorithm with no fields of its own to hint. No board calls
 * this, so no board image holds the hints.
 */
export function checkHintsOf(algorithm: number): CheckHints {
    if (algorithm === Algorithm.ImprovedBully) return improvedBullyCheckHints()
    if (algorithm === Algorithm.Ring) return ringCheckHints()
    if (algorithm === Algorithm.ActiveListRing) return activeListRingCheckHints()
    if (algorithm === Algorithm.BidRing) return bidRingCheckHints()
    if (algorithm === Algorithm.Echo) return echoCheckHints()
    return {}
}

/** How charts and traces name the frames and timers of wire algorithm number `algorithm`, from its module. No board calls this. */
export function labelsOf(algorithm: number): AlgorithmLabels {
    if (algorithm === Algorithm.ImprovedBully) return improvedBullyLabels()
    if (algorithm === Algorithm.Ring) return ringLabels()
    if (algorithm === Algorithm.ActiveListRing) return activeListRingLabels()
    if (algorithm === Algorithm.BidRing) return bidRingLabels()
    if (algorithm === Algorithm.Echo) return echoLabels()
    if (algorithm === Algorithm.Bully) return bullyLabels()
    return { frames: [], timers: [] }
}

/** Most heap a board running wire algorithm number `algorithm` may hold at 12 boards (bytes), from its module. No board calls this. */
export function heapBudgetOf(algorithm: number): number {
    if (algorithm === Algorithm.ImprovedBully) return improvedBullyHeapBudget()
    if (algorithm === Algorithm.Ring) return ringHeapBudget()
    if (algorithm === Algorithm.ActiveListRing) return activeListRingHeapBudget()
    if (algorithm === Algorithm.BidRing) return bidRingHeapBudget()
    if (algorithm === Algorithm.Echo) return echoHeapBudget()
    if (algorithm === Algorithm.Bully) return bullyHeapBudget()
    return 0
}

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

/** One node per process, by ascending id; throws when this core has no such algorithm. */
export function createCluster(options: ClusterOptions): Cluster {
    const descriptor = descriptorOf(options.algorithm)
    if (!descriptor) throw new Error("no such algorithm: " + options.algorithm)
    const ids = sortedIds(options.ids)
    const nodes: ElectionNode[] = []
    for (let i = 0; i < ids.length; i++) {
        const at = options.ids.indexOf(ids[i])
        const node = descriptor.create({
            id: ids[i],
            ids: options.ids,
            group: options.group,
            timing: options.timing,
            neighbors: options.neighbors ? options.neighbors[at] : undefined,
            suitability: options.suitability ? options.suitability[at] : undefined,
            // each process its own jitter stream, decided by the run's seed
            seed: mod((options.seed ? options.seed : 0) * 7919 + ids[i], 2147483647),
        })
        nodes.push(node)
    }
    return { descriptor: descriptor, nodes: nodes, timerLabels: labelsOf(options.algorithm).timers }
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
