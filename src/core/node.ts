// The state machine every algorithm implements: the entry points a driver calls and the
// role bookkeeping, around the node's parts (node-state.ts: state and helpers;
// frame-filter.ts: the frames it ignores; liveness.ts: heartbeats, the watch and the
// contest rule; deadline.ts; handover.ts). The types and constants a driver and an
// algorithm share (roles, actions, timer ids, timing, configuration) are in contract.ts.
//
// A driver (simulator, firmware, host node) calls the entry points with the current
// time and carries out the actions appended to `out`. Nothing here reads a clock,
// draws a random number or touches a transport.

import { armDeadline, onDeadline, waitsForLeader } from "./deadline"
import { Frame, Kind } from "./frame"
import { admits, ignore } from "./frame-filter"
import { awaitFirstHeartbeats, claimFirst, finishClaim, onHandover, onResign } from "./handover"
import { onContestTimer, onHeartbeat, onHeartbeatTimer, onWatchTimer } from "./liveness"
import { isMember, NodeState, sendHeartbeat } from "./node-state"
import { epochAfter, nextEpoch } from "./portable"
import {
    Action,
    ActionType,
    cancelTimer,
    Ignored,
    MAX_TIMERS,
    NO_NODE,
    Role,
    setTimer,
    TIMER_CONTEST,
    TIMER_DEADLINE,
    TIMER_HANDOVER,
    TIMER_HEARTBEAT,
    TIMER_OTHER_ALGORITHM,
    TIMER_WATCH,
} from "./contract"

export abstract class ElectionNode extends NodeState {
    // ---- entry points, called by drivers ----

    /** Initial state of the seeds: everybody knows the highest process is coordinator. */
    start(now: number, out: Action[]) {
        this.begin(now, false, out)
    }

    /**
     * A board powering on: the seeds' initial state, except that the highest process, with
     * heartbeats on, claims the role through a handover (a coordinator elected while it was
     * off may sit) instead of assuming it.
     */
    powerOn(now: number, out: Action[]) {
        this.begin(now, true, out)
    }

    private begin(now: number, joining: boolean, out: Action[]) {
        this.clock = now
        this.crashed = false
        this.claiming = false
        this.resetAlgorithm()
        this.epoch = 0
        const top = this.ids[this.ids.length - 1]
        if (top !== this.id) {
            this.follow(top, now, out)
            // After a power-on its first heartbeats may wait for its freshness proof (with a
            // key: 0.5-0.7 s in the lab, more on a loaded bus): suspecting it after the plain
            // failure timeout made a restarted board lead for a moment.
            if (joining) awaitFirstHeartbeats(this, now, out)
            return
        }
        if (joining) {
            if (this.timing.heartbeatInterval > 0) {
                this.freshMemory = true
                this.poweredOn = true
                this.takeCoordinatorRole(out)
                return
            }
        }
        this.setRole(Role.Coordinator, this.id, out)
        if (this.timing.heartbeatInterval > 0)
            setTimer(TIMER_HEARTBEAT, this.timing.heartbeatInterval, out)
    }

    /** A decoded frame arrived. Returns true when the node acted on it. */
    receive(frame: Frame, now: number, out: Action[]): boolean {
        if (this.crashed) return false
        this.clock = now
        if (!admits(this, frame, out)) return false
        this.heardFrom(frame.src)
        if (frame.kind === Kind.HEARTBEAT) {
            onHeartbeat(this, frame, now, out)
            return true
        }
        if (frame.src === this.coordinator) this.lastHeardFromCoordinator = now
        this.epochBeforeFrame = this.epoch
        if (epochAfter(frame.epoch, this.epoch)) this.epoch = frame.epoch
        if (frame.kind === Kind.HANDOVER) {
            if (onHandover(this, frame, now, out)) return true
            return ignore(this, Ignored.Unexpected)
        }
        if (frame.kind === Kind.RESIGN) {
            if (onResign(this, frame, out)) return true
            return ignore(this, Ignored.Unexpected)
        }
        const handled = this.onFrame(frame, now, out)
        if (!handled) ignore(this, Ignored.Unexpected)
        return handled
    }

    timer(timer: number, now: number, out: Action[]) {
        if (this.crashed) return
        this.clock = now
        if (timer === TIMER_HANDOVER) finishClaim(this, out)
        else if (timer === TIMER_HEARTBEAT) onHeartbeatTimer(this, out)
        else if (timer === TIMER_WATCH) onWatchTimer(this, now, out)
        else if (timer === TIMER_DEADLINE) onDeadline(this, now, out)
        else if (timer === TIMER_CONTEST) onContestTimer(this, now, out)
        else if (timer === TIMER_OTHER_ALGORITHM) {
            // no frame of another algorithm for a while: timers afresh, and back in the election
            if (!this.otherAlgorithm) return
            for (let t = 0; t < MAX_TIMERS; t++) cancelTimer(t, out)
            this.rejoin(now, out)
        } else this.onTimer(timer, now, out)
    }

    /** This process notices that the coordinator does not answer. */
    suspect(now: number, out: Action[]) {
        if (this.crashed) return
        if (this.coordinator === this.id) return
        this.clock = now
        this.coordinatorSuspected = true
        this.onSuspect(now, out)
    }

    /**
     * The transport reports that process `id` dropped off (an MQTT broker's last will):
     * news of a failure that no timeout had to wait for.
     */
    peerLeft(id: number, now: number, out: Action[]) {
        if (this.crashed) return
        if (id === this.id) return
        this.clock = now
        if (id === this.coordinator) this.coordinatorSuspected = true
        // the coordinator our claim waits for has gone: nobody is left to resign
        if (this.claiming) {
            if (id === this.claimNamed) finishClaim(this, out)
        }
        this.onPeerLeft(id, now, out)
        if (id === this.coordinator) {
            if (this.role === Role.Follower) this.onSuspect(now, out)
        }
    }

    crash(now: number, out: Action[]) {
        if (this.crashed) return
        this.crashed = true
        this.resetAlgorithm()
        for (let t = 0; t < MAX_TIMERS; t++) cancelTimer(t, out)
        this.setRole(Role.Crashed, NO_NODE, out)
    }

    /**
     * Back from a crash with a blank memory of the cluster: no coordinator, no rank, no
     * election, a fresh failure detector. Two things survive, as if kept in stable storage:
     * the epoch (a recovered process must not accept what it had already fenced off, nor
     * announce in an epoch it had already passed) and `misconfigured` (a crash does not
     * cure a wrong configuration; frames of another algorithm heard are memory, not
     * configuration, and are forgotten).
     */
    recover(now: number, out: Action[]) {
        if (!this.crashed) return
        this.crashed = false
        this.rejoin(now, out)
    }

    /** Back in the election with a blank memory of the cluster: after a crash, or once frames of another algorithm stopped. */
    rejoin(now: number, out: Action[]) {
        if (this.otherAlgorithm) {
            this.otherAlgorithm = false
            this.misconfigured = false
        }
        this.clock = now
        this.coordinator = NO_NODE
        this.coordinatorRank = -1
        this.coordinatorSuspected = false
        this.restarts = 0
        this.freshMemory = true
        this.detector.clear()
        this.resetAlgorithm()
        this.onRecover(now, out)
    }

    // ---- role bookkeeping ----

    setRole(role: Role, coordinator: number, out: Action[]) {
        if (this.misconfigured) role = Role.Misconfigured
        if (role === this.role) {
            if (coordinator === this.coordinator) return
        }
        if (coordinator !== this.coordinator) {
            this.coordinatorRank = -1
            // heard leading only by its own heartbeats (active-list-ring follows a result nobody announced)
            this.leadHeardAt = -1e9
            this.coordinatorSuspected = false
            if (coordinator !== this.id) {
                this.claiming = false
                this.poweredOn = false
            }
            if (coordinator !== NO_NODE) {
                if (coordinator !== this.id) this.freshMemory = false
            }
        }
        const wasWaiting = waitsForLeader(this)
        if (coordinator !== NO_NODE) {
            if (role === Role.Follower || role === Role.Coordinator) this.restarts = 0
        }
        this.role = role
        this.coordinator = coordinator
        out.push({
            type: ActionType.RoleChange,
            role: role,
            coordinator: coordinator,
            epoch: this.epoch,
        })
        // Electing, or following nobody, always has a way out; a crash cancels every timer itself.
        const waiting = waitsForLeader(this)
        if (waiting) {
            if (!wasWaiting) armDeadline(this, out)
        } else if (wasWaiting) {
            if (role !== Role.Crashed) cancelTimer(TIMER_DEADLINE, out)
        }
    }

    /** Take the coordinator role in a new epoch and start heartbeats. */
    takeCoordinatorRole(out: Action[]) {
        this.epoch = nextEpoch(this.epoch)
        this.assumeCoordinatorRole(out)
    }

    /** Take the coordinator role in the current epoch (set by the election) and start heartbeats. */
    assumeCoordinatorRole(out: Action[]) {
        const already = this.role === Role.Coordinator
        if (!already) {
            if (claimFirst(this, out)) return
        }
        this.setRole(Role.Coordinator, this.id, out)
        cancelTimer(TIMER_WATCH, out)
        if (this.timing.heartbeatInterval > 0) {
            // A new coordinator says so at once: processes that already follow it (a ring
            // result reaches them before it reaches the winner) must not wait a period.
            // One that already leads keeps its cadence: a timer restarted at each new epoch
            // left a gap past 1.5 periods, and followers holding a hint suspected it.
            if (!already) {
                if (this.role === Role.Coordinator) sendHeartbeat(this, out)
                setTimer(TIMER_HEARTBEAT, this.timing.heartbeatInterval, out)
            }
        }
    }

    /** Accept `coordinator` and watch it for silence. A non-member is never followed. */
    follow(coordinator: number, now: number, out: Action[]) {
        if (!isMember(this, coordinator)) return
        if (coordinator === this.id) return
        this.claimedUntil = 0
        this.detector.watch(coordinator)
        this.setRole(Role.Follower, coordinator, out)
        this.lastHeardFromCoordinator = now
        if (this.timing.heartbeatInterval > 0) {
            cancelTimer(TIMER_HEARTBEAT, out)
            setTimer(TIMER_WATCH, this.suspicionDelay(), out)
        }
        // Where rank is the id, a lower coordinator is known at once: contest it (after T,
        // so that frames in flight land first). Bid-ring learns ranks from bids instead.
        if (this.ranksById() && coordinator < this.id)
            setTimer(TIMER_CONTEST, this.timing.answerTimeout, out)
        else cancelTimer(TIMER_CONTEST, out)
    }

    /** The coordinator's rank is known (a bid-ring result): contest it if we outrank it. */
    noteCoordinatorRank(rank: number, out: Action[]) {
        this.coordinatorRank = rank
        if (this.role === Role.Follower) {
            if (rank < this.rank()) setTimer(TIMER_CONTEST, this.timing.answerTimeout, out)
        }
    }

    enterElection(out: Action[]) {
        this.setRole(Role.Electing, this.coordinator, out)
    }

    /** A sign that the lab is misconfigured (a duplicate id, a driver's problem): stop taking part, for good. */
    misconfigure(out: Action[]) {
        this.otherAlgorithm = false
        if (this.misconfigured) return
        this.misconfigured = true
        this.setRole(Role.Misconfigured, this.coordinator, out)
    }
}
