// An election episode as a summary reports it, since the last reset: when it began, when
// the live processes last changed their minds (the election time), and what went wrong on
// the way (a node threw, somebody followed a non-member), for the checker.

import { indexOfSorted, NO_NODE, Role } from "./contract"
import { ElectionNode } from "./node"

/** Non-member follows kept at most: a storm of them says no more than the first hundred. */
const MAX_FOLLOW_ERRORS = 100

export class Episode {
    /** When the episode began (a detection, a recovery, a process electing); -1: not yet. */
    private start = -1
    /** Per process, in the engine's order: its last role or belief change; -1: none. */
    private changedAt: number[] = []
    readonly errors: string[] = []

    constructor(processes: number) {
        for (let i = 0; i < processes; i++) this.changedAt.push(-1)
    }

    reset() {
        this.start = -1
        while (this.errors.length > 0) this.errors.pop()
        for (let i = 0; i < this.changedAt.length; i++) this.changedAt[i] = -1
    }

    /** Something that starts an episode happened at `now`; only the first counts. */
    begin(now: number) {
        if (this.start < 0) this.start = now
    }

    /** Process `i` (`node`) took `role` following `coordinator` at `now`. */
    roleChanged(i: number, node: ElectionNode, role: Role, coordinator: number, now: number) {
        if (role === Role.Electing) this.begin(now)
        if (role !== Role.Crashed) this.changedAt[i] = now
        // a trace check: nobody follows a non-member, not even for a moment
        if (coordinator !== NO_NODE && indexOfSorted(node.ids, coordinator) < 0 && this.errors.length < MAX_FOLLOW_ERRORS)
            this.errors.push("process " + node.id + " followed non-member " + coordinator + " at t=" + now)
    }

    /** Time of the last role or belief change of any live process, or -1. */
    lastChange(nodes: ElectionNode[]): number {
        let last = -1
        for (let i = 0; i < nodes.length; i++)
            if (!nodes[i].crashed && this.changedAt[i] > last) last = this.changedAt[i]
        return last
    }

    /** From the episode's start to the last change of a live process; 0 when none followed it. */
    electionTime(nodes: ElectionNode[]): number {
        const last = this.lastChange(nodes)
        return this.start >= 0 && last >= this.start ? last - this.start : 0
    }
}
