// A node's own invariants, checked after each of its steps by the drivers that test (the
// engine: simulator, campaign, golden files inside the VM; the exhaustive check), as a
// replica checks itself. What the checker (checker.ts) judges of a whole cluster from
// outside, asserted here where one node can see it. Board images never import this module,
// so it costs them no byte.

import { Action, ActionType, indexOfSorted, MAX_TIMERS, NO_NODE, Role, RoleChangeAction } from "./contract"
import { ElectionNode } from "./node"
import { EPOCH_MODULUS, epochAfter } from "./portable"

/** What a step may not change silently: the node's view before it. */
export interface StepBefore {
    role: Role
    coordinator: number
    epoch: number
    crashed: boolean
}

export function stepBefore(node: ElectionNode): StepBefore {
    return { role: node.role, coordinator: node.coordinator, epoch: node.epoch, crashed: node.crashed }
}

function problem(node: ElectionNode, what: string): string {
    return "node " + node.id + ": " + what
}

/**
 * The invariants node `node` broke in one step that began in `before` and returned `out`
 * (empty when none). `fromStart`: the step was start/powerOn, which sets the epoch afresh.
 */
export function stepProblems(node: ElectionNode, before: StepBefore, out: Action[], fromStart: boolean): string[] {
    // no closure here: the drivers call this at every step, and where names are kept (tsx)
    // naming a closure made per call costs more than the checks
    const problems: string[] = []
    if (node.role === Role.Coordinator && node.coordinator !== node.id) problems.push(problem(node, "coordinator role, but follows " + node.coordinator))
    if (node.role === Role.Follower && node.coordinator === node.id) problems.push(problem(node, "follower of itself"))
    if ((node.role === Role.Crashed) !== node.crashed) problems.push(problem(node, "role " + node.role + " while crashed is " + node.crashed))
    if (node.coordinator !== NO_NODE && indexOfSorted(node.ids, node.coordinator) < 0) problems.push(problem(node, "follows a non-member " + node.coordinator))
    if (!(node.epoch >= 0 && node.epoch < EPOCH_MODULUS && node.epoch === Math.floor(node.epoch))) problems.push(problem(node, "epoch out of range: " + node.epoch))
    if (!fromStart && epochAfter(before.epoch, node.epoch)) problems.push(problem(node, "epoch went back from " + before.epoch + " to " + node.epoch))
    // a role change reaches the driver as the last RoleChange of the step, stating the node's view
    // (a timer set twice in one step is set once: the later setting replaces the earlier)
    let last: RoleChangeAction = null
    for (let i = 0; i < out.length; i++) {
        const a = out[i]
        if (a.type === ActionType.RoleChange) last = a
        else if (a.type === ActionType.SetTimer || a.type === ActionType.CancelTimer) {
            if (!(a.timer >= 0 && a.timer < MAX_TIMERS)) problems.push(problem(node, "timer id out of range: " + a.timer))
            else if (a.type === ActionType.SetTimer && !(a.delay >= 0)) problems.push(problem(node, "timer " + a.timer + " with delay " + a.delay))
        } else if (a.type === ActionType.Send) {
            if (before.crashed && node.crashed) problems.push(problem(node, "sent while crashed"))
            const f = a.frame
            if (f.src !== node.id || f.group !== node.group || f.algorithm !== node.algorithm) problems.push(problem(node, "sent a frame not its own"))
            for (let d = 0; d < a.to.length; d++)
                if (a.to[d] === node.id || indexOfSorted(node.ids, a.to[d]) < 0) problems.push(problem(node, "sent to " + a.to[d]))
        }
    }
    const changed = node.role !== before.role || node.coordinator !== before.coordinator
    if (changed && !last) problems.push(problem(node, "role or coordinator changed without a RoleChange"))
    if (last && (last.role !== node.role || last.coordinator !== node.coordinator)) problems.push(problem(node, "its last RoleChange is not its state"))
    return problems
}
