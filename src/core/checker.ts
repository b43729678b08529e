// The one checker of the election property, for the engine's summary, the virtual lab,
// the benchmarks and the fault campaign (see docs/algorithms.md):
//
//   every live process names the same coordinator; it is live; it is the highest-ranked
//   live process (highest bid in bid-ring); exactly one live process holds the coordinator
//   role; nobody is electing; nobody follows a non-member.
//
// plus the trace invariants a driver collects while it runs: no exception, no frame too
// long, a message budget (no storm), and simulated time that advances.
//
// Pure and portable (DeviceScript subset): plain arrays and numbers only.

import { NO_NODE, Role } from "./contract"
import { MAX_LIST_LENGTH } from "./frame"
import { ElectionNode } from "./node"

/** One process as a driver sees it. */
export interface ProcessView {
    id: number
    /** Up (not crashed, not powered off). A frozen process is live. */
    live: boolean
    role: Role
    /** The coordinator it names, or NO_NODE. */
    coordinator: number
    epoch: number
    /** How it ranks as a candidate: its bid in bid-ring, its id elsewhere. */
    rank: number
    /** The ids it considers members; absent: every id of the cluster. */
    members?: number[]
}

/** A node of the core as the checker sees it. */
export function viewOf(n: ElectionNode): ProcessView {
    return { id: n.id, live: !n.crashed, role: n.role, coordinator: n.coordinator, epoch: n.epoch, rank: n.rank(), members: n.ids }
}

/** What the cluster-level check concluded, besides the list of violated clauses. */
export interface Verdict {
    /** Every live process names the same coordinator. */
    agreement: boolean
    /** The agreed coordinator (NO_NODE without agreement or live processes). */
    coordinator: number
    /** The highest-ranked live process, or NO_NODE. */
    highestLive: number
    /** Empty when the property holds. */
    violations: string[]
}

/** Trace facts a driver gathers during a run. */
export interface TraceFacts {
    /** Exceptions thrown by nodes, each already described. */
    errors: string[]
    /** Messages whose frame is too long for one packet. */
    oversize: number
    /** Election messages sent (heartbeats apart). */
    messages: number
    /** Most election messages allowed; 0: no budget. */
    messageBudget: number
    /** Most election messages in flight at once, and the most allowed (0: no budget). */
    maxInFlight: number
    inFlightBudget: number
    /** Empty while simulated time advances; else what stalled it. */
    stalled: string
}

function contains(list: number[], x: number): boolean {
    for (let i = 0; i < list.length; i++) if (list[i] === x) return true
    return false
}

function find(processes: ProcessView[], id: number): ProcessView {
    for (let i = 0; i < processes.length; i++) if (processes[i].id === id) return processes[i]
    return null
}

/**
 * Checks the property on a snapshot of the cluster. The first clauses keep the wording
 * the engine's summary has always printed (golden files and users' scripts read it).
 */
export function checkCluster(processes: ProcessView[]): Verdict {
    const violations: string[] = []
    const coordinators: number[] = []
    const electing: number[] = []
    const misconfigured: number[] = []
    let liveCount = 0
    let highest: ProcessView = null
    let agreed = NO_NODE
    let agreement = true
    for (let i = 0; i < processes.length; i++) {
        const p = processes[i]
        if (!p.live) continue
        liveCount++
        if (highest === null || p.rank > highest.rank) highest = p
        if (p.role === Role.Coordinator) coordinators.push(p.id)
        else if (p.role === Role.Electing) electing.push(p.id)
        else if (p.role === Role.Misconfigured) misconfigured.push(p.id)
        if (liveCount === 1) agreed = p.coordinator
        else if (p.coordinator !== agreed) agreement = false
    }
    if (liveCount === 0) return { agreement: true, coordinator: NO_NODE, highestLive: NO_NODE, violations: violations }
    if (!agreement) violations.push("live processes disagree on the coordinator")
    if (coordinators.length > 1) violations.push("more than one coordinator: " + coordinators.join(","))
    const leader = agreement ? find(processes, agreed) : null
    if (agreement && agreed === NO_NODE) violations.push("no coordinator known")
    else if (agreement && leader !== null && !leader.live)
        violations.push("the agreed coordinator " + agreed + " is crashed")
    else if (agreement && agreed !== highest.id)
        violations.push("coordinator " + agreed + " is not the highest-ranked live process " + highest.id)
    else if (agreement && leader !== null && leader.role !== Role.Coordinator && leader.role !== Role.Misconfigured)
        violations.push("the agreed coordinator " + agreed + " does not hold the coordinator role")
    if (electing.length > 0) violations.push("still electing: " + electing.join(","))
    if (misconfigured.length > 0) violations.push("misconfigured: " + misconfigured.join(","))
    // No `continue` here: in the DeviceScript VM this loop never ended with one (InfiniteLoop).
    for (let i = 0; i < processes.length; i++) {
        const p = processes[i]
        if (p.live && p.coordinator !== NO_NODE) {
            const known = p.members ? contains(p.members, p.coordinator) : find(processes, p.coordinator) !== null
            if (!known) violations.push("process " + p.id + " follows non-member " + p.coordinator)
        }
    }
    return {
        agreement: agreement,
        coordinator: agreement ? agreed : NO_NODE,
        highestLive: highest.id,
        violations: violations,
    }
}

/** Checks the trace invariants; the wording of the first two is the summary's of old. */
export function checkTrace(facts: TraceFacts): string[] {
    const violations: string[] = []
    for (let i = 0; i < facts.errors.length; i++) violations.push(facts.errors[i])
    if (facts.oversize > 0)
        violations.push(
            facts.oversize + " messages exceed the 236-byte frame (lists past " + MAX_LIST_LENGTH + " ids)"
        )
    if (facts.messageBudget > 0 && facts.messages > facts.messageBudget)
        violations.push("message storm: " + facts.messages + " messages, budget " + facts.messageBudget)
    if (facts.inFlightBudget > 0 && facts.maxInFlight > facts.inFlightBudget)
        violations.push("message storm: " + facts.maxInFlight + " election messages in flight at once, budget " + facts.inFlightBudget)
    if (facts.stalled !== "") violations.push("simulated time stalls: " + facts.stalled)
    return violations
}

/** Trace violations first, then the cluster's: the order the summary has always used. */
export function checkRun(processes: ProcessView[], facts: TraceFacts): Verdict {
    const verdict = checkCluster(processes)
    const all = checkTrace(facts)
    for (let i = 0; i < verdict.violations.length; i++) all.push(verdict.violations[i])
    verdict.violations = all
    return verdict
}
