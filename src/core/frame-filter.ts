// The frame filter: which frames reach a node's parts and its algorithm. `hears` is what a
// driver counts as received (the node is up, the frame is for it); `admits` is the node's own
// filter, each frame it refuses counted by reason (Ignored), and it reads two signs of a
// misconfigured lab on the way: a frame of another algorithm (until such frames stop, when
// TIMER_OTHER_ALGORITHM in node.ts's `timer` lets the node rejoin) and a unicast from our
// own id. Functions, not methods: see node-state.ts's helpers.

import { Action, Ignored, indexOfSorted, setTimer, TIMER_OTHER_ALGORITHM } from "./contract"
import { BROADCAST, Frame } from "./frame"
import { NodeState } from "./node-state"

/** True when a frame reaches this node: it is up, and the frame is for it and not its own. */
export function hears(node: NodeState, frame: Frame): boolean {
    if (node.crashed) return false
    if (frame.src === node.id) return false
    return frame.dst === BROADCAST || frame.dst === node.id
}

/** True when a decoded frame reaches the node's parts: its group, its algorithm, for it, from another member. */
export function admits(node: NodeState, frame: Frame, out: Action[]): boolean {
    if (frame.group !== node.group) return ignore(node, Ignored.OtherGroup)
    if (frame.algorithm !== node.algorithm) {
        // A sign of a misconfigured lab, but only a hint: without a key anybody can send
        // one (with a key it fails its tag). Misconfigured while they keep coming, back in
        // the election a few failure timeouts after the last.
        if (!node.misconfigured) {
            node.misconfigure(out)
            node.otherAlgorithm = true
        }
        if (node.otherAlgorithm) setTimer(TIMER_OTHER_ALGORITHM, 4 * Math.max(node.timing.failureTimeout, node.timing.coordinatorTimeout), out)
        return ignore(node, Ignored.OtherAlgorithm)
    }
    if (frame.dst !== BROADCAST) {
        if (frame.dst !== node.id) return ignore(node, Ignored.NotForMe)
    }
    if (frame.src === node.id) {
        // Our own broadcast heard back (MQTT delivers a publish to its sender too) is not
        // news; a unicast to us from our own id we never sent: another process has our id.
        if (frame.dst === node.id) node.misconfigure(out)
        return ignore(node, Ignored.OwnId)
    }
    if (indexOfSorted(node.ids, frame.src) < 0) return ignore(node, Ignored.UnknownSender)
    return true
}

/** Count a frame the node does not act on; returns false, for `receive` to hand back. */
export function ignore(node: NodeState, reason: Ignored): boolean {
    node.ignored[reason] = node.ignored[reason] + 1
    return false
}
