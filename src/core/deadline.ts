// The election deadline (our extension: no dead ends). While a process elects, or follows
// nobody, a timer restarts its election, forgetting its state: an election that has not
// ended within its bound is started afresh.

import { Action, NO_NODE, Role, setTimer, TIMER_DEADLINE } from "./contract"
import { NodeState } from "./node-state"

/** Electing, or a follower that knows no coordinator (a recovered process asking round). */
export function waitsForLeader(node: NodeState): boolean {
    return node.role === Role.Electing || (node.role === Role.Follower && node.coordinator === NO_NODE)
}

/**
 * Each restart in a row waits longer (1, 1.5, then 2 bounds), plus a jitter of up to half
 * a bound so that restarts do not stay in step.
 */
export function armDeadline(node: NodeState, out: Action[]) {
    const bound = node.electionBound()
    const factor = node.restarts < 2 ? 1 + node.restarts / 2 : 2
    setTimer(TIMER_DEADLINE, bound * factor + node.jitter.below(Math.floor(bound / 2) + 1), out)
}

export function onDeadline(node: NodeState, now: number, out: Action[]) {
    if (!waitsForLeader(node)) return
    node.restarts = node.restarts + 1
    node.forgetElection(now, out)
    node.onSuspect(now, out)
    if (waitsForLeader(node)) armDeadline(node, out)
}
