// The state-machine interface every algorithm implements, and the parts they share:
// role and coordinator bookkeeping, frame filtering, and the heartbeats and watch timer
// around a failure detector (failure-detector.ts: fixed or adaptive). The types and
// constants a driver and an algorithm share (roles, actions, timer ids, timing,
// configuration) are in contract.ts.
//
// A driver (simulator, firmware, host node) calls the entry points with the current
// time and carries out the actions appended to `out`. Nothing here reads a clock,
// draws a random number or touches a transport.

import { FailureDetector, makeFailureDetector } from "./failure-detector"
import { Algorithm, BROADCAST, Frame, Kind, makeFrame, MAX_SEQ } from "./frame"
import { bullyElectionBound } from "./bounds"
import { epochAfter, Jitter, nextEpoch } from "./portable"
import {
    Action,
    ActionType,
    Ignored,
    indexOfSorted,
    MAX_TIMERS,
    NO_NODE,
    NodeConfig,
    Role,
    sortedIds,
    TIMER_ALGORITHM,
    TIMER_CONTEST,
    TIMER_DEADLINE,
    TIMER_HANDOVER,
    TIMER_HEARTBEAT,
    TIMER_WATCH,
    Timing,
} from "./contract"

export abstract class ElectionNode {
    readonly id: number
    /** All ids, ascending. */
    readonly ids: number[]
    /** Position of `id` in `ids`. */
    readonly index: number
    /** All ids in ring order, as configured. */
    readonly ringOrder: number[]
    readonly group: number
    readonly timing: Timing
    readonly algorithm: Algorithm

    coordinator: number = NO_NODE
    epoch = 0
    role: Role = Role.Follower
    crashed = false
    /** Frames ignored, by reason (see Ignored). */
    ignored: number[] = [0, 0, 0, 0, 0, 0]
    /** Set when the node saw a sign that the lab is misconfigured (e.g. another node with its id). */
    misconfigured = false

    private lastHeardFromCoordinator = 0
    /** Rank of the coordinator as its heartbeats (or a bid-ring result) carry it; -1 until known. */
    private coordinatorRank = -1
    /** This process's epoch before the frame being handled raised it. */
    private epochBeforeFrame = 0
    /** Elections restarted in a row by the deadline: the backoff grows with it, bounded. */
    private restarts = 0
    private readonly jitter: Jitter
    /** Decides how long the coordinator may be silent: the fixed timeout, or learned from its heartbeats. */
    private readonly detector: FailureDetector
    /** Number of the last heartbeat sent: followers tell a late heartbeat from a lost one. */
    private heartbeatSeq = 0
    /** Time of the event being handled (the entry points' `now`), for rules that need it deeper down. */
    private clock = 0
    /** Handover (our extension): waiting for the sitting coordinator's RESIGN before taking the role. */
    private claiming = false
    /** Started or recovered and has known no coordinator since: one may sit unknown to it. */
    private freshMemory = false
    /** Powered on and claiming: others may not hear it yet (bus roles still binding), so it waits a failure timeout too. */
    private poweredOn = false
    /** The claim already went by name to a lower coordinator heard meanwhile. */
    private claimAsked = false
    /** RESIGN received from ids[i] during this claim; a claim to all leads once everybody answered. */
    private resigned: boolean[] = []
    /** The process the claim names as sitting (its RESIGN is enough), or NO_NODE: the claim went to all. */
    private claimNamed = NO_NODE
    /** The failure detector (or a last will, or a scenario's detect) said our coordinator is down. */
    private coordinatorSuspected = false
    /** Our coordinator claims the role (HANDOVER) and may stay silent until then, waiting for answers. */
    private claimedUntil = 0

    constructor(algorithm: Algorithm, config: NodeConfig) {
        this.algorithm = algorithm
        this.id = config.id
        this.ids = sortedIds(config.ids)
        this.ringOrder = config.ids.slice(0)
        this.index = indexOfSorted(this.ids, config.id)
        this.group = config.group
        this.timing = config.timing
        this.jitter = new Jitter(config.seed !== undefined ? config.seed : config.id)
        const t = config.timing
        this.detector = makeFailureDetector(t.failureDetector ? t.failureDetector : "fixed", t.heartbeatInterval, t.failureTimeout)
    }

    /**
     * Fencing (our extension): a COORDINATOR from an epoch older than this process had
     * reached before the frame came is stale (delayed, duplicated, or from the far side
     * of a partition) and is refused, unless its sender outranks the coordinator we have:
     * a recovered process's epoch may lag behind, and the seeds let the highest take over.
     */
    protected isStaleCoordinator(frame: Frame): boolean {
        if (!epochAfter(this.epochBeforeFrame, frame.epoch)) return false
        const current = this.coordinator === NO_NODE ? -1 : this.coordinator
        return frame.src <= current || frame.src <= this.id
    }

    /** A whole number in [0, bound), from the driver's seed. */
    protected draw(bound: number): number {
        return this.jitter.below(bound)
    }

    /** True when `id` is one of the cluster's processes: ids taken from payloads are checked. */
    isMember(id: number): boolean {
        return indexOfSorted(this.ids, id) >= 0
    }

    /** True when every id in `list` is a member. */
    allMembers(list: number[]): boolean {
        for (let i = 0; i < list.length; i++) if (indexOfSorted(this.ids, list[i]) < 0) return false
        return true
    }

    /**
     * How long an election may last before the deadline restarts it: longer than this
     * algorithm's fault-free election, so that it never fires in the seeds' examples.
     */
    electionBound(): number {
        return bullyElectionBound(this.timing)
    }

    /** How this process ranks as a candidate: the higher wins. Process number unless an algorithm bids. */
    rank(): number {
        return this.id
    }

    /** True when rank is the process number, so a coordinator's id tells its rank. */
    protected ranksById(): boolean {
        return true
    }

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
            return
        }
        if (joining && this.timing.heartbeatInterval > 0) {
            this.freshMemory = true
            this.poweredOn = true
            this.takeCoordinatorRole(out)
            return
        }
        this.setRole(Role.Coordinator, this.id, out)
        if (this.timing.heartbeatInterval > 0)
            this.setTimer(TIMER_HEARTBEAT, this.timing.heartbeatInterval, out)
    }

    /** True when a frame reaches this node: it is up, and the frame is for it and not its own. */
    hears(frame: Frame): boolean {
        return !this.crashed && frame.src !== this.id && (frame.dst === BROADCAST || frame.dst === this.id)
    }

    /** A decoded frame arrived. Returns true when the node acted on it. */
    receive(frame: Frame, now: number, out: Action[]): boolean {
        if (this.crashed) return false
        this.clock = now
        if (frame.group !== this.group) return this.ignore(Ignored.OtherGroup)
        if (frame.algorithm !== this.algorithm) {
            this.misconfigure(out)
            return this.ignore(Ignored.OtherAlgorithm)
        }
        if (frame.dst !== BROADCAST && frame.dst !== this.id) return this.ignore(Ignored.NotForMe)
        if (frame.src === this.id) {
            // Our own broadcast heard back (MQTT delivers a publish to its sender too) is not
            // news; a unicast to us from our own id we never sent: another process has our id.
            if (frame.dst === this.id) this.misconfigure(out)
            return this.ignore(Ignored.OwnId)
        }
        if (indexOfSorted(this.ids, frame.src) < 0) return this.ignore(Ignored.UnknownSender)
        this.heardFrom(frame.src)
        if (frame.kind === Kind.HEARTBEAT) {
            this.onHeartbeat(frame, now, out)
            return true
        }
        if (frame.src === this.coordinator) this.lastHeardFromCoordinator = now
        this.epochBeforeFrame = this.epoch
        if (epochAfter(frame.epoch, this.epoch)) this.epoch = frame.epoch
        if (frame.kind === Kind.HANDOVER) return this.onHandover(frame, now, out) || this.ignore(Ignored.Unexpected)
        if (frame.kind === Kind.RESIGN) return this.onResign(frame, out) || this.ignore(Ignored.Unexpected)
        const handled = this.onFrame(frame, now, out)
        if (!handled) this.ignore(Ignored.Unexpected)
        return handled
    }

    timer(timer: number, now: number, out: Action[]) {
        if (this.crashed) return
        this.clock = now
        if (timer === TIMER_HANDOVER) this.finishClaim(out)
        else if (timer === TIMER_HEARTBEAT) this.onHeartbeatTimer(now, out)
        else if (timer === TIMER_WATCH) this.onWatchTimer(now, out)
        else if (timer === TIMER_DEADLINE) this.onDeadline(now, out)
        else if (timer === TIMER_CONTEST) this.onContestTimer(now, out)
        else this.onTimer(timer, now, out)
    }

    /** This process notices that the coordinator does not answer. */
    suspect(now: number, out: Action[]) {
        if (this.crashed || this.coordinator === this.id) return
        this.clock = now
        this.coordinatorSuspected = true
        this.onSuspect(now, out)
    }

    /**
     * The transport reports that process `id` dropped off (an MQTT broker's last will):
     * news of a failure that no timeout had to wait for.
     */
    peerLeft(id: number, now: number, out: Action[]) {
        if (this.crashed || id === this.id) return
        this.clock = now
        if (id === this.coordinator) this.coordinatorSuspected = true
        // the coordinator our claim waits for has gone: nobody is left to resign
        if (this.claiming && id === this.claimNamed) this.finishClaim(out)
        this.onPeerLeft(id, now, out)
        if (id === this.coordinator && this.role === Role.Follower) this.onSuspect(now, out)
    }

    /** Any frame from `id` (a heartbeat too) shows it alive: algorithms with a view of who is up note it. */
    protected heardFrom(id: number) {}

    /**
     * This process just followed a coordinator it learnt of by heartbeat, not by an election:
     * it was cut off (a partition, a broker outage) or booted apart. Algorithms whose view of
     * who is up was built while it was cut off correct it here.
     */
    protected rejoined(now: number, out: Action[]) {}

    /** Algorithms with a view of who is alive note a departure here. */
    protected onPeerLeft(id: number, now: number, out: Action[]) {}

    crash(now: number, out: Action[]) {
        if (this.crashed) return
        this.crashed = true
        this.resetAlgorithm()
        for (let t = 0; t < MAX_TIMERS; t++) this.cancelTimer(t, out)
        this.setRole(Role.Crashed, NO_NODE, out)
    }

    /**
     * Back from a crash with a blank memory of the cluster: no coordinator, no rank, no
     * election, a fresh failure detector. Two things survive, as if kept in stable storage:
     * the epoch (a recovered process must not accept what it had already fenced off, nor
     * announce in an epoch it had already passed) and `misconfigured` (a crash does not
     * cure a wrong configuration).
     */
    recover(now: number, out: Action[]) {
        if (!this.crashed) return
        this.crashed = false
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

    // ---- what each algorithm defines ----

    protected abstract resetAlgorithm(): void
    protected abstract onSuspect(now: number, out: Action[]): void
    protected abstract onRecover(now: number, out: Action[]): void
    /** Returns false for a frame the algorithm does not expect (counted as ignored). */
    protected abstract onFrame(frame: Frame, now: number, out: Action[]): boolean
    protected abstract onTimer(timer: number, now: number, out: Action[]): void

    // ---- helpers for algorithms ----

    protected frame(kind: Kind, dst: number): Frame {
        return makeFrame(kind, this.algorithm, this.group, this.epoch, this.id, dst)
    }

    protected send(kind: Kind, to: number, out: Action[]): Frame {
        const f = this.frame(kind, to)
        out.push({ type: ActionType.Send, to: [to], frame: f })
        return f
    }

    /** One frame to several processes: one message each, one broadcast frame on a bus. */
    protected multicast(kind: Kind, to: number[], out: Action[]): Frame {
        if (to.length === 0) return null
        const f = this.frame(kind, to.length === 1 ? to[0] : BROADCAST)
        out.push({ type: ActionType.Send, to: to, frame: f })
        return f
    }

    protected setTimer(timer: number, delay: number, out: Action[]) {
        out.push({ type: ActionType.SetTimer, timer: timer, delay: delay })
    }

    protected cancelTimer(timer: number, out: Action[]) {
        out.push({ type: ActionType.CancelTimer, timer: timer })
    }

    protected setRole(role: Role, coordinator: number, out: Action[]) {
        if (this.misconfigured) role = Role.Misconfigured
        if (role === this.role && coordinator === this.coordinator) return
        if (coordinator !== this.coordinator) {
            this.coordinatorRank = -1
            this.coordinatorSuspected = false
            if (coordinator !== this.id) {
                this.claiming = false
                this.poweredOn = false
            }
            if (coordinator !== NO_NODE && coordinator !== this.id) this.freshMemory = false
        }
        const wasWaiting = this.waitsForLeader()
        if (coordinator !== NO_NODE && (role === Role.Follower || role === Role.Coordinator)) this.restarts = 0
        this.role = role
        this.coordinator = coordinator
        out.push({
            type: ActionType.RoleChange,
            role: role,
            coordinator: coordinator,
            epoch: this.epoch,
        })
        // Electing, or following nobody, always has a way out; a crash cancels every timer itself.
        const waiting = this.waitsForLeader()
        if (waiting && !wasWaiting) this.armDeadline(out)
        else if (!waiting && wasWaiting && role !== Role.Crashed) this.cancelTimer(TIMER_DEADLINE, out)
    }

    /** Ids above this one, ascending. */
    protected higherIds(): number[] {
        return this.ids.slice(this.index + 1)
    }

    /** Ids below this one, ascending. */
    protected lowerIds(): number[] {
        return this.ids.slice(0, this.index)
    }

    protected othersIds(): number[] {
        const all: number[] = []
        for (let i = 0; i < this.ids.length; i++) if (i !== this.index) all.push(this.ids[i])
        return all
    }

    /** Take the coordinator role in a new epoch and start heartbeats. */
    protected takeCoordinatorRole(out: Action[]) {
        this.epoch = nextEpoch(this.epoch)
        this.assumeCoordinatorRole(out)
    }

    /** Take the coordinator role in the current epoch (set by the election) and start heartbeats. */
    protected assumeCoordinatorRole(out: Action[]) {
        const already = this.role === Role.Coordinator
        if (!already && this.claimFirst(out)) return
        this.setRole(Role.Coordinator, this.id, out)
        this.cancelTimer(TIMER_WATCH, out)
        if (this.timing.heartbeatInterval > 0) {
            // A new coordinator says so at once: processes that already follow it (a ring
            // result reaches them before it reaches the winner) must not wait a period.
            if (!already && this.role === Role.Coordinator) this.sendHeartbeat(out)
            this.setTimer(TIMER_HEARTBEAT, this.timing.heartbeatInterval, out)
        }
    }

    /** Accept `coordinator` and watch it for silence. A non-member is never followed. */
    protected follow(coordinator: number, now: number, out: Action[]) {
        if (!this.isMember(coordinator) || coordinator === this.id) return
        this.claimedUntil = 0
        this.detector.watch(coordinator)
        this.setRole(Role.Follower, coordinator, out)
        this.lastHeardFromCoordinator = now
        if (this.timing.heartbeatInterval > 0) {
            this.cancelTimer(TIMER_HEARTBEAT, out)
            this.setTimer(TIMER_WATCH, this.suspicionDelay(), out)
        }
        // Where rank is the id, a lower coordinator is known at once: contest it (after T,
        // so that frames in flight land first). Bid-ring learns ranks from bids instead.
        if (this.ranksById() && coordinator < this.id)
            this.setTimer(TIMER_CONTEST, this.timing.answerTimeout, out)
        else this.cancelTimer(TIMER_CONTEST, out)
    }

    /** The coordinator's rank is known (a bid-ring result): contest it if we outrank it. */
    protected noteCoordinatorRank(rank: number, out: Action[]) {
        this.coordinatorRank = rank
        if (this.role === Role.Follower && rank < this.rank())
            this.setTimer(TIMER_CONTEST, this.timing.answerTimeout, out)
    }

    /** Silence from the coordinator after which it is suspected. */
    suspicionDelay(): number {
        return this.detector.delay()
    }

    protected enterElection(out: Action[]) {
        this.setRole(Role.Electing, this.coordinator, out)
    }

    // ---- failure detector ----

    private onHeartbeatTimer(now: number, out: Action[]) {
        // Only while it holds the role: an ex-coordinator that is electing (and still names
        // itself) must not keep others believing in it.
        if (this.role !== Role.Coordinator || this.timing.heartbeatInterval <= 0) return
        this.sendHeartbeat(out)
        this.setTimer(TIMER_HEARTBEAT, this.timing.heartbeatInterval, out)
    }

    private sendHeartbeat(out: Action[]) {
        const f = this.frame(Kind.HEARTBEAT, BROADCAST)
        // the sender's rank, so that conflicts are settled by rank (bids), not by id
        f.bid = this.rank()
        this.heartbeatSeq = this.heartbeatSeq < MAX_SEQ ? this.heartbeatSeq + 1 : 1
        f.seq = this.heartbeatSeq
        out.push({ type: ActionType.Send, to: this.othersIds(), frame: f })
    }

    private onWatchTimer(now: number, out: Action[]) {
        if (this.role !== Role.Follower || this.coordinator === NO_NODE) return
        let remaining = this.suspicionDelay() - (now - this.lastHeardFromCoordinator)
        if (this.claimedUntil - now > remaining) remaining = this.claimedUntil - now
        // A re-armed timer must move the clock: with floating-point time a tiny remainder
        // would not (now + remaining === now), and the watch would fire for ever.
        if (remaining <= 0 || now + remaining <= now) this.onSuspect(now, out)
        else this.setTimer(TIMER_WATCH, remaining, out)
    }

    private onContestTimer(now: number, out: Action[]) {
        if (this.role !== Role.Follower || this.coordinator === NO_NODE) return
        const theirs = this.coordinatorRank >= 0 ? this.coordinatorRank : this.coordinator
        if (theirs < this.rank()) this.contest(now, out)
    }

    /**
     * Our extension (no dead ends): an election that has not ended within its bound is
     * started afresh, its state forgotten; each restart in a row waits longer (1, 1.5, then
     * 2 bounds), plus a jitter of up to half a bound so that restarts do not stay in step.
     */
    private armDeadline(out: Action[]) {
        const bound = this.electionBound()
        const factor = this.restarts < 2 ? 1 + this.restarts / 2 : 2
        this.setTimer(TIMER_DEADLINE, bound * factor + this.jitter.below(Math.floor(bound / 2) + 1), out)
    }

    /** Forget the election under way: its state and its timers. */
    private abandonElection(now: number, out: Action[]) {
        this.forgetElection(now, out)
    }

    /**
     * True while this process is a link another process's election cannot do without, so a
     * higher coordinator's heartbeat must not make it leave (echo: a wave waits for it).
     */
    protected carriesOthersElection(): boolean {
        return false
    }

    /**
     * Drop this process's part in the election under way (its state and its timers).
     * Ring algorithms override it to keep passing on what they carry for others.
     */
    protected forgetElection(now: number, out: Action[]) {
        for (let t = TIMER_ALGORITHM; t < TIMER_CONTEST; t++) this.cancelTimer(t, out)
        this.resetAlgorithm()
    }

    /** Electing, or a follower that knows no coordinator (a recovered process asking round). */
    private waitsForLeader(): boolean {
        return this.role === Role.Electing || (this.role === Role.Follower && this.coordinator === NO_NODE)
    }

    private onDeadline(now: number, out: Action[]) {
        if (!this.waitsForLeader()) return
        this.restarts++
        this.abandonElection(now, out)
        this.onSuspect(now, out)
        if (this.waitsForLeader()) this.armDeadline(out)
    }

    /**
     * A heartbeat from a process other than our coordinator: two processes believe they
     * lead (boards that booted apart, a partition that healed). The higher rank must win:
     * follow a sender that outranks both us and our coordinator; contest a sender we
     * outrank when nobody above us leads.
     */
    private onHeartbeat(frame: Frame, now: number, out: Action[]) {
        const senderRank = frame.bid
        const mine = this.rank()
        if (this.claiming && senderRank < mine && !this.claimAsked) {
            // a lower coordinator sits that our broadcast claim may have missed: ask it by
            // name, and give its RESIGN time T from now (once per claim: the wait stays bounded)
            this.claimAsked = true
            this.claimNamed = frame.src
            this.sendHandover(frame.src, frame.src, out)
            this.setTimer(TIMER_HANDOVER, this.timing.answerTimeout, out)
            return
        }
        if (this.role === Role.Electing) {
            // A live coordinator that outranks us (the one we followed before, or another):
            // whatever our election was for is settled. Drop it and follow (our extension:
            // an election stuck on a lost message ends at the next heartbeat, not at the deadline).
            if (senderRank > mine && !this.carriesOthersElection()) {
                this.abandonElection(now, out)
                if (epochAfter(frame.epoch, this.epoch)) this.epoch = frame.epoch
                this.follow(frame.src, now, out)
                this.coordinatorRank = senderRank
                this.rejoined(now, out)
            } else if (senderRank < mine) this.lowerLeadsWhileElecting(now, out)
            return
        }
        if (frame.src === this.coordinator) {
            // Heartbeats are not fenced by epoch: a heartbeat tells who is alive and its
            // rank, and the rank decides (a recovered process's epoch may lag behind).
            this.lastHeardFromCoordinator = now
            this.coordinatorRank = senderRank
            this.detector.heartbeat(now, frame.seq)
            // a learning detector's delay just changed: watch from this arrival
            if (this.detector.learns() && this.role === Role.Follower) this.setTimer(TIMER_WATCH, this.suspicionDelay(), out)
            // We outrank the coordinator we follow: contest it, in every algorithm.
            if (this.role === Role.Follower && senderRank < mine) this.contest(now, out)
            return
        }
        // our coordinator's rank: ours if we lead; as its heartbeats told it; its id until one arrived
        const leading = this.coordinator === this.id
        const theirs = leading ? mine : this.coordinatorRank >= 0 ? this.coordinatorRank : this.coordinator
        if (senderRank > mine && (this.coordinator === NO_NODE || senderRank > theirs)) {
            if (epochAfter(frame.epoch, this.epoch)) this.epoch = frame.epoch
            this.follow(frame.src, now, out)
            this.coordinatorRank = senderRank
            this.cancelTimer(TIMER_CONTEST, out)
            this.rejoined(now, out)
        } else if (senderRank < mine && leading) {
            // Reassert at once with a heartbeat of our own: the sender follows a higher rank.
            // No election: one could not reach a process the graph hides from us, and would
            // start again at every heartbeat.
            this.sendHeartbeat(out)
        } else if (senderRank < mine && (this.coordinator === NO_NODE || theirs < mine)) {
            // Nobody above us leads: contest the lower sender. A follower of a coordinator
            // that outranks the sender leaves it to that coordinator's heartbeats.
            if (epochAfter(frame.epoch, this.epoch)) this.epoch = frame.epoch
            this.contest(now, out)
        }
    }

    /** A lower-ranked coordinator heartbeats while this process elects: by default its own election goes on. */
    protected lowerLeadsWhileElecting(now: number, out: Action[]) {}

    /**
     * A live lower process acts as coordinator while this one is alive: by default, hold
     * an election (which this process, outranking it, wins).
     */
    protected contest(now: number, out: Action[]) {
        this.onSuspect(now, out)
    }

    // ---- handover (our extension: zero overlap when a higher process takes over) ----

    /**
     * With heartbeats on, a process about to lead while a live coordinator sits (heard within
     * 1.5 heartbeat periods and not suspected), or may sit (it started or recovered and knows
     * no coordinator yet), first asks it to step down: HANDOVER to it (to each of the others
     * when unknown), then waits for its RESIGN (for everybody's when unknown), or T. Meanwhile it is
     * electing, naming itself. True when the claim started (or is under way).
     */
    private claimFirst(out: Action[]): boolean {
        if (this.timing.heartbeatInterval <= 0 || this.misconfigured) return false
        if (this.claiming) return true
        const sitting =
            this.coordinator !== NO_NODE &&
            this.coordinator !== this.id &&
            !this.coordinatorSuspected &&
            this.clock - this.lastHeardFromCoordinator <= 1.5 * this.timing.heartbeatInterval
        if (!sitting && !this.freshMemory) return false
        // a sitting coordinator that outranks us (an election that took it for crashed made us
        // win) answers with a heartbeat, which may queue behind other traffic for longer than T
        // (and the next periodic one comes within a period)
        const outranked = sitting && (this.coordinatorRank >= 0 ? this.coordinatorRank : this.coordinator) > this.rank()
        const target = sitting ? this.coordinator : NO_NODE
        this.setRole(Role.Electing, this.id, out)
        this.claiming = true
        this.claimAsked = false
        this.claimNamed = sitting ? target : NO_NODE
        this.resigned = []
        for (let i = 0; i < this.ids.length; i++) this.resigned.push(false)
        // One by name to each when unknown, not a broadcast: a board that just powered on is
        // bound to its peers (it waited for them) before they are bound to it, so they would
        // miss its broadcast. Highest first: the likeliest to sit hears it first when the
        // sends queue on a slow link. `initiator` names who we think sits (BROADCAST: whoever holds it).
        if (sitting) this.sendHandover(target, target, out)
        else for (let i = this.ids.length - 1; i >= 0; i--) if (i !== this.index) this.sendHandover(this.ids[i], BROADCAST, out)
        // After a power-on a sitting coordinator may not hear us, or we it, for a while (bus
        // roles bind late; with a key, the first frame waits for a freshness proof: 0.5-0.7 s
        // in the lab): give it as long as a follower gives a coordinator, the failure timeout.
        // An outranking one is heard within a heartbeat period: wait no longer, since whoever
        // followed our COORDINATOR meanwhile suspects us after a failure timeout.
        const t = this.timing
        const wait = (this.poweredOn ? t.failureTimeout : outranked ? t.heartbeatInterval : 0) + t.answerTimeout
        this.setTimer(TIMER_HANDOVER, wait, out)
        return true
    }

    private sendHandover(to: number, sitting: number, out: Action[]) {
        const f = this.frame(Kind.HANDOVER, to)
        f.bid = this.rank()
        f.initiator = sitting
        out.push({ type: ActionType.Send, to: [to], frame: f })
    }

    /** The sitting coordinator resigned, or nobody answered within T: take the role now. */
    private finishClaim(out: Action[]) {
        if (!this.claiming) return
        this.claiming = false
        this.freshMemory = false
        this.poweredOn = false
        this.cancelTimer(TIMER_HANDOVER, out)
        // someone else won meanwhile (setRole also clears `claiming` then)
        if (this.coordinator !== this.id || this.role !== Role.Electing) return
        this.assumeCoordinatorRole(out)
    }

    /**
     * A higher-ranked process claims the role: a coordinator (or a lower claimer) steps down,
     * following it, and answers RESIGN; so does the process the claim names as sitting (it
     * no longer holds the role), and everybody when the claim went to all. A lower
     * claimer is told by our heartbeat that we lead.
     */
    private onHandover(frame: Frame, now: number, out: Action[]): boolean {
        const held = this.role === Role.Coordinator
        if (frame.bid <= this.rank()) {
            if (held && this.timing.heartbeatInterval > 0) this.sendHeartbeat(out)
            return held
        }
        // a coordinator, or a process claiming the role itself, gives way to the higher claim
        const gives = held || this.claiming
        if (gives) {
            this.follow(frame.src, now, out)
            this.coordinatorRank = frame.bid
            // as when following a higher coordinator by its heartbeat: a view of who is up
            // built while leading (everybody above us down) is corrected, or the next
            // failover would find us leading at once beside a higher process
            this.rejoined(now, out)
        }
        // a follower waits for the claimer, and so does a coordinator that just gave way: the
        // claimer's first heartbeats may queue behind its claim to the others
        this.awaitClaimer(now, out)
        // a claim to all is answered by all (the claimer leads once everybody has); a claim
        // by name by the one it names, even if it no longer holds the role
        if (!gives && frame.initiator !== this.id && frame.initiator !== BROADCAST) return true
        // A coordinator resigns to all: its followers may hear the claim late (a new board's
        // first frame waits for its freshness proof) and would elect among themselves meanwhile.
        // It names the claimer, whom alone it lets lead.
        const resign = held ? this.multicast(Kind.RESIGN, this.othersIds(), out) : this.send(Kind.RESIGN, frame.src, out)
        resign.initiator = frame.src
        resign.bid = frame.bid
        return true
    }

    /**
     * A higher process claims the role: our coordinator is, or is about to resign to it, and
     * the claimer heartbeats only once the claim ends, up to the failure timeout and T from
     * now; wait that long and a period more. Suspecting sooner (12 boards, the claim's answers
     * late behind other traffic) started an election among the others while the claimer was
     * about to lead: two coordinators.
     */
    private awaitClaimer(now: number, out: Action[]) {
        if (this.role !== Role.Follower || this.timing.heartbeatInterval <= 0) return
        const t = this.timing
        this.claimedUntil = now + t.failureTimeout + t.answerTimeout + t.heartbeatInterval
        this.setTimer(TIMER_WATCH, this.claimedUntil - now, out)
    }

    private onResign(frame: Frame, out: Action[]): boolean {
        if (!this.claiming || frame.initiator !== this.id) {
            // Our coordinator resigned to a claimer: follow the claimer. Should it never lead,
            // suspicion falls on it, not on the one that resigned: an improved-bully follower
            // asks below the claimer, where the resigned coordinator still lives.
            if (frame.src !== this.coordinator) return false
            this.follow(frame.initiator, this.clock, out)
            if (this.coordinator === frame.initiator && !this.ranksById()) this.noteCoordinatorRank(frame.bid, out)
            this.awaitClaimer(this.clock, out)
            return true
        }
        this.resigned[indexOfSorted(this.ids, frame.src)] = true
        let all = true
        for (let i = 0; i < this.ids.length; i++) if (i !== this.index && !this.resigned[i]) all = false
        // by name: the sitting one's answer is enough; to all: every other process answered
        if (frame.src === this.claimNamed || all) this.finishClaim(out)
        return true
    }

    private ignore(reason: Ignored): boolean {
        this.ignored[reason]++
        return false
    }

    /** A sign that the lab is misconfigured (another algorithm, a duplicate id): stop taking part. */
    misconfigure(out: Action[]) {
        if (this.misconfigured) return
        this.misconfigured = true
        this.setRole(Role.Misconfigured, this.coordinator, out)
    }
}
