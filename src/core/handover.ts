// The handover (our extension: zero overlap when a higher process takes over). With
// heartbeats on, a process about to lead while a coordinator sits first asks it to step
// down (HANDOVER) and waits for its RESIGN, or for a bounded time when it does not answer.

import { Action, ActionType, cancelTimer, indexOfSorted, NO_NODE, Role, setTimer, TIMER_HANDOVER, TIMER_WATCH } from "./contract"
import { BROADCAST, Frame, Kind } from "./frame"
import { frameFrom, multicast, NodeState, othersIds, send, sendHeartbeat, sitsAbove } from "./node-state"

/**
 * A process about to lead while a live coordinator sits (heard within 1.5 heartbeat periods
 * and not suspected), or may sit (it started or recovered and knows no coordinator yet),
 * first asks it to step down: HANDOVER to it (to each of the others when unknown), then
 * waits for its RESIGN (for everybody's when unknown), or T. Meanwhile it is electing,
 * naming itself. True when the claim started (or is under way).
 */
export function claimFirst(node: NodeState, out: Action[]): boolean {
    const t = node.timing
    if (t.heartbeatInterval <= 0) return false
    if (node.misconfigured) return false
    if (node.claiming) return true
    const sitting = sitsAbove(node, -1, node.lastHeardFromCoordinator)
    if (!sitting) {
        if (!node.freshMemory) return false
    }
    // a sitting coordinator that outranks us (an election that took it for crashed made us
    // win) answers with a heartbeat, which may queue behind other traffic for longer than T
    // (and the next periodic one comes within a period)
    const outranked = sitsAbove(node, node.rank(), node.lastHeardFromCoordinator)
    const target = sitting ? node.coordinator : NO_NODE
    node.setRole(Role.Electing, node.id, out)
    node.claiming = true
    node.claimNamed = target
    node.resigned = []
    for (let i = 0; i < node.ids.length; i++) node.resigned.push(false)
    // One by name to each when unknown, not a broadcast: a board that just powered on is
    // bound to its peers (it waited for them) before they are bound to it, so they would
    // miss its broadcast. Highest first: the likeliest to sit hears it first when the
    // sends queue on a slow link. `initiator` names who we think sits (BROADCAST: whoever holds it).
    // The sends share one frame (addressed to all; each send names its receiver): a frame a
    // peer, made at once, took a board's heap at 12 boards.
    if (sitting) sendHandover(node, [target], target, out)
    else sendHandover(node, othersIds(node), BROADCAST, out)
    // After a power-on a sitting coordinator may not hear us, or we it, for a while (bus
    // roles bind late; with a key, the first frame waits for a freshness proof: 0.5-0.7 s
    // in the lab): give it as long as a follower gives a coordinator, the failure timeout.
    // An outranking one is heard within a heartbeat period: wait no longer, since whoever
    // followed our COORDINATOR meanwhile suspects us after a failure timeout.
    const wait = (node.poweredOn ? t.failureTimeout : outranked ? t.heartbeatInterval : 0) + t.answerTimeout
    node.claimUntil = node.clock + wait
    setTimer(TIMER_HANDOVER, wait, out)
    return true
}

/** One HANDOVER frame naming `sitting`, sent by name to each of `to`, the last first (the ids ascend: the highest first). */
function sendHandover(node: NodeState, to: number[], sitting: number, out: Action[]) {
    const f = frameFrom(node, Kind.HANDOVER, to.length === 1 ? to[0] : BROADCAST)
    f.bid = node.rank()
    f.initiator = sitting
    for (let i = to.length - 1; i >= 0; i--) out.push({ type: ActionType.Send, to: [to[i]], frame: f })
}

/**
 * A lower coordinator heartbeats while we claim: it still leads, so our claim has not
 * reached it yet (it waited for our freshness proof, or went to all before it heard us, or
 * was lost). Ask it by name at each of its heartbeats and wait for its RESIGN while it is
 * heard: a heartbeat period and T from now, never less than the wait under way (ending
 * the wait sooner made two coordinators when its proof of us came late). The wait ends a
 * period and T after its last heartbeat: once our HANDOVER reaches it, it stops leading.
 * True when it did.
 */
export function askLowerCoordinator(node: NodeState, frame: Frame, out: Action[]): boolean {
    if (!node.claiming) return false
    if (frame.bid >= node.rank()) return false
    const lower = frame.src
    node.claimNamed = lower
    sendHandover(node, [lower], lower, out)
    const t = node.timing
    const until = node.clock + t.heartbeatInterval + t.answerTimeout
    if (until > node.claimUntil) {
        node.claimUntil = until
        setTimer(TIMER_HANDOVER, until - node.clock, out)
    }
    return true
}

/** The sitting coordinator resigned, or nobody answered within T: take the role now. */
export function finishClaim(node: NodeState, out: Action[]) {
    if (!node.claiming) return
    node.claiming = false
    node.freshMemory = false
    node.poweredOn = false
    cancelTimer(TIMER_HANDOVER, out)
    // someone else won meanwhile (setRole also clears `claiming` then)
    if (node.coordinator !== node.id) return
    if (node.role !== Role.Electing) return
    node.assumeCoordinatorRole(out)
}

/**
 * A higher-ranked process claims the role: a coordinator (or a lower claimer) steps down,
 * following it, and answers RESIGN; so does the process the claim names as sitting (it
 * no longer holds the role), and everybody when the claim went to all. A lower
 * claimer is told by our heartbeat that we lead.
 */
export function onHandover(node: NodeState, frame: Frame, now: number, out: Action[]): boolean {
    const held = node.role === Role.Coordinator
    if (frame.bid <= node.rank()) {
        if (held) {
            if (node.timing.heartbeatInterval > 0) sendHeartbeat(node, out)
        }
        return held
    }
    // a coordinator, or a process claiming the role itself, gives way to the higher claim
    const gives = held || node.claiming
    if (gives) {
        node.follow(frame.src, now, out)
        node.coordinatorRank = frame.bid
        // as when following a higher coordinator by its heartbeat: a view of who is up
        // built while leading (everybody above us down) is corrected, or the next
        // failover would find us leading at once beside a higher process
        node.rejoined(now, out)
    }
    // a follower waits for the claimer, and so does a coordinator that just gave way: the
    // claimer's first heartbeats may queue behind its claim to the others
    awaitFirstHeartbeats(node, now, out)
    // a claim to all is answered by all (the claimer leads once everybody has); a claim
    // by name by the one it names, even if it no longer holds the role
    if (!gives) {
        if (frame.initiator !== node.id) {
            if (frame.initiator !== BROADCAST) return true
        }
    }
    // A coordinator resigns to all: its followers may hear the claim late (a new board's
    // first frame waits for its freshness proof) and would elect among themselves meanwhile.
    // It names the claimer, whom alone it lets lead.
    const resign = held ? multicast(node, Kind.RESIGN, othersIds(node), out) : send(node, Kind.RESIGN, frame.src, out)
    resign.initiator = frame.src
    resign.bid = frame.bid
    return true
}

/**
 * Our coordinator's first heartbeats may come up to the failure timeout and T from now: a
 * higher process claims the role (the claimer heartbeats only once the claim ends), or we
 * just powered on (its first frames wait for its freshness proof). Wait that long and a
 * period more. Suspecting sooner (12 boards, the claim's answers late behind other
 * traffic) started an election among the others while the claimer was about to lead: two
 * coordinators.
 */
export function awaitFirstHeartbeats(node: NodeState, now: number, out: Action[]) {
    if (node.role !== Role.Follower) return
    if (node.timing.heartbeatInterval <= 0) return
    const t = node.timing
    node.claimedUntil = now + t.failureTimeout + t.answerTimeout + t.heartbeatInterval
    setTimer(TIMER_WATCH, node.claimedUntil - now, out)
}

export function onResign(node: NodeState, frame: Frame, out: Action[]): boolean {
    if (!node.claiming || frame.initiator !== node.id) {
        // Our coordinator resigned to a claimer: follow the claimer. Should it never lead,
        // suspicion falls on it, not on the one that resigned: an improved-bully follower
        // asks below the claimer, where the resigned coordinator still lives.
        if (frame.src !== node.coordinator) return false
        node.follow(frame.initiator, node.clock, out)
        if (node.coordinator === frame.initiator) {
            if (!node.ranksById()) node.noteCoordinatorRank(frame.bid, out)
        }
        awaitFirstHeartbeats(node, node.clock, out)
        return true
    }
    node.resigned[indexOfSorted(node.ids, frame.src)] = true
    let all = true
    for (let i = 0; i < node.ids.length; i++) if (i !== node.index && !node.resigned[i]) all = false
    // by name: the sitting one's answer is enough; to all: every other process answered
    if (frame.src === node.claimNamed || all) finishClaim(node, out)
    return true
}
