// Runs one election node on a board (or a host node): real timers, frames through a
// transport, role changes to the LED and the log. Every entry point catches: no exception
// may stop a board. Portable: the clock and the log come in as a Platform, so the same
// driver runs in the DeviceScript VM, on an ESP32 and in Node (`electlab node`).

import { createNode } from "../core/algorithms"
import { CodecError, codecErrorName, CODEC_ERROR_COUNT, decodeFrame, encodeFrame } from "../core/codec"
import { algorithmName, BROADCAST, Frame, Kind, kindName } from "../core/frame"
import { Action, ActionType, ElectionNode, MAX_TIMERS, NO_NODE, Role, roleName, TIMER_HEARTBEAT } from "../core/node"
import { FirmwareConfig } from "./config"

/** How frames leave the board. Implementations must not throw. */
export interface FrameTransport {
    /** One frame to one node. */
    unicast(dst: number, bytes: Buffer): Promise<void>
    /** One frame every node hears (it filters what is not for it). */
    broadcast(bytes: Buffer): Promise<void>
}

/** Where the driver reports; the LED and the log listen. */
export interface DriverObserver {
    roleChanged(role: Role, coordinator: number, epoch: number): void
}

/** What the driver needs from where it runs. */
export interface Platform {
    /** Milliseconds since some fixed moment. */
    now(): number
    /** One log line. */
    print(line: string): void
}

/** A structured log line: "EL <event> t=<ms> key=value ...", parsed by the virtual lab. */
export function formatLog(event: string, t: number, fields: string): string {
    return "EL " + event + " t=" + Math.round(t) + " " + fields
}

export class NodeDriver {
    readonly node: ElectionNode
    readonly config: FirmwareConfig
    transport: FrameTransport = null
    observer: DriverObserver = null
    framesSent = 0
    framesReceived = 0
    /** Frames dropped because they did not decode, by CodecError. */
    dropped: number[] = []
    /** Exceptions caught at a callback boundary. */
    errors = 0
    private timers: any[] = []
    private timerGen: number[] = []
    private problems: string[]
    private started = false
    private crashAtStart = false

    readonly platform: Platform

    constructor(config: FirmwareConfig, problems: string[], platform: Platform) {
        this.config = config
        this.problems = problems
        this.platform = platform
        this.node = createNode(config.algorithm, {
            id: config.nodeId,
            ids: config.ids,
            group: config.group,
            timing: config.timing,
            suitability: config.suitability,
        })
        for (let i = 0; i < CODEC_ERROR_COUNT; i++) this.dropped.push(0)
        for (let t = 0; t < MAX_TIMERS; t++) {
            this.timers.push(0)
            this.timerGen.push(0)
        }
    }

    droppedTotal(): number {
        let n = 0
        for (let i = 0; i < this.dropped.length; i++) n += this.dropped[i]
        return n
    }

    role(): Role {
        if (this.problems.length > 0 || !this.node) return Role.Misconfigured
        return this.node.role
    }

    coordinator(): number {
        return this.node ? this.node.coordinator : NO_NODE
    }

    epoch(): number {
        return this.node ? this.node.epoch : 0
    }

    async start() {
        this.log(
            "boot",
            "n=" + this.config.nodeId + " alg=" + algorithmName(this.config.algorithm) +
                " ids=" + this.config.ids.join(",") + " group=" + this.config.group
        )
        if (this.problems.length > 0 || !this.node) {
            for (let i = 0; i < this.problems.length; i++) this.log("config", "n=" + this.config.nodeId + " problem=" + this.problems[i])
            this.report(Role.Misconfigured, NO_NODE, 0)
            return
        }
        const out: Action[] = []
        try {
            this.node.start(this.platform.now(), out)
            // A board that boots as the highest announces itself at once: a coordinator elected
            // while it was off steps down now rather than a heartbeat period later.
            if (this.node.role === Role.Coordinator && this.config.timing.heartbeatInterval > 0)
                this.node.timer(TIMER_HEARTBEAT, this.platform.now(), out)
            if (this.crashAtStart) this.node.crash(this.platform.now(), out)
        } catch (e) {
            this.caught("start", e)
        }
        this.started = true
        await this.apply(out)
    }

    /** Bytes from the transport: decode, count, hand to the node. */
    async receive(bytes: Buffer) {
        if (!this.node || this.problems.length > 0 || !this.started) return
        const out: Action[] = []
        try {
            const decoded = decodeFrame(bytes)
            if (decoded.error !== CodecError.None) {
                this.dropped[decoded.error]++
                this.log("drop", "n=" + this.node.id + " why=" + codecErrorName(decoded.error) + " len=" + bytes.length)
                return
            }
            const f = decoded.frame
            if (f.dst !== BROADCAST && f.dst !== this.node.id) return
            // Our own broadcast heard back: not news (a duplicate id is caught by the transport).
            if (f.src === this.node.id) return
            // a crashed board hears nothing (its frames_received register must not grow)
            if (this.node.crashed) return
            this.framesReceived++
            if (f.kind !== Kind.HEARTBEAT)
                this.log("rx", "n=" + this.node.id + " k=" + kindName(f.kind) + " from=" + f.src + " e=" + f.epoch)
            this.node.receive(f, this.platform.now(), out)
        } catch (e) {
            this.caught("receive", e)
        }
        await this.apply(out)
    }

    /** The crash/recover action (service command or button). */
    async setCrashed(crashed: boolean) {
        if (!this.node || this.problems.length > 0) return
        if (!this.started) {
            // before the node runs (boot wait): remember, start() applies it
            this.crashAtStart = crashed
            return
        }
        const out: Action[] = []
        try {
            if (crashed) this.node.crash(this.platform.now(), out)
            else this.node.recover(this.platform.now(), out)
        } catch (e) {
            this.caught("crash", e)
        }
        await this.apply(out)
    }

    /** A configuration problem seen at run time (e.g. a duplicate node id): stop taking part. */
    flagProblem(problem: string) {
        if (this.problems.indexOf(problem) >= 0) return
        this.problems.push(problem)
        for (let t = 0; t < MAX_TIMERS; t++) this.clearTimer(t)
        this.report(Role.Misconfigured, NO_NODE, this.epoch())
    }

    /** The transport heard that node `id` dropped off (an MQTT last will). */
    async peerLeft(id: number) {
        if (!this.node || this.problems.length > 0 || !this.started) return
        const out: Action[] = []
        try {
            this.log("left", "n=" + this.node.id + " peer=" + id)
            this.node.peerLeft(id, this.platform.now(), out)
        } catch (e) {
            this.caught("left", e)
        }
        await this.apply(out)
    }

    async toggleCrashed() {
        await this.setCrashed(!this.node.crashed)
    }

    private async fire(timer: number, gen: number) {
        if (gen !== this.timerGen[timer]) return
        this.timers[timer] = 0
        const out: Action[] = []
        try {
            this.node.timer(timer, this.platform.now(), out)
        } catch (e) {
            this.caught("timer", e)
        }
        await this.apply(out)
    }

    private async apply(out: Action[]) {
        for (let i = 0; i < out.length; i++) {
            try {
                await this.applyOne(out[i])
            } catch (e) {
                this.caught("action", e)
            }
        }
    }

    private async applyOne(action: Action) {
        if (action.type === ActionType.Send) {
            await this.send(action.to, action.frame)
        } else if (action.type === ActionType.SetTimer) {
            this.clearTimer(action.timer)
            const gen = this.timerGen[action.timer]
            const timer = action.timer
            const self = this
            this.timers[timer] = setTimeout(async () => {
                await self.fire(timer, gen)
            }, action.delay)
        } else if (action.type === ActionType.CancelTimer) {
            this.clearTimer(action.timer)
        } else if (action.type === ActionType.RoleChange) {
            this.report(action.role, action.coordinator, action.epoch)
        }
    }

    private clearTimer(timer: number) {
        this.timerGen[timer]++
        if (this.timers[timer]) clearTimeout(this.timers[timer])
        this.timers[timer] = 0
    }

    private async send(to: number[], frame: Frame) {
        const encoded = encodeFrame(frame)
        if (encoded.error !== CodecError.None) {
            this.errors++
            this.log("err", "n=" + this.node.id + " where=encode why=" + codecErrorName(encoded.error))
            return
        }
        if (!this.transport) return
        const bytes = Buffer.from(encoded.bytes)
        this.framesSent++
        if (frame.kind !== Kind.HEARTBEAT)
            this.log("tx", "n=" + this.node.id + " k=" + kindName(frame.kind) + " to=" + to.join(",") + " e=" + frame.epoch)
        if (to.length === 1 && frame.dst === to[0]) await this.transport.unicast(to[0], bytes)
        else await this.transport.broadcast(bytes)
    }

    private report(role: Role, coordinator: number, epoch: number) {
        this.log("role", "n=" + this.config.nodeId + " r=" + roleName(role) + " c=" + coordinator + " e=" + epoch)
        if (this.observer) this.observer.roleChanged(role, coordinator, epoch)
    }

    log(event: string, fields: string) {
        this.platform.print(formatLog(event, this.platform.now(), fields))
    }

    private caught(where: string, e: any) {
        this.errors++
        this.log("err", "n=" + this.config.nodeId + " where=" + where + " msg=" + e)
    }
}
