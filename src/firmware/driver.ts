// Runs one election node on a board (or a host node): real timers, frames through a
// transport, role changes to the LED and the log. Every entry point catches: no exception
// may stop a board. Portable: the clock and the log come in as a Platform, so the same
// driver runs in the DeviceScript VM, on an ESP32 and in Node (`electlab node`).

import { createNode } from "../core/algorithms"
import { AuthRefusal, authRefusalName, FrameAuth, MacFunction, parseKeyHex } from "../core/auth"
import { CodecError, codecErrorName, CODEC_ERROR_COUNT, decodeFrame, encodeFrame } from "../core/codec"
import { algorithmName, Frame, Kind, kindName } from "../core/frame"
import { Action, ActionType, ElectionNode, MAX_TIMERS, NO_NODE, Role, roleName } from "../core/node"
import { TimerGenerations } from "../core/timer-generations"
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
    /** HMAC-SHA256 with this key (authenticated frames); absent where there is no crypto. */
    makeMac?(key: number[]): MacFunction
    /** A cryptographically random integer 0..2^32-1. */
    random32?(): number
}

/** A structured log line: "EL <event> t=<ms> key=value ...", parsed by the virtual lab. */
export function formatLog(event: string, t: number, fields: string): string {
    return "EL " + event + " t=" + Math.round(t) + " " + fields
}

/** Frames handled at once; the others wait in the inbox. */
export const INBOX_HANDLERS = 4
/** Frames waiting at most: a burst from every peer of a 12-board cluster fits. */
export const INBOX_LIMIT = 16

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
    /** Frames dropped because the inbox was full (a burst beyond INBOX_LIMIT). */
    inboxDropped = 0
    /** Tags, counters and the replay window; null when no key is configured. */
    auth: FrameAuth = null
    private timers: any[] = []
    private generations = new TimerGenerations(MAX_TIMERS)
    private problems: string[]
    private started = false
    private crashAtStart = false
    /** Frames waiting their turn (see receive). */
    private inbox: Buffer[] = []
    /** Fibers handling the inbox now, at most INBOX_HANDLERS. */
    private handlers = 0

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
            // the re-election jitter differs per board and per boot
            seed: platform.random32 ? platform.random32() : config.nodeId,
        })
        for (let i = 0; i < CODEC_ERROR_COUNT; i++) this.dropped.push(0)
        if (config.authKey) {
            const key = parseKeyHex(config.authKey)
            if (!key) problems.push("AUTH_KEY is not 64 hex digits")
            else if (!platform.makeMac || !platform.random32) problems.push("no HMAC on this platform")
            else this.auth = new FrameAuth(config.nodeId, config.group, platform.makeMac(key), platform.random32)
        }
        for (let t = 0; t < MAX_TIMERS; t++) {
            this.timers.push(0)
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
            // a board may boot into a running cluster: the highest claims the role by a handover
            this.node.powerOn(this.platform.now(), out)
            if (this.crashAtStart) this.node.crash(this.platform.now(), out)
        } catch (e) {
            this.caught("start", e)
        }
        this.started = true
        // meet every peer's boot now, not in the middle of the first election
        if (this.auth && this.transport) await this.transport.broadcast(Buffer.from(this.auth.helloChallenge(this.platform.now())))
        await this.apply(out)
    }

    /** Frames refused by the auth layer (bad tag, replay, unsigned). */
    refusedTotal(): number {
        return this.auth ? this.auth.refusedTotal() : 0
    }

    /**
     * Bytes from the transport: verify (with a key), decode, count, hand to the node. At most
     * INBOX_HANDLERS frames at a time: each transport callback is a fiber, and a burst (every
     * peer's ELECTION to a new coordinator at 12 boards) handled all at once held every
     * fiber's frames and replies together and ran the 64 KB heap out. The queue is bounded;
     * beyond it a frame is dropped and counted, as a lossy link would drop it (the
     * algorithms' timeouts cover that).
     */
    async receive(bytes: Buffer) {
        if (!this.node || this.problems.length > 0 || !this.started) return
        if (this.inbox.length >= INBOX_LIMIT) {
            this.inboxDropped++
            this.log("drop", "n=" + this.node.id + " why=inbox-full len=" + bytes.length)
            return
        }
        this.inbox.push(bytes)
        if (this.handlers >= INBOX_HANDLERS) return
        this.handlers++
        try {
            while (this.inbox.length > 0) {
                const next = this.inbox.shift()
                if (this.auth) await this.receiveSealed(next)
                else await this.deliver(next)
            }
        } finally {
            this.handlers--
        }
    }

    /** The auth layer's step: refused frames are counted and logged, never acted on. */
    private async receiveSealed(bytes: Buffer) {
        // a crashed node is silent: it neither challenges nor proves
        if (this.node.crashed) return
        const opened = this.auth.open(bytes, this.platform.now())
        if (opened.ignored) return
        if (opened.refusal !== AuthRefusal.None) {
            this.log("refused", "n=" + this.node.id + " why=" + authRefusalName(opened.refusal) + " from=" + opened.src + " len=" + bytes.length)
            if (this.auth.keyMismatch(this.platform.now())) {
                this.log("config", "n=" + this.node.id + " problem=key-mismatch")
                this.flagProblem("no frame verifies: AUTH_KEY is not the group's key")
            }
            return
        }
        if (opened.reply && this.transport) {
            this.log("auth", "n=" + this.node.id + " " + (opened.held ? "challenge" : "proof") + " to=" + opened.replyTo)
            await this.transport.unicast(opened.replyTo, Buffer.from(opened.reply))
        }
        if (opened.challengeBack && this.transport) await this.transport.unicast(opened.replyTo, Buffer.from(opened.challengeBack))
        for (let i = 0; i < opened.frames.length; i++) await this.deliver(Buffer.from(opened.frames[i]))
    }

    private async deliver(bytes: Buffer) {
        const out: Action[] = []
        try {
            const decoded = decodeFrame(bytes)
            if (decoded.error !== CodecError.None) {
                this.dropped[decoded.error]++
                this.log("drop", "n=" + this.node.id + " why=" + codecErrorName(decoded.error) + " len=" + bytes.length)
                return
            }
            const f = decoded.frame
            // The core filters (another's frame, our own echo, a duplicate id, a crashed node);
            // the counter and the log show what reached this node.
            if (this.node.hears(f)) {
                this.framesReceived++
                if (f.kind !== Kind.HEARTBEAT)
                    this.log("rx", "n=" + this.node.id + " k=" + kindName(f.kind) + " from=" + f.src + " e=" + f.epoch)
            }
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
        for (let t = 0; t < MAX_TIMERS; t++) {
            this.stopTimeout(t)
            this.generations.cancel(t)
        }
        // the core owns the role: it stays misconfigured whatever comes next
        const out: Action[] = []
        if (this.node) this.node.misconfigure(out)
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
        if (!this.generations.isCurrent(timer, gen)) return
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
            this.stopTimeout(action.timer)
            const gen = this.generations.arm(action.timer)
            const timer = action.timer
            const self = this
            this.timers[timer] = setTimeout(async () => {
                await self.fire(timer, gen)
            }, action.delay)
        } else if (action.type === ActionType.CancelTimer) {
            this.stopTimeout(action.timer)
            this.generations.cancel(action.timer)
        } else if (action.type === ActionType.RoleChange) {
            this.report(action.role, action.coordinator, action.epoch)
        }
    }

    private stopTimeout(timer: number) {
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
        const sealed = this.auth ? this.auth.seal(encoded.bytes, this.platform.now()) : encoded.bytes
        if (!sealed) {
            this.errors++
            this.log("err", "n=" + this.node.id + " where=seal why=too-long")
            return
        }
        const bytes = Buffer.from(sealed)
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
