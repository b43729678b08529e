// Heartbeats, the watch on the coordinator and the contest rule. A coordinator heartbeats
// while it holds the role; a follower suspects a coordinator silent for longer than its
// failure detector allows; two processes that both lead are settled by rank.

import { Action, cancelTimer, NO_NODE, Role, setTimer, TIMER_CONTEST, TIMER_HEARTBEAT, TIMER_WATCH } from "./contract"
import { Frame } from "./frame"
import { askLowerCoordinator } from "./handover"
import { NodeState, oldNews, sendHeartbeat } from "./node-state"
import { epochAfter } from "./portable"

export function onHeartbeatTimer(node: NodeState, out: Action[]) {
    // Only while it holds the role: an ex-coordinator that is electing (and still names
    // itself) must not keep others believing in it.
    if (node.role !== Role.Coordinator) return
    if (node.timing.heartbeatInterval <= 0) return
    sendHeartbeat(node, out)
    setTimer(TIMER_HEARTBEAT, node.timing.heartbeatInterval, out)
}

export function onWatchTimer(node: NodeState, now: number, out: Action[]) {
    if (node.role !== Role.Follower) return
    if (node.coordinator === NO_NODE) return
    let remaining = node.suspicionDelay() - (now - node.lastHeardFromCoordinator)
    if (node.claimedUntil - now > remaining) remaining = node.claimedUntil - now
    // A re-armed timer must move the clock: with floating-point time a tiny remainder
    // would not (now + remaining === now), and the watch would fire for ever.
    if (remaining <= 0 || now + remaining <= now) node.onSuspect(now, out)
    else setTimer(TIMER_WATCH, remaining, out)
}

export function onContestTimer(node: NodeState, now: number, out: Action[]) {
    if (node.role !== Role.Follower) return
    if (node.coordinator === NO_NODE) return
    const theirs = node.coordinatorRank >= 0 ? node.coordinatorRank : node.coordinator
    if (theirs < node.rank()) node.contest(now, out)
}

/** Follow the sender of a heartbeat that outranks whom we followed. */
function followHigher(node: NodeState, frame: Frame, now: number, out: Action[]) {
    if (epochAfter(frame.epoch, node.epoch)) node.epoch = frame.epoch
    node.follow(frame.src, now, out)
    node.coordinatorRank = frame.bid
    node.leadHeardAt = now
}

/**
 * A heartbeat from a process other than our coordinator: two processes believe they
 * lead (boards that booted apart, a partition that healed). The higher rank must win:
 * follow a sender that outranks both us and our coordinator; contest a sender we
 * outrank when nobody above us leads.
 */
export function onHeartbeat(node: NodeState, frame: Frame, now: number, out: Action[]) {
    const senderRank = frame.bid
    const mine = node.rank()
    // our coordinator leads (heard while we elect too: sitsAbove), whatever suspected it
    if (frame.src === node.coordinator) {
        node.leadHeardAt = now
        node.coordinatorSuspected = false
    }
    if (askLowerCoordinator(node, frame, out)) return
    if (node.role === Role.Electing) {
        // A live coordinator that outranks us (the one we followed before, or another):
        // whatever our election was for is settled. Drop it and follow (our extension:
        // an election stuck on a lost message ends at the next heartbeat, not at the deadline).
        if (senderRank > mine) {
            if (!node.carriesOthersElection(senderRank)) {
                node.forgetElection(now, out)
                followHigher(node, frame, now, out)
                node.rejoined(now, out)
            }
        } else if (senderRank < mine) node.lowerLeadsWhileElecting(frame, now, out)
        return
    }
    if (frame.src === node.coordinator) {
        // Heartbeats are not fenced by epoch: a heartbeat tells who is alive and its
        // rank, and the rank decides (a recovered process's epoch may lag behind).
        node.lastHeardFromCoordinator = now
        node.coordinatorRank = senderRank
        node.detector.heartbeat(now, frame.seq)
        // a learning detector's delay just changed: watch from this arrival
        if (node.detector.learns()) {
            if (node.role === Role.Follower) setTimer(TIMER_WATCH, node.suspicionDelay(), out)
        }
        // We outrank the coordinator we follow: contest it, in every algorithm.
        if (node.role === Role.Follower) {
            if (senderRank < mine) node.contest(now, out)
        }
        return
    }
    // our coordinator's rank: ours if we lead; as its heartbeats told it; its id until one arrived
    const leading = node.coordinator === node.id
    const theirs = leading ? mine : node.coordinatorRank >= 0 ? node.coordinatorRank : node.coordinator
    if (senderRank > mine && (node.coordinator === NO_NODE || senderRank > theirs)) {
        followHigher(node, frame, now, out)
        cancelTimer(TIMER_CONTEST, out)
        node.rejoined(now, out)
    } else if (senderRank < mine && leading) {
        // Reassert at once with a heartbeat of our own: the sender follows a higher rank.
        // No election: one could not reach a process the graph hides from us, and would
        // start again at every heartbeat.
        sendHeartbeat(node, out)
    } else if (senderRank < mine && (node.coordinator === NO_NODE || theirs < mine)) {
        // Nobody above us leads: contest the lower sender. A follower of a coordinator
        // that outranks the sender leaves it to that coordinator's heartbeats.
        if (epochAfter(frame.epoch, node.epoch)) node.epoch = frame.epoch
        node.contest(now, out)
    }
}

/**
 * (our extension) A frame telling that our coordinator is gone (an ELECTION, a result naming
 * a process below it) while it sits above `rank` (sitsAbove) is a hint, not a verdict: the
 * frame may be seconds old. Check again after T on `timer` (onSittingCheck): a follower
 * whose coordinator has been silent for longer than 1.5 heartbeat periods by then suspects
 * it. True when the check is armed: the caller does not act on the frame.
 */
export function checkSitting(node: NodeState, rank: number, timer: number, out: Action[]): boolean {
    if (!oldNews(node, rank)) return false
    setTimer(timer, node.timing.answerTimeout, out)
    return true
}

/** T after the hint: a follower whose coordinator no longer sits suspects it. */
export function onSittingCheck(node: NodeState, now: number, out: Action[]) {
    if (node.role === Role.Follower) if (!oldNews(node, -1)) node.onSuspect(now, out)
}
