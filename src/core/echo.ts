// Tree election on any connected graph (seed 003), with Segall's echo algorithm.
//
// The initiator sends ELECTION to its neighbours; a process's first ELECTION of a wave
// makes the sender its parent and goes on to its other neighbours. A process has heard
// from a neighbour when its ECHO or its own ELECTION arrives; having heard from all but
// its parent it sends ECHO with its subtree's best id to the parent (ECHOED). The
// initiator, having heard from all, sends COORDINATOR down the tree; a process that
// knows the result is DONE. An ELECTION is acknowledged at once (ACK, naming the
// receiver's wave and whether it is under way), unless the receiver's own ELECTION of the
// same wave went the other way, which answers it; a neighbour that does not answer within
// T is taken as down. A wave is (epoch, initiator): a higher wave is joined, a lower one
// acknowledged and ignored. Frames: the wave in `epoch` and `initiator`, the best id or
// the winner in `bid` (in an ELECTION: the sender's parent; in an ACK: WAVE_UNDER_WAY or
// 0), and in an ACK's `seq` the epoch of the ELECTION it answers (16 bits).
//
// Why, the choices the seed leaves open, and the message counts: docs/algorithms.md,
// "`echo`" and, for a wave stalled by a crash, "Converging under faults".

import { AckLink } from "./ack-link"
import { AlgorithmDescriptor, AlgorithmLabels, CheckHints } from "./descriptor"
import { Algorithm, BROADCAST, Frame, Kind } from "./frame"
import { Action, ActionType, NO_NODE, NodeConfig, Role, TIMER_ALGORITHM } from "./contract"
import { ElectionNode } from "./node"
import { echoElectionBound } from "./bounds"
import { epochAfter, mod, nextEpoch } from "./portable"
import { frameFrom, isMember, oldNews, othersIds } from "./node-state"

const TIMER_ACK = TIMER_ALGORITHM

const IDLE = 0
/** In a wave, waiting to hear from neighbours. */
const ACTIVE = 1
/** Sent ECHO to the parent, waiting for COORDINATOR. */
const ECHOED = 2
/** The wave's result is known. */
const DONE = 3
/** An ACK's `bid`: its sender's wave (the one it names) is still under way. */
const WAVE_UNDER_WAY = 1

export class EchoNode extends ElectionNode {
    /** Graph neighbours. */
    readonly neighbors: number[]
    // (state public to the module: its steps are functions after the class, which cost a
    // board no class-table entry each)
    // (each starts as resetAlgorithm sets it)
    waveEpoch: number
    waveInitiator: number
    status: number
    /** When this process entered its current wave; -1 when in none. */
    waveEnteredAt: number
    parent: number
    best: number
    /** Per neighbour: heard from it (or gave it up) in the current wave. */
    heard: boolean[]
    /** Per neighbour: it echoed to us (a child in the spanning tree). */
    child: boolean[]
    /** The neighbours sent ELECTION whose ACK is not yet back (ack-link.ts). */
    readonly link: AckLink

    constructor(config: NodeConfig) {
        super(Algorithm.Echo, config)
        if (config.neighbors) {
            const nb: number[] = []
            for (let i = 0; i < config.neighbors.length; i++)
                if (config.neighbors[i] !== this.id && nb.indexOf(config.neighbors[i]) < 0)
                    nb.push(config.neighbors[i])
            this.neighbors = nb
        } else this.neighbors = othersIds(this)
        this.link = new AckLink(TIMER_ACK, config.timing.answerTimeout, 0)
        this.resetAlgorithm()
    }

    /**
     * A wave goes down a tree at most n deep and back: each level waits at most T for the
     * ACKs of its neighbours (dead ones included), and a hop takes far less than T.
     */
    override electionBound(): number {
        return echoElectionBound(this.ids.length, this.timing)
    }

    /**
     * In another's wave and not yet echoed: its initiator waits for our subtree. Unless the
     * heartbeat is that initiator's: it leads, so its wave is over (a late ELECTION drew us
     * into it after its end, and no result would ever come down our branch).
     */
    override carriesOthersElection(rank: number): boolean {
        return this.status === ACTIVE && this.waveInitiator !== this.id && this.waveInitiator !== rank
    }

    /**
     * (our extension) In a wave, we hear a lower coordinator. Once we echoed, a neighbour
     * leading in an epoch not older than our wave's says the wave ended without bringing us
     * its result; and a wave older than its bound is stuck on a lost frame (a child that
     * moved on to a newer wave whose ELECTION to us was lost). Start our own wave rather
     * than wait for the deadline (a neighbouring coordinator joins it). A
     * heartbeat's epoch alone proves nothing: a coordinator our waves cannot reach overhears
     * theirs, and restarting on it kept every wave from ending.
     */
    override lowerLeadsWhileElecting(heartbeat: Frame, now: number, out: Action[]) {
        if (this.status !== ACTIVE) if (this.status !== ECHOED) return
        if (now - this.waveEnteredAt > this.electionBound()) startWave(this, now, out)
        else if (this.status === ECHOED) if (!epochAfter(this.waveEpoch, heartbeat.epoch)) if (this.neighbors.indexOf(heartbeat.src) >= 0) startWave(this, now, out)
    }

    /** The spanning-tree parent in the current wave, or -1 (initiator, or no wave). */
    treeParent(): number {
        return this.parent
    }

    /** The initiator of the current wave, or -1. */
    currentWave(): number {
        return this.status === IDLE ? NO_NODE : this.waveInitiator
    }

    protected resetAlgorithm() {
        this.waveEpoch = 0
        this.waveInitiator = 0
        this.status = IDLE
        this.waveEnteredAt = -1
        this.parent = NO_NODE
        this.best = NO_NODE
        clearWaveState(this)
    }

    onSuspect(now: number, out: Action[]) {
        // (our extension) a wave under way goes on, but only while electing: a follower that
        // echoed and then followed a claimer (a RESIGN or HANDOVER, which end no wave) waits
        // for no result, and suspecting its coordinator it must start one (it stayed
        // following a crashed process for good)
        if (this.role === Role.Electing) if (this.status === ACTIVE || this.status === ECHOED) return
        startWave(this, now, out)
    }

    protected onRecover(now: number, out: Action[]) {
        startWave(this, now, out)
    }


    protected onTimer(timer: number, now: number, out: Action[]) {
        if (timer !== TIMER_ACK || this.status !== ACTIVE) return
        // No ACK: taken as down; no reply is awaited from it.
        for (let j = 0; j < this.link.dsts.length; j++) this.heard[this.neighbors.indexOf(this.link.dsts[j])] = true
        this.link.clear()
        checkDone(this, now, out)
    }

    protected onFrame(frame: Frame, now: number, out: Action[]): boolean {
        const k = this.neighbors.indexOf(frame.src)
        if (k < 0) return false // not a neighbour: the graph says we cannot hear it
        if (!isMember(this, frame.initiator)) return false
        if ((frame.kind === Kind.ECHO || frame.kind === Kind.COORDINATOR) && !isMember(this, frame.bid)) return false
        // an ELECTION names its sender's parent (bid), which it is not for: one frame to
        // several goes to all on a bus or a broker, and the parent took it for a reply
        if (frame.kind === Kind.ELECTION) if (frame.bid === this.id) return false
        const cmp = compareWave(this, frame.epoch, frame.initiator)
        if (frame.kind === Kind.ELECTION) {
            if (cmp > 0) {
                // (our extension) a wave a sitting coordinator above its initiator would win
                // (or its own, over since it heartbeats, unless it comes from it): maybe old
                // news, not joined. That coordinator answers for itself at once (ACK, and ECHO
                // naming it the best); a follower stays silent (taken as down, the wave goes on
                // without it: naming its coordinator, perhaps failed since, kept waves electing
                // a dead one).
                const i = frame.initiator
                if (oldNews(this, i !== this.coordinator || frame.src === i ? i : -1)) {
                    if (this.role === Role.Coordinator) {
                        answerInWave(this, frame, Kind.ACK, out).seq = waveTag(frame.epoch)
                        answerInWave(this, frame, Kind.ECHO, out)
                    }
                    return true
                }
                join(this, frame, k, now, out)
                return true
            }
            if (cmp < 0 || frame.src === this.parent) {
                // a lower wave's (its sender learns of ours), or our parent's again
                sendWaveFrame(this, Kind.ACK, [frame.src], this.status === DONE ? 0 : WAVE_UNDER_WAY, out).seq = waveTag(frame.epoch)
                return true
            }
            // The neighbour's own ELECTION of our wave: it is not our child, and it has
            // answered. It crossed ours to it, which answers it in turn (no ACK either way).
            const answered = this.link.acknowledge(frame.src, waveTag(frame.epoch)) >= 0
            if (this.status === ACTIVE) {
                this.heard[k] = true
                checkDone(this, now, out)
            }
            // still waiting for ECHOs, but for no ACK: no timer
            if (answered) if (this.status === ACTIVE) if (this.link.dsts.length === 0) this.link.cancel(out)
            return true
        }
        if (frame.kind === Kind.ACK) {
            // the answer to our ELECTION of the epoch in its seq (it names its own wave, not ours)
            if (this.link.acknowledge(frame.src, frame.seq) < 0) return false
            if (cmp > 0 && this.status === ACTIVE) {
                // our wave is stale: join the sender's while it goes on (its ELECTION to us is
                // on its way or lost), else start a newer one
                if (frame.bid === WAVE_UNDER_WAY) join(this, frame, k, now, out)
                else startWave(this, now, out)
                return true
            }
            if (this.link.dsts.length === 0) this.link.cancel(out)
            return true
        }
        if (frame.kind === Kind.ECHO) {
            if (cmp !== 0 || this.status !== ACTIVE) return answerLeftWave(this, frame, now, out)
            this.heard[k] = true
            this.child[k] = true
            if (frame.bid > this.best) this.best = frame.bid
            checkDone(this, now, out)
            return true
        }
        if (frame.kind === Kind.COORDINATOR) {
            if (cmp !== 0 || this.status !== ECHOED || frame.src !== this.parent) return false
            finish(this, frame.bid, now, out)
            return true
        }
        return false
    }
}

/**
 * Our extension: an ECHO for a wave this process started and has left (it followed a
 * higher coordinator's heartbeat) or finished (it took the echoer as down when its ACK was
 * late) gets the coordinator it follows now, as that wave's COORDINATOR: the echoer would
 * otherwise wait for a result nobody will send, until its election's deadline. An echoer
 * that outranks that coordinator contests it. An ECHO whose best is the coordinator we
 * follow says it is alive and in the wave (where it does not heartbeat): watch it afresh
 * rather than suspect it and start another wave.
 */
function answerLeftWave(node: EchoNode, frame: Frame, now: number, out: Action[]): boolean {
    if (node.status === ACTIVE) return false
    if (frame.initiator !== node.id || node.status === ECHOED || node.coordinator === NO_NODE) return false
    if (node.role !== Role.Follower && node.role !== Role.Coordinator) return false
    const f = frameFrom(node, Kind.COORDINATOR, frame.src)
    f.epoch = frame.epoch
    f.initiator = frame.initiator
    f.bid = node.coordinator
    out.push({ type: ActionType.Send, to: [frame.src], frame: f })
    if (node.role === Role.Follower && frame.bid === node.coordinator) node.follow(node.coordinator, now, out)
    return true
}

/** A frame of `frame`'s wave back to its sender, naming our coordinator (ourselves) the best. */
function answerInWave(node: EchoNode, frame: Frame, kind: Kind, out: Action[]): Frame {
    const f = frameFrom(node, kind, frame.src)
    f.epoch = frame.epoch
    f.initiator = frame.initiator
    f.bid = node.coordinator
    out.push({ type: ActionType.Send, to: [frame.src], frame: f })
    return f
}

function startWave(node: EchoNode, now: number, out: Action[]) {
    node.epoch = nextEpoch(node.epoch)
    node.waveEpoch = node.epoch
    node.waveInitiator = node.id
    node.parent = NO_NODE
    enterWave(node, now, out)
}

/** First ELECTION of a higher wave: its sender is our parent. */
function join(node: EchoNode, frame: Frame, k: number, now: number, out: Action[]) {
    node.waveEpoch = frame.epoch
    node.waveInitiator = frame.initiator
    node.parent = frame.src
    sendWaveFrame(node, Kind.ACK, [frame.src], WAVE_UNDER_WAY, out).seq = waveTag(frame.epoch)
    enterWave(node, now, out)
}

function enterWave(node: EchoNode, now: number, out: Action[]) {
    node.status = ACTIVE
    node.waveEnteredAt = now
    node.best = node.id
    clearWaveState(node)
    node.enterElection(out)
    const to: number[] = []
    for (let k = 0; k < node.neighbors.length; k++) {
        if (node.neighbors[k] === node.parent) node.heard[k] = true
        else to.push(node.neighbors[k])
    }
    if (to.length > 0) {
        // the initiator names itself: no other process takes the frame for its child's
        sendWaveFrame(node, Kind.ELECTION, to, node.parent === NO_NODE ? node.id : node.parent, out)
        // the first one arms the link's timer (T)
        for (let j = 0; j < to.length; j++) node.link.expect(to[j], waveTag(node.waveEpoch), null, now, out)
    } else node.link.cancel(out)
    checkDone(node, now, out)
}

function checkDone(node: EchoNode, now: number, out: Action[]) {
    if (node.status !== ACTIVE) return
    for (let k = 0; k < node.neighbors.length; k++) if (!node.heard[k]) return
    node.link.cancel(out)
    if (node.parent === NO_NODE) {
        finish(node, node.best, now, out)
        return
    }
    node.status = ECHOED
    sendWaveFrame(node, Kind.ECHO, [node.parent], node.best, out)
}

/** The wave's winner is known: take it and pass it down the tree. */
function finish(node: EchoNode, winner: number, now: number, out: Action[]) {
    node.status = DONE
    node.waveEnteredAt = -1
    if (epochAfter(node.waveEpoch, node.epoch)) node.epoch = node.waveEpoch
    if (winner === node.id) node.assumeCoordinatorRole(out)
    else node.follow(winner, now, out)
    const children: number[] = []
    for (let k = 0; k < node.neighbors.length; k++) if (node.child[k]) children.push(node.neighbors[k])
    if (children.length > 0) sendWaveFrame(node, Kind.COORDINATOR, children, winner, out)
}

/** A frame of the current wave: epoch and initiator name the wave. */
function sendWaveFrame(node: EchoNode, kind: Kind, to: number[], bid: number, out: Action[]): Frame {
    const f = frameFrom(node, kind, to.length === 1 ? to[0] : BROADCAST)
    f.epoch = node.waveEpoch
    f.initiator = node.waveInitiator
    f.bid = bid
    out.push({ type: ActionType.Send, to: to, frame: f })
    return f
}

/**
 * What an ACK names of the ELECTION it answers, and what the link waits for: that wave's
 * epoch, to 16 bits. A late ACK to an older ELECTION then answers no newer one.
 */
function waveTag(epoch: number): number {
    return mod(epoch, 65536)
}

/** Sign of (epoch, initiator) against the current wave: epoch first, then initiator. */
function compareWave(node: EchoNode, epoch: number, initiator: number): number {
    if (node.status === IDLE) return 1
    if (epoch !== node.waveEpoch) return epochAfter(epoch, node.waveEpoch) ? 1 : -1
    if (initiator !== node.waveInitiator) return initiator > node.waveInitiator ? 1 : -1
    return 0
}

function clearWaveState(node: EchoNode) {
    node.heard = []
    node.child = []
    node.link.clear()
    for (let k = 0; k < node.neighbors.length; k++) {
        node.heard.push(false)
        node.child.push(false)
    }
}


export const echoDescriptor: AlgorithmDescriptor = {
    algorithm: Algorithm.Echo,
    name: "echo",
    electionBound: echoElectionBound,
    create: (config: NodeConfig) => new EchoNode(config),
    usesRingOrder: false,
    usesGraph: true,
    usesSuitability: false,
    needsFifoLinks: false,
}

/** The exhaustive check's hints (descriptor.ts): a node's neighbours are fixed at construction. */
export function echoCheckHints(): CheckHints {
    return {
        skipped: (n: EchoNode) => [n.neighbors],
        shared: (n: EchoNode) => [n.neighbors],
        // read only against the bound, and only on a heartbeat
        aged: (n: EchoNode) => [n.waveEnteredAt],
        ageCap: (n: EchoNode) => n.electionBound() + 1,
    }
}

/** How charts and traces name echo's frames and timers (descriptor.ts). No board calls this. */
export function echoLabels(): AlgorithmLabels {
    return {
        frames: ["ELECTION wave={initiator}/{epoch}", "ECHO wave={initiator}/{epoch} best={bid}", "COORDINATOR {bid} wave={initiator}/{epoch}"],
        timers: ["no ACK within T"],
    }
}

/**
 * Most heap, bytes after a collection, a board running echo may hold at 12 boards through the
 * lab's failover-10 (sim/lab/heap-size.ts): the peaks measured and about 2 KB for how they
 * vary. No board calls this, so no board image holds it.
 */
export function echoHeapBudget(): number {
    return 33 * 1024
}
