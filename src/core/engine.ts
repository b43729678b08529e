// The deterministic discrete-event engine that drives a cluster of election nodes.
//
// It is pure like the rest of the core (virtual time, no randomness of its own: a
// network model decides delays and losses), so the very same engine runs the
// worked examples inside the DeviceScript VM and behind the Node simulator.
// Same inputs, same network model: same trace, event for event.
//
// Events due at the same time run in the order they were scheduled.

import { BROADCAST, copyFrame, Frame, Kind } from "./frame"
import {
    Action,
    ActionType,
    ClusterOptions,
    indexOfSorted,
    MAX_TIMERS,
    NO_NODE,
    Role,
    roleName,
    sortedIds,
} from "./contract"
import { Cluster } from "./descriptor"
import { ElectionNode } from "./node"
import { EventQueue } from "./event-queue"
import { StepBefore, stepBefore, stepProblems } from "./self-check"
import { TimerGenerations } from "./timer-generations"
import { Episode } from "./episode"
import { digestRecord, timerName, TraceRecord, TraceType } from "./trace"
import { TrafficCounts } from "./traffic"

/** Decides how frames travel. */
export interface NetworkModel {
    /** Delay before `frame` from `src` reaches `dst`; a negative value loses it. */
    delay(src: number, dst: number, frame: Frame, now: number): number
    /** Physical transmissions that carry one send to `to` (a broadcast medium needs one). */
    frames(to: number[], frame: Frame): number
}

/** Every message arrives exactly one time unit after it was sent; a multicast is one frame. */
export class IdealNetwork implements NetworkModel {
    delay(src: number, dst: number, frame: Frame, now: number): number {
        return 1
    }
    frames(to: number[], frame: Frame): number {
        return 1
    }
}

/** Fault hooks of a network model that the engine carries out (duplicate deliveries). */
export interface DuplicationModel {
    /** Delay of a second copy of `frame` from `src` to `dst`, or a negative value for none. */
    duplicateDelay(src: number, dst: number, frame: Frame, now: number): number
}

const EV_DELIVER = 1
/** One frame to several nodes with the same delay: one queue entry instead of many. */
const EV_DELIVER_MANY = 6
const EV_TIMER = 2
const EV_CRASH = 3
const EV_RECOVER = 4
const EV_DETECT = 5
const EV_FREEZE = 7
const EV_THAW = 8

/** Events allowed at one instant before the engine calls the clock stalled (a spin). */
export const DEFAULT_MAX_EVENTS_PER_INSTANT = 10000000

export interface EngineOptions extends ClusterOptions {
    network: NetworkModel
    /**
     * Deliver a frame addressed to all to every other process, whoever it was sent to, as
     * the firmware's bus and broker do with one frame for several; absent: only to those.
     */
    sharedMedium?: boolean
}

export class Engine {
    now = 0
    readonly ids: number[]
    readonly nodes: ElectionNode[] = []
    readonly network: NetworkModel
    /** The options the engine was built from. */
    readonly options: EngineOptions
    /** Called for every trace record; null keeps the engine fast. */
    tracer: (record: TraceRecord) => void = null
    /** Told every role change (cheaper than a tracer: no other record is made for it). */
    roleObserver: (node: number, role: number, coordinator: number, epoch: number) => void = null
    /** Digest of every trace record (trace.ts), to compare runs (Node against the VM). */
    digest = 0
    digesting = true

    /** Traffic since the last resetStats(). */
    readonly traffic = new TrafficCounts()
    /** Frames handed to a destination (live or crashed) since the engine was made. */
    delivered = 0
    /** Election messages sent and not yet handed to their destination (heartbeats apart), and the most at once. */
    inFlight = 0
    maxInFlight = 0
    /** Set to make the network deliver some frames twice; null: never. */
    duplication: DuplicationModel = null
    /** Most election messages a summary tolerates before it reports a storm; 0: no budget. */
    messageBudget = 0
    /** Most election messages in flight at once a summary tolerates; 0: no budget. */
    inFlightBudget = 0
    /** Events at one instant after which the clock counts as stalled (runUntil stops). */
    maxEventsPerInstant = DEFAULT_MAX_EVENTS_PER_INSTANT
    /** Empty while simulated time advances; else what stalled it. Once set, no event runs. */
    stalled = ""
    private instant = -1
    private eventsThisInstant = 0
    /** Per node: the time it thaws, or -1 when not frozen. */
    private frozenUntil: number[] = []
    /** What the episode decided and cost so far (summary.ts reads it). */
    readonly episode: Episode

    /** What the algorithm calls its own timers (the trace's names). */
    private timerLabels: string[]
    private queue = new EventQueue()
    private timers: TimerGenerations
    /** Which timer slots have a firing pending: a node electing with none is at a dead end. */
    private armed: boolean[] = []

    /** The cluster: one node per process of `options.ids`, by ascending id (createCluster in algorithms.ts). */
    constructor(options: EngineOptions, cluster: Cluster) {
        this.options = options
        this.ids = sortedIds(options.ids)
        this.network = options.network
        this.timerLabels = cluster.timerLabels
        const nodes = cluster.nodes
        for (let i = 0; i < this.ids.length; i++) {
            if (!nodes[i] || nodes[i].id !== this.ids[i]) throw new Error("no node for process " + this.ids[i])
            this.nodes.push(nodes[i])
            this.frozenUntil.push(-1)
        }
        this.episode = new Episode(this.ids.length)
        this.timers = new TimerGenerations(this.ids.length * MAX_TIMERS)
        for (let t = 0; t < this.ids.length * MAX_TIMERS; t++) this.armed.push(false)
        this.resetStats()
    }

    /** Position of `id` in the sorted ids, or -1. */
    indexOf(id: number): number {
        return indexOfSorted(this.ids, id)
    }

    node(id: number): ElectionNode {
        const i = this.indexOf(id)
        return i < 0 ? null : this.nodes[i]
    }

    /** Every node takes the seeds' initial state: the highest process is coordinator. */
    start() {
        for (let i = 0; i < this.nodes.length; i++) {
            const out = this.takeOut()
            const before = stepBefore(this.nodes[i])
            this.nodes[i].start(this.now, out)
            this.selfCheck(this.nodes[i], before, out, true)
            this.apply(i, out)
        }
        this.resetStats()
    }

    resetStats() {
        this.traffic.reset()
        this.episode.reset()
    }

    // ---- external events, now ----

    crash(id: number) {
        this.external(EV_CRASH, this.indexOf(id))
    }

    recover(id: number) {
        this.external(EV_RECOVER, this.indexOf(id))
    }

    detect(id: number) {
        this.external(EV_DETECT, this.indexOf(id))
    }

    // ---- external events, later ----

    scheduleCrash(time: number, id: number) {
        this.queue.push(time, EV_CRASH, this.indexOf(id), null, 0, 0, null)
    }

    scheduleRecover(time: number, id: number) {
        this.queue.push(time, EV_RECOVER, this.indexOf(id), null, 0, 0, null)
    }

    scheduleDetect(time: number, id: number) {
        this.queue.push(time, EV_DETECT, this.indexOf(id), null, 0, 0, null)
    }

    /** From `time` on, process `id` neither hears nor sends for `duration`; its timers fire when it thaws. */
    scheduleFreeze(time: number, id: number, duration: number) {
        this.queue.push(time, EV_FREEZE, this.indexOf(id), null, duration, 0, null)
    }

    freeze(id: number, duration: number) {
        const i = this.indexOf(id)
        if (i >= 0) this.runEvent(EV_FREEZE, i, null, duration, 0, null)
    }

    /** True while process `id` is frozen. */
    isFrozen(id: number): boolean {
        const i = this.indexOf(id)
        return i >= 0 && this.frozenUntil[i] > this.now
    }

    /** Runs one event. Returns false when nothing is pending or the clock stalled. */
    step(): boolean {
        this.dropCancelledTimers()
        if (this.queue.size === 0 || this.stalled !== "") return false
        const q = this.queue
        this.now = q.peekTime()
        if (this.now !== this.instant) {
            this.instant = this.now
            this.eventsThisInstant = 0
        }
        q.pop()
        if (++this.eventsThisInstant > this.maxEventsPerInstant) {
            this.stalled =
                this.eventsThisInstant - 1 + " events at t=" + this.now + " without the clock moving (next: " +
                this.describeEvent(q.type, q.node, q.arg) + ")"
            return false
        }
        this.runEvent(q.type, q.node, q.frame, q.arg, q.gen, q.targets)
        return true
    }

    /** Runs every event due at or before `time`, then sets the clock to `time`. */
    runUntil(time: number) {
        this.dropCancelledTimers()
        while (this.queue.size > 0 && this.queue.peekTime() <= time) {
            if (this.overBudget() || !this.step()) return
            this.dropCancelledTimers()
        }
        if (time > this.now) this.now = time
    }

    /** Runs until nothing is pending or `maxEvents` ran. Returns true when quiet. */
    settle(maxEvents: number): boolean {
        let budget = maxEvents
        this.dropCancelledTimers()
        while (this.queue.size > 0) {
            if (budget <= 0 || this.overBudget()) return false
            budget--
            if (!this.step()) return false
            this.dropCancelledTimers()
        }
        return true
    }

    /** A message storm past the budget stops the run (summarize() reports it). */
    overBudget(): boolean {
        return this.messageBudget > 0 && this.traffic.messages > this.messageBudget
    }

    /** Time of the next pending event, or -1 when none (the web view steps `run until=` with it). */
    nextEventTime(): number {
        this.dropCancelledTimers()
        return this.queue.peekTime()
    }

    /** Cancelled timers at the head of the queue must not move the clock. */
    private dropCancelledTimers() {
        while (this.queue.headIsStaleTimer(EV_TIMER, this.timers, MAX_TIMERS)) this.queue.pop()
    }

    private describeEvent(type: number, i: number, arg: number): string {
        if (type === EV_TIMER) return "timer '" + timerName(this.timerLabels, arg) + "' of " + this.nodes[i].id
        if (type === EV_DELIVER || type === EV_DELIVER_MANY) return "a delivery"
        return "event " + type
    }

    // ---- internals ----

    private out: Action[] = []

    /** The shared action list, emptied by apply() (assigning `length = 0` aborts the DeviceScript VM). */
    private takeOut(): Action[] {
        return this.out
    }

    private external(type: number, index: number) {
        if (index < 0) return
        this.runEvent(type, index, null, 0, 0, null)
    }

    private runEvent(
        type: number,
        i: number,
        frame: Frame,
        arg: number,
        gen: number,
        targets: number[]
    ) {
        if (type === EV_DELIVER_MANY) {
            for (let t = 0; t < targets.length; t++) this.deliver(targets[t], frame)
            return
        }
        if (type === EV_DELIVER) {
            this.deliver(i, frame)
            return
        }
        const node = this.nodes[i]
        const now = this.now
        if (type === EV_FREEZE) {
            if (node.crashed) return
            const until = now + arg
            if (until <= this.frozenUntil[i]) return
            this.frozenUntil[i] = until
            if (this.tracing()) this.emit({ type: TraceType.Freeze, time: now, node: node.id, duration: arg })
            this.queue.push(until, EV_THAW, i, null, 0, 0, null)
            return
        }
        if (type === EV_THAW) {
            if (node.crashed || this.frozenUntil[i] !== now) return
            this.frozenUntil[i] = -1
            if (this.tracing()) this.emit({ type: TraceType.Thaw, time: now, node: node.id })
            return
        }
        // a frozen process's timers and detections wait until it thaws, like a GC pause
        if ((type === EV_TIMER || type === EV_DETECT) && this.frozenUntil[i] > now && !node.crashed) {
            if (type === EV_TIMER && !this.timers.isCurrent(i * MAX_TIMERS + arg, gen)) return
            this.queue.push(this.frozenUntil[i], type, i, null, arg, gen, null)
            return
        }
        if (type === EV_TIMER) {
            if (!this.timers.isCurrent(i * MAX_TIMERS + arg, gen)) return
            this.timers.cancel(i * MAX_TIMERS + arg)
            this.armed[i * MAX_TIMERS + arg] = false
            if (node.crashed) return
            if (this.tracing()) this.emit({ type: TraceType.Timeout, time: now, node: node.id, timer: timerName(this.timerLabels, arg) })
        } else if (type === EV_CRASH) {
            if (node.crashed) return
            this.frozenUntil[i] = -1
            if (this.tracing()) this.emit({ type: TraceType.Crash, time: now, node: node.id })
        } else if (type === EV_RECOVER) {
            if (!node.crashed) return
            this.episode.begin(now)
            if (this.tracing()) this.emit({ type: TraceType.Recover, time: now, node: node.id })
        } else if (type === EV_DETECT) {
            if (node.crashed) return
            this.episode.begin(now)
            if (this.tracing()) this.emit({ type: TraceType.Detect, time: now, node: node.id })
        }
        this.invoke(i, type, arg, null)
    }

    /**
     * Hands one event to node `i` and carries out its actions. The one place a node's code
     * runs: an exception is recorded as a violation and its half-made actions dropped.
     */
    private invoke(i: number, type: number, arg: number, frame: Frame) {
        const node = this.nodes[i]
        const out = this.takeOut()
        const now = this.now
        const before = stepBefore(node)
        try {
            if (type === EV_DELIVER) node.receive(frame, now, out)
            else if (type === EV_TIMER) node.timer(arg, now, out)
            else if (type === EV_CRASH) node.crash(now, out)
            else if (type === EV_RECOVER) node.recover(now, out)
            else if (type === EV_DETECT) node.suspect(now, out)
        } catch (e) {
            this.episode.errors.push("node " + node.id + " threw at t=" + now + ": " + e)
            while (out.length > 0) out.pop()
            return
        }
        this.selfCheck(node, before, out, false)
        this.apply(i, out)
    }

    private deliver(i: number, frame: Frame) {
        const node = this.nodes[i]
        this.delivered++
        if (frame.kind !== Kind.HEARTBEAT) this.inFlight--
        if (node.crashed) {
            this.recordLink(TraceType.DroppedAtCrashed, frame.src, node.id, frame)
            return
        }
        if (this.frozenUntil[i] > this.now) {
            this.recordLink(TraceType.DroppedAtFrozen, frame.src, node.id, frame)
            return
        }
        this.invoke(i, EV_DELIVER, 0, frame)
    }

    /** The node's own invariants after a step (self-check.ts): each broken one is a violation. */
    private selfCheck(node: ElectionNode, before: StepBefore, out: Action[], fromStart: boolean) {
        const problems = stepProblems(node, before, out, fromStart)
        for (let p = 0; p < problems.length; p++) this.episode.errors.push(problems[p] + " at t=" + this.now)
    }

    /** Carries out the actions node `i` returned. */
    private apply(i: number, out: Action[]) {
        const node = this.nodes[i]
        const now = this.now
        for (let a = 0; a < out.length; a++) {
            const action = out[a]
            if (action.type === ActionType.Send) {
                this.transmit(node.id, action.to, action.frame)
            } else if (action.type === ActionType.SetTimer) {
                const gen = this.timers.arm(i * MAX_TIMERS + action.timer)
                this.armed[i * MAX_TIMERS + action.timer] = true
                this.queue.push(now + action.delay, EV_TIMER, i, null, action.timer, gen, null)
            } else if (action.type === ActionType.CancelTimer) {
                this.timers.cancel(i * MAX_TIMERS + action.timer)
                this.armed[i * MAX_TIMERS + action.timer] = false
            } else if (action.type === ActionType.RoleChange) {
                this.episode.roleChanged(i, node, action.role, action.coordinator, now)
                if (this.roleObserver) this.roleObserver(node.id, action.role, action.coordinator, action.epoch)
                if (this.tracing())
                    this.emit({
                        type: TraceType.RoleChange,
                        time: now,
                        node: node.id,
                        role: action.role,
                        coordinator: action.coordinator,
                        epoch: action.epoch,
                    })
            }
        }
        while (out.length > 0) out.pop()
        if (this.deadEnd(i)) this.episode.errors.push("node " + node.id + ": a dead end, " + roleName(node.role) + " with no timer armed at t=" + now)
    }

    /** Node `i` waits for something no timer of its own will end: electing, or following nobody. */
    private deadEnd(i: number): boolean {
        const node = this.nodes[i]
        if (node.crashed || !(node.role === Role.Electing || (node.role === Role.Follower && node.coordinator === NO_NODE))) return false
        for (let t = 0; t < MAX_TIMERS; t++) if (this.armed[i * MAX_TIMERS + t]) return false
        return true
    }

    private transmit(src: number, to: number[], sent: Frame) {
        const now = this.now
        // what went on the wire: the sender may change its frame afterwards (copyFrame)
        const frame = copyFrame(sent)
        this.traffic.countSend(frame, to.length, this.network.frames(to, frame))
        if (this.tracing()) this.emit({ type: TraceType.Send, time: now, node: src, to: to, frame: frame })
        if (this.options.sharedMedium) if (frame.dst === BROADCAST) to = this.ids.filter((id) => id !== src)
        // Destinations that share one delay go in one queue entry, in the order sent:
        // the same order individual entries would run in.
        let batch: number[] = null
        let batchDelay = -1
        for (let d = 0; d < to.length; d++) {
            const dst = to[d]
            const di = this.indexOf(dst)
            const delay = this.network.delay(src, dst, frame, now)
            if (di < 0 || delay < 0) {
                this.traffic.lost++
                this.recordLink(TraceType.Lost, src, dst, frame)
                continue
            }
            if (this.duplication) {
                const again = this.duplication.duplicateDelay(src, dst, frame, now)
                if (again >= 0) {
                    this.traffic.duplicated++
                    this.recordLink(TraceType.Duplicate, src, dst, frame)
                    this.queue.push(now + again, EV_DELIVER, di, frame, 0, 0, null)
                    this.countInFlight(frame, 1)
                }
            }
            if (batch && delay === batchDelay) {
                batch.push(di)
                continue
            }
            if (batch) this.enqueueDelivery(now + batchDelay, frame, batch)
            batch = [di]
            batchDelay = delay
        }
        if (batch) this.enqueueDelivery(now + batchDelay, frame, batch)
    }

    private countInFlight(frame: Frame, k: number) {
        if (frame.kind === Kind.HEARTBEAT) return
        this.inFlight += k
        if (this.inFlight > this.maxInFlight) this.maxInFlight = this.inFlight
    }

    private enqueueDelivery(time: number, frame: Frame, targets: number[]) {
        this.countInFlight(frame, targets.length)
        if (targets.length === 1) this.queue.push(time, EV_DELIVER, targets[0], frame, 0, 0, null)
        else this.queue.push(time, EV_DELIVER_MANY, -1, frame, 0, 0, targets)
    }

    /** True when somebody wants trace records: the digest or a tracer (else none is made). */
    private tracing(): boolean {
        return this.digesting || this.tracer !== null
    }

    private emit(record: TraceRecord) {
        if (this.digesting) this.digest = digestRecord(this.digest, record)
        if (this.tracer) this.tracer(record)
    }

    private recordLink(
        type: TraceType.Lost | TraceType.DroppedAtCrashed | TraceType.DroppedAtFrozen | TraceType.Duplicate,
        src: number,
        dst: number,
        frame: Frame
    ) {
        if (this.tracing()) this.emit({ type: type, time: this.now, node: src, dst: dst, frame: frame })
    }
}
