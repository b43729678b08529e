// The election as a library: what a program on a board (src/election.ts) or on a host
// (the `electlab` package's joinElection) uses. Portable: it sits on the node driver and
// gets its way of running tasks from the caller, so the same class runs in the DeviceScript
// VM, on an ESP32 and in Node.

import { ByteSource, packPayload, writePayload } from "../core/codec"
import { NO_NODE, Role, roleName } from "../core/contract"
import { compareTokens, FenceGate, FenceToken, formatToken, makeToken, TokenIssuer } from "../core/fencing"
import { APP_FENCED, APP_ORDER, BROADCAST, Frame, Kind, makeFrame, MAX_APP_PAYLOAD, MAX_SEQ } from "../core/frame"
import { AppReceiver, DriverObserver, NodeDriver } from "../firmware/driver"

/** Where the election stands on this process. */
export interface ElectionState {
    role: Role
    /** "follower", "coordinator", "electing", "crashed" or "misconfigured". */
    roleName: string
    /** The coordinator this process follows (itself when it leads), or -1 when it knows none. */
    coordinator: number
    epoch: number
    /** This process's fencing token while it is coordinator, else null. */
    token: FenceToken
}

/** An application message received. */
export interface AppMessage {
    /** The sender's process number. */
    from: number
    data: Buffer
    /** Sent by a coordinator, with its token: it passed this process's fence. */
    order: boolean
    /** The sender's token (orders only), else null. */
    token: FenceToken
    /** Sent to every process (broadcast) rather than to this one. */
    toAll: boolean
}

/** Runs a function in the background (a fiber on a board, a promise in Node); catches what it throws. */
export type Spawn = (fn: () => Promise<void>) => void

/** Connects the driver to its transport and starts the election (board or host). */
export type Starter = (driver: NodeDriver) => Promise<void>

/**
 * One coordinatorship, as `whileCoordinator` hands it to its task. Stopping is cooperative:
 * a task checks `active()` (or registers `onStop`) and returns; after the role is lost its
 * orders are no longer sent with this token.
 */
export class Duty {
    private stopped = false
    private stopHandlers: (() => void)[] = []

    /** The coordinatorship's token; raised while it lasts if a follower had taken a newer one. */
    token: FenceToken

    constructor(token: FenceToken) {
        this.token = token
    }

    /** True until the role this duty belongs to is lost. */
    active(): boolean {
        return !this.stopped
    }

    /** Runs `fn` once the role is lost (at once if it already is). */
    onStop(fn: () => void) {
        if (this.stopped) callQuietly(fn)
        else this.stopHandlers.push(fn)
    }

    /** Called by the election when the role is lost. */
    stop() {
        if (this.stopped) return
        this.stopped = true
        const handlers = this.stopHandlers
        this.stopHandlers = []
        for (let i = 0; i < handlers.length; i++) callQuietly(handlers[i])
    }
}

function callQuietly(fn: () => void) {
    try {
        fn()
    } catch (e) {
        console.log("EL err where=duty-stop msg=" + e)
    }
}

/** Application message counters, for the lab and the program itself. */
export interface AppCounters {
    /** Messages sent (each destination of a broadcast counted once: one frame). */
    sent: number
    /** Plain messages received (not orders). */
    received: number
    /** Orders accepted by the fence. */
    accepted: number
    /** Orders refused by the fence (a token below the highest accepted). */
    refused: number
}

/**
 * A process's part in the election, for an application: its role, the coordinator, the
 * fencing token, events, work while coordinator and application messages. Made by
 * `createElection`/`startElection` on a board, `joinElection` on a host.
 */
export class Election implements DriverObserver, AppReceiver {
    /** The node driver underneath (counters, the core node). */
    readonly driver: NodeDriver
    /** This process's number. */
    readonly id: number
    /** Fences incoming orders: accepts a token only if it is at least the highest accepted. */
    readonly gate = new FenceGate()
    private issuer: TokenIssuer
    private myToken: FenceToken = null
    private duty: Duty = null
    private spawn: Spawn
    private starter: Starter
    private started = false
    private seq = 0
    private sent = 0
    private received = 0
    private changeHandlers: ((state: ElectionState) => void | Promise<void>)[] = []
    private becomeHandlers: ((token: FenceToken) => void | Promise<void>)[] = []
    private loseHandlers: ((token: FenceToken) => void | Promise<void>)[] = []
    private messageHandlers: ((message: AppMessage) => void | Promise<void>)[] = []
    private tasks: ((duty: Duty) => Promise<void>)[] = []

    constructor(driver: NodeDriver, spawn: Spawn, starter: Starter) {
        this.driver = driver
        this.id = driver.config.nodeId
        this.spawn = spawn
        this.starter = starter
        this.issuer = new TokenIssuer(this.id)
        driver.listeners.push(this)
        driver.app = this
    }

    /**
     * Joins the election: connects the transport, waits for the peers (or the broker) and
     * starts the node. Subscribe before, so that no event is missed. Once only.
     */
    async start() {
        if (this.started) return
        this.started = true
        await this.starter(this.driver)
    }

    /**
     * Stops taking part as if crashed (true), or comes back (false): the lab's crash action,
     * which a board's button also triggers.
     */
    async setCrashed(crashed: boolean) {
        await this.driver.setCrashed(crashed)
    }

    /** True while stopped by setCrashed(true). */
    crashed(): boolean {
        return this.driver.node ? this.driver.node.crashed : false
    }

    // ---- reading the state ----

    /** This process's role. */
    role(): Role {
        return this.driver.role()
    }

    /** True while this process holds the coordinator role. */
    isCoordinator(): boolean {
        if (this.myToken === null) return false
        return this.driver.role() === Role.Coordinator
    }

    /** The coordinator this process follows (itself when it leads), or -1 when it knows none. */
    coordinator(): number {
        return this.driver.coordinator()
    }

    /** The election epoch this process has reached. */
    epoch(): number {
        return this.driver.epoch()
    }

    /** This process's fencing token while it is coordinator, else null. */
    token(): FenceToken {
        return this.isCoordinator() ? this.myToken : null
    }

    /** The highest token whose orders this process accepted (or its own), or null. */
    highestToken(): FenceToken {
        return this.gate.highest
    }

    /** The whole state at once. */
    state(): ElectionState {
        const role = this.role()
        return { role: role, roleName: roleName(role), coordinator: this.coordinator(), epoch: this.epoch(), token: this.token() }
    }

    /** Messages sent and received, orders accepted and refused. */
    counters(): AppCounters {
        return { sent: this.sent, received: this.received, accepted: this.gate.accepted, refused: this.gate.refused }
    }

    /** Writes a structured log line, "EL <event> t=<ms> n=<node id> <fields>", as the virtual lab reads them. */
    log(event: string, fields: string) {
        this.driver.log(event, fields)
    }

    // ---- events ----

    /** Calls `handler` after every change of role or coordinator. */
    onChange(handler: (state: ElectionState) => void | Promise<void>) {
        this.changeHandlers.push(handler)
    }

    /** Calls `handler` with the new token each time this process takes the coordinator role. */
    onBecomeCoordinator(handler: (token: FenceToken) => void | Promise<void>) {
        this.becomeHandlers.push(handler)
    }

    /** Calls `handler` with the old token each time this process loses the coordinator role. */
    onLoseCoordinator(handler: (token: FenceToken) => void | Promise<void>) {
        this.loseHandlers.push(handler)
    }

    /** Calls `handler` for each message received; orders only once they passed the fence. */
    onMessage(handler: (message: AppMessage) => void | Promise<void>) {
        this.messageHandlers.push(handler)
    }

    /**
     * Runs `task` each time this process takes the coordinator role (at once if it holds it),
     * handing it a Duty that stops when the role is lost. The task should return once
     * `duty.active()` is false.
     */
    whileCoordinator(task: (duty: Duty) => Promise<void>) {
        this.tasks.push(task)
        if (this.duty) {
            if (this.duty.active()) this.call(task, this.duty)
        }
    }

    // ---- sending ----

    /**
     * Sends `data` (at most 198 bytes) to the coordinator. When this process leads, it is
     * handed to its own onMessage handlers. False when no coordinator is known or the frame
     * did not leave.
     */
    async sendToCoordinator(data: ByteSource): Promise<boolean> {
        const c = this.coordinator()
        if (c === NO_NODE) return false
        const role = this.role()
        if (role !== Role.Coordinator) {
            if (role !== Role.Follower) return false
        }
        if (c === this.id) {
            if (!this.isCoordinator()) return false
            if (data.length > MAX_APP_PAYLOAD) return false
            this.received = this.received + 1
            this.dispatch({ from: this.id, data: toBuffer(data), order: false, token: null, toAll: false })
            return true
        }
        return await this.send(c, data)
    }

    /**
     * Sends `data` (at most 198 bytes) to every other process. From the coordinator it is an
     * order carrying its token, which receivers fence. False when the frame did not leave.
     */
    async broadcast(data: ByteSource): Promise<boolean> {
        return await this.send(BROADCAST, data)
    }

    /** Sends `data` (at most 198 bytes) to process `id`; an order when this process leads. */
    async sendTo(id: number, data: ByteSource): Promise<boolean> {
        if (id === this.id) return false
        if (id === BROADCAST) return false
        return await this.send(id, data)
    }

    private async send(dst: number, data: ByteSource): Promise<boolean> {
        if (data.length > MAX_APP_PAYLOAD) return false
        const order = this.isCoordinator()
        const ok = await this.sendFrame(dst, order ? APP_ORDER : 0, order ? this.myToken.epoch : this.epoch(), data)
        if (ok) this.sent = this.sent + 1
        return ok
    }

    private async sendFrame(dst: number, kind: number, epoch: number, data: ByteSource): Promise<boolean> {
        const f: Frame = makeFrame(Kind.APP, this.driver.config.algorithm, this.driver.config.group, epoch, this.id, dst)
        f.initiator = data.length
        f.list = packPayload(data)
        f.bid = kind
        this.seq = this.seq < MAX_SEQ ? this.seq + 1 : 1
        f.seq = this.seq
        return await this.driver.sendApp(f)
    }

    // ---- the driver's side ----

    /** From the driver: the role or the coordinator changed. */
    roleChanged(role: Role, coordinator: number, epoch: number) {
        const leads = role === Role.Coordinator && coordinator === this.id
        const lost = this.myToken
        if (!leads) {
            if (lost) {
                this.myToken = null
                if (this.duty) this.duty.stop()
                this.duty = null
                for (let i = 0; i < this.loseHandlers.length; i++) this.call(this.loseHandlers[i], lost)
            }
        }
        if (leads) {
            if (!this.myToken) {
                const token = this.issuer.issue(epoch, this.gate.highest)
                this.myToken = token
                this.gate.note(token)
                this.driver.log("token", "tok=" + formatToken(token))
                this.duty = new Duty(token)
                for (let i = 0; i < this.becomeHandlers.length; i++) this.call(this.becomeHandlers[i], token)
                for (let i = 0; i < this.tasks.length; i++) this.call(this.tasks[i], this.duty)
            }
        }
        const state = this.state()
        for (let i = 0; i < this.changeHandlers.length; i++) this.call(this.changeHandlers[i], state)
    }

    /** From the driver: an APP frame for this process. */
    appFrame(f: Frame) {
        // straight into a Buffer: as numbers the payload would take 8 bytes of the heap per byte
        const data = Buffer.alloc(f.initiator)
        writePayload(f, data)
        const toAll = f.dst === BROADCAST
        if (f.bid === APP_FENCED) {
            this.fenced(makeToken(f.epoch, data[0] * 256 + data[1]), f.src)
            return
        }
        if (f.bid === APP_ORDER) {
            const token = makeToken(f.epoch, f.src)
            const ok = this.gate.offer(token)
            this.driver.log("app", "k=order from=" + f.src + " tok=" + formatToken(token) + " ok=" + (ok ? 1 : 0))
            if (!ok) {
                // our coordinator's token is below one we took (its election gave it an older
                // epoch): tell it, so that its next orders carry a token above
                if (f.src === this.coordinator()) {
                    if (this.role() === Role.Follower) this.tellFenced(f.src)
                }
                return
            }
            this.dispatch({ from: f.src, data: data, order: true, token: token, toAll: toAll })
            return
        }
        this.received = this.received + 1
        this.driver.log("app", "k=msg from=" + f.src + " len=" + data.length)
        this.dispatch({ from: f.src, data: data, order: false, token: null, toAll: toAll })
    }

    private tellFenced(coordinator: number) {
        const h = this.gate.highest
        const self = this
        this.spawn(async () => {
            await self.sendFrame(coordinator, APP_FENCED, h.epoch, [h.holder >> 8, h.holder & 255])
        })
    }

    /**
     * A follower refused our order, having taken `seen`: lead on with a token above it (the
     * same coordinatorship, a newer token; an older coordinator stays fenced off).
     */
    private fenced(seen: FenceToken, from: number) {
        if (!this.isCoordinator()) return
        if (compareTokens(seen, this.myToken) < 0) return
        const token = this.issuer.issue(this.myToken.epoch, seen)
        this.myToken = token
        this.gate.note(token)
        if (this.duty) this.duty.token = token
        this.driver.log("token", "tok=" + formatToken(token) + " fenced-by=" + from)
    }

    private dispatch(message: AppMessage) {
        for (let i = 0; i < this.messageHandlers.length; i++) this.call(this.messageHandlers[i], message)
    }

    /** Runs `handler(arg)` in a fiber of its own (handlers and tasks may await; see spawn). */
    private call<T>(handler: (arg: T) => void | Promise<void>, arg: T) {
        this.spawn(async () => {
            await handler(arg)
        })
    }
}

function toBuffer(data: ByteSource): Buffer {
    const out = Buffer.alloc(data.length)
    for (let i = 0; i < data.length; i++) out[i] = data[i]
    return out
}

/** True when `a` is a newer coordinatorship than `b` (either may be null: null is oldest). */
export function newerToken(a: FenceToken, b: FenceToken): boolean {
    if (!a) return false
    if (!b) return true
    return compareTokens(a, b) > 0
}
