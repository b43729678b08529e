// Runs one election node on a board (or a host node): real timers, frames through a
// transport, role changes to the LED and the log. Every entry point catches: no exception
// may stop a board. Portable: the clock and the log come in as a Platform, so the same
// driver runs in the DeviceScript VM, on an ESP32 and in Node (`electlab node`).

import { AUTH_CONTROL_MARKER, AUTH_REFUSAL_COUNT, AUTH_TRAILER_BYTES, AuthRefusal, CONTROL_CHALLENGE, authRefusalName, FrameAuth, MacFunction, parseKeyHex, proofWait } from "../core/auth"
import { appFrameError, ByteSource, CodecError, codecErrorName, CODEC_ERROR_COUNT, decodeFrame, validateFrame, writeFrame, zeroBytes } from "../core/codec"
import { Action, ActionType, MAX_TIMERS, NO_NODE, Role, roleName, TIMER_WATCH } from "../core/contract"
import { AlgorithmDescriptor } from "../core/descriptor"
import { BROADCAST, Frame, FRAME_HEADER_BYTES, Kind, kindName } from "../core/frame"
import { hears } from "../core/frame-filter"
import { ElectionNode } from "../core/node"
import { isMember } from "../core/node-state"
import { sum } from "../core/portable"
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

/** Where application frames (Kind.APP) go: the election API. */
export interface AppReceiver {
    /** A decoded APP frame for this node from a member (never our own). Must not throw. */
    appFrame(frame: Frame): void
}

/** What the driver needs from where it runs. */
export interface Platform {
    /** Milliseconds since some fixed moment. */
    now(): number
    /** One log line. */
    print(line: string): void
    /** HMAC-SHA256 with this key (authenticated frames); absent where there is no crypto. */
    makeMac?(key: ByteSource): MacFunction
    /** A cryptographically random integer 0..2^32-1. */
    random32?(): number
    /**
     * Runs `fiber` as soon as the caller has returned; absent: a timer of 0 ms (Node makes
     * that at least 1 ms, a delay every frame would pay twice on a round trip).
     */
    defer?(fiber: () => Promise<void>): void
}

/** At most one "refused" line per reason in this time: a flood of refused frames is counted, not logged frame by frame. */
export const REFUSAL_LOG_MS = 1000

/** A structured log line: "EL <event> t=<ms> key=value ...", parsed by the virtual lab; msg= and problem= are free text, last. */
export function formatLog(event: string, t: number, fields: string): string {
    return "EL " + event + " t=" + Math.round(t) + " " + fields
}

/**
 * Frames handled at once; the others wait in the inbox. Handling never waits for the wire
 * (replies go to the outbox), so one handler keeps up, and the node's steps, its timers and
 * its role reports happen in the order of its events.
 */
export const INBOX_HANDLERS = 1
/** Frames handled in one turn of the VM, at most. */
export const INBOX_BATCH = 4
/**
 * Frames waiting at most: the bursts of several elections at once from every peer of a
 * 12-board cluster fit (echo's waves through a broker overran 16, and a lost frame stalls
 * a wave until its deadline). A waiting frame holds some 60 bytes of heap.
 */
export const INBOX_LIMIT = 48
/**
 * Sealed frames waiting for the wire at most. One fiber sends them, in the order the node
 * sent them (the links stay first in, first out); a send waits while the bus is busy, and for
 * as long as the destination's role is unbound. Beyond the bound a frame is dropped and
 * counted, as a lossy link would drop it.
 */
export const OUTBOX_LIMIT = 32

export class NodeDriver {
    /** Null when the board refuses to run (see `problems`). */
    readonly node: ElectionNode = null
    readonly config: FirmwareConfig
    /** The name of the algorithm this image runs. */
    readonly algorithmName: string
    transport: FrameTransport = null
    observer: DriverObserver = null
    /** More observers of role changes (the application API), told after `observer`. */
    listeners: DriverObserver[] = []
    /** Receives application frames; null: they are dropped. */
    app: AppReceiver = null
    /** Application frames sent and received (not counted in framesSent/framesReceived). */
    appSent = 0
    appReceived = 0
    framesSent = 0
    framesReceived = 0
    /** Frames dropped because they did not decode, by CodecError. */
    dropped: number[] = zeroBytes(CODEC_ERROR_COUNT)
    /** Exceptions caught at a callback boundary. */
    errors = 0
    /** Frames dropped because the inbox was full (a burst beyond INBOX_LIMIT). */
    inboxDropped = 0
    /** Frames not sent because the outbox was full (OUTBOX_LIMIT). */
    outboxDropped = 0
    /** Tags, counters and the replay window; null when no key is configured. */
    auth: FrameAuth = null
    // (internal from here on: the module's functions after the class use these fields; as
    // functions rather than methods they cost a board no class-table entry each)
    timers: any[] = zeroBytes(MAX_TIMERS)
    /**
     * Per timer, the count of its armings and cancellings: a timeout that fires with an older
     * count was cancelled or set again (the engine's TimerGenerations, as a plain array: a
     * class costs a board more)
     */
    generations: number[] = zeroBytes(MAX_TIMERS)
    problems: string[]
    started = false
    crashAtStart = false
    /** The auth layer's refusals already logged, by AuthRefusal; the last sender of each, plus one (0: none known). */
    refusalsLogged: number[] = zeroBytes(AUTH_REFUSAL_COUNT)
    refusalsSeen = 0
    refusalFrom: number[] = zeroBytes(AUTH_REFUSAL_COUNT)
    refusalLoggedAt = -REFUSAL_LOG_MS
    refusalFlush: any = 0
    /** Hints (a leave, a duplicate id) under check: the node ids challenged, and each check's end. */
    checking: number[] = []
    checkEnds: (() => Promise<void>)[] = []
    duplicateHintPending = false
    /** Frames waiting their turn (see receive), and leave hints (a node id) in their order among them. */
    inbox: (Buffer | number)[] = withRoom(INBOX_LIMIT)
    /** Fibers handling the inbox now, at most INBOX_HANDLERS. */
    handlers = 0
    /**
     * Sealed frames for the wire and where each goes (a node id, or BROADCAST), oldest first,
     * with the timers set after them as [timer, generation, delay] (-1 in outboxTo); the
     * authentication layer's challenges and proofs in a queue of their own that goes first (a
     * proof counts only within PROOF_WINDOW_MS of its challenge).
     */
    outbox: (Buffer | number[])[] = withRoom(OUTBOX_LIMIT)
    outboxTo: number[] = withRoom(OUTBOX_LIMIT)
    controlOut: Buffer[] = withRoom(OUTBOX_LIMIT)
    controlTo: number[] = withRoom(OUTBOX_LIMIT)
    sending = false
    /**
     * Told each time the watch on the coordinator is armed (its timer's generation, its delay):
     * the early probe (probe.ts) where the program installs it; unset, nothing.
     */
    watchArmed?: (driver: NodeDriver, gen: number, delay: number) => void

    readonly platform: Platform

    /**
     * `algorithm` is the one this image runs, handed in as its module's descriptor (an image
     * carries no other). A configuration that asks for another makes the board refuse.
     */
    constructor(config: FirmwareConfig, problems: string[], platform: Platform, algorithm: AlgorithmDescriptor) {
        this.config = config
        this.problems = problems
        this.platform = platform
        this.algorithmName = algorithm ? algorithm.name : "none"
        if (!algorithm) problems.push("this image runs no algorithm: hand one to createElection")
        else if (config.algorithm !== algorithm.algorithm) problems.push("the configured algorithm (" + config.algorithm + ") is not this image's " + algorithm.name)
        else
            this.node = algorithm.create({
                id: config.nodeId,
                ids: config.ids,
                group: config.group,
                timing: config.timing,
                suitability: config.suitability,
                // the re-election jitter differs per board and per boot
                seed: platform.random32 ? platform.random32() : config.nodeId,
            })
        if (config.authKey) {
            const key = parseKeyHex(config.authKey)
            if (!key) problems.push("AUTH_KEY is not 64 hex digits")
            else if (!platform.makeMac || !platform.random32) problems.push("no HMAC on this platform")
            else this.auth = new FrameAuth(config.nodeId, config.group, platform.makeMac(frameKey(platform.makeMac(key), config.group, config.algorithm)), platform.random32, bytesOf)
        }
    }

    droppedTotal(): number {
        return sum(this.dropped)
    }

    role(): Role {
        if (this.problems.length > 0) return Role.Misconfigured
        if (!this.node) return Role.Misconfigured
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
            "alg=" + this.algorithmName +
                " ids=" + this.config.ids.join(",") + " group=" + this.config.group
        )
        if (this.problems.length > 0 || !this.node) {
            for (let i = 0; i < this.problems.length; i++) this.log("config", "problem=" + this.problems[i])
            report(this, Role.Misconfigured, NO_NODE, 0)
            return
        }
        const out: Action[] = []
        try {
            // a board may boot into a running cluster: the highest claims the role by a handover
            this.node.powerOn(this.platform.now(), out)
            if (this.crashAtStart) this.node.crash(this.platform.now(), out)
        } catch (e) {
            caught(this, "start", e)
        }
        this.started = true
        // meet every peer's boot now, not in the middle of the first election
        if (this.auth) post(this, this.auth.helloChallenge(this.platform.now()) as Buffer, BROADCAST)
        apply(this, out)
        if (this.duplicateHintPending) await this.duplicateIdReported()
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
     * algorithms' timeouts cover that). A number is a leave hint's node id (peerLeft).
     * `later`: the inbox is handled in a fiber of its own and the caller goes on (the MQTT
     * socket's reader, which parses many packets of one chunk before it yields: a fiber per
     * packet held 37 at once, with their frames, and a board ran out of heap).
     */
    async receive(bytes: Buffer | number, later?: boolean) {
        if (!this.node) return
        if (!this.started) return
        if (this.problems.length > 0) {
            // out of the election, but still proving itself: a twin with our id must learn of
            // us too (one guard per condition: && and || cost a board bytes each)
            if (!this.auth) return
            if (typeof bytes === "number") return
            if (bytes[0] !== AUTH_CONTROL_MARKER) return
            if (bytes[1] !== CONTROL_CHALLENGE) return
            if (!this.transport) return
            const opened = this.auth.open(bytes, this.platform.now())
            if (opened.reply) post(this, opened.reply as Buffer, opened.replyTo)
            return
        }
        if (this.inbox.length >= INBOX_LIMIT) {
            this.inboxDropped = this.inboxDropped + 1
            this.log("drop", "why=inbox-full")
            return
        }
        this.inbox.push(bytes)
        if (this.handlers >= INBOX_HANDLERS) return
        // a handler counts from here: frames that come before it runs only join the inbox
        this.handlers = this.handlers + 1
        if (later) handleLater(this)
        else await handleInbox(this)
    }

    /**
     * Sends an application frame as election frames go: encoded, sealed with a key, to
     * `frame.dst` (or to all for BROADCAST). False when it did not leave (no transport, a
     * crashed or misconfigured node, a frame that does not encode or fit).
     */
    async sendApp(frame: Frame): Promise<boolean> {
        if (!this.transport) return false
        if (!this.node) return false
        if (!this.started) return false
        if (this.node.crashed) return false
        if (this.role() === Role.Misconfigured) return false
        const sealed = seal(this, frame)
        if (!sealed) return false
        if (!post(this, sealed, frame.dst)) return false
        this.appSent = this.appSent + 1
        return true
    }

    /** The crash/recover action (service command or button). */
    async setCrashed(crashed: boolean) {
        if (!this.node) return
        if (this.problems.length > 0) return
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
            caught(this, "crash", e)
        }
        apply(this, out)
    }

    /** A configuration problem seen at run time (e.g. a duplicate node id): stop taking part. */
    flagProblem(problem: string) {
        if (this.problems.indexOf(problem) >= 0) return
        this.problems.push(problem)
        for (let t = 0; t < MAX_TIMERS; t++) {
            stopTimeout(this, t)
            this.generations[t] = this.generations[t] + 1
        }
        // the core owns the role: it stays misconfigured whatever comes next
        const out: Action[] = []
        if (this.node) this.node.misconfigure(out)
        report(this, Role.Misconfigured, NO_NODE, this.epoch())
    }

    /**
     * A hint that node `id` dropped off (an MQTT last will: anyone can publish one). With a
     * key it is checked: a sealed challenge to `id`; only if no proof (nor fresh frame) comes
     * back within a few of its measured round trips (proofWait, at most the answer timeout) is
     * the node taken as gone. Without a key there is nothing to check against: the node is
     * taken as gone at once.
     */
    async peerLeft(id: number) {
        // queued behind the frames that came before it: those were sent before the hint, and
        // taken before its check starts they cannot count as a proof that `id` is alive
        await this.receive(id)
    }

    /**
     * A hint that another board claims this node's id (the bus saw our id with another boot
     * nonce; anyone can advertise that). With a key: a sealed challenge addressed to our own id,
     * which only a board holding the key and our id can answer; the id is a duplicate only if
     * it does. Without a key: a duplicate at once.
     */
    async duplicateIdReported() {
        if (!this.node) return
        if (this.problems.length > 0) return
        const me = this.config.nodeId
        if (!this.auth) {
            duplicateId(this)
            return
        }
        if (!this.started) {
            // proofs are not taken before start: check once running
            this.duplicateHintPending = true
            return
        }
        const self = this
        await checkHint(this, me, "duplicate", async (proven: boolean) => {
            if (proven) duplicateId(self)
            else self.log("config", "hint=duplicate-node-id verdict=unproven")
        })
    }

    async toggleCrashed() {
        if (this.node) await this.setCrashed(!this.node.crashed)
    }

    /** A structured log line: the event, the time, this node's id, then `fields`. */
    log(event: string, fields: string) {
        // ["print"], not .print: the compiler keeps every prototype method named as a property
        // read anywhere in the image, and a read of .print kept the graphics package's
        // Image.print (736 bytes with its font) in every board image
        this.platform["print"](formatLog(event, this.platform.now(), "n=" + this.config.nodeId + " " + fields))
    }
}

/** The auth layer's control frames: Buffers, on a board and in Node alike. */
function bytesOf(n: number): ByteSource {
    return Buffer.alloc(n)
}

/**
 * The key every tag is made with, bound to what it protects: HKDF-Expand (RFC 5869) with the
 * group key as its pseudorandom key, info "electlab frame key" || group || algorithm, one block
 * (32 bytes). A frame of another group or algorithm sealed with the same group key then fails
 * its tag; the group key itself only derives.
 */
export function frameKey(groupMac: MacFunction, group: number, algorithm: number): ByteSource {
    // the label, then group, algorithm and HKDF's block counter over the three spaces
    const info = Buffer.from("electlab frame key   ")
    info[18] = group
    info[19] = algorithm
    info[20] = 1
    return groupMac(info, 21)
}

/** The auth layer's step: refused frames are counted and logged, never acted on. */
async function receiveSealed(driver: NodeDriver, bytes: Buffer) {
    // a crashed node is silent: it neither challenges nor proves
    if (driver.node.crashed) return
    const opened = driver.auth.open(bytes, driver.platform.now())
    // this frame's refusal, and those of held frames it let go (stale after a re-proof, unproven)
    if (driver.auth.refusedTotal() !== driver.refusalsSeen) noteRefusal(driver, opened.refusal, opened.src)
    // an ignored or refused frame has no frames to hand on (a refused one may have a challenge)
    if (opened.refusal !== AuthRefusal.None) {
        if (driver.auth.keyMismatch(driver.platform.now())) {
            driver.log("config", "problem=key-mismatch")
            driver.flagProblem("no frame verifies: AUTH_KEY, GROUP or the algorithm differs from the rest of the group")
        }
    }
    if (opened.reply) {
        driver.log("auth", (opened.reply[1] === CONTROL_CHALLENGE ? "challenge" : "proof") + " to=" + opened.replyTo)
        post(driver, opened.reply as Buffer, opened.replyTo)
    }
    if (opened.challengeBack) post(driver, opened.challengeBack as Buffer, opened.replyTo)
    for (let i = 0; i < opened.frames.length; i++) {
        const sealed = opened.frames[i]
        await deliver(driver, sealed, sealed.length - AUTH_TRAILER_BYTES)
    }
}

/** The first `n` bytes are the frame. */
async function deliver(driver: NodeDriver, bytes: ByteSource, n: number) {
    const out: Action[] = []
    try {
        const decoded = decodeFrame(bytes, n)
        const f = decoded.frame
        let error = decoded.error
        if (error === CodecError.None) if (f.kind === Kind.APP) error = appFrameError(f)
        if (error !== CodecError.None) {
            driver.dropped[error] = driver.dropped[error] + 1
            driver.log("drop", "why=" + codecErrorName(error) + " len=" + n)
            return
        }
        if (f.kind === Kind.APP) {
            // for the API if it is for us, from a member, and we take part
            if (!driver.app) return
            if (driver.node.crashed) return
            if (driver.role() === Role.Misconfigured) return
            if (f.group !== driver.config.group) return
            if (!hears(driver.node, f)) return
            if (!isMember(driver.node, f.src)) return
            driver.appReceived = driver.appReceived + 1
            driver.app.appFrame(f)
            return
        }
        // The core filters (another's frame, our own echo, a duplicate id, a crashed node);
        // the counter and the log show what reached this node.
        if (hears(driver.node, f)) {
            driver.framesReceived = driver.framesReceived + 1
            if (f.kind !== Kind.HEARTBEAT)
                driver.log("rx", "k=" + kindName(f.kind) + " from=" + f.src + " e=" + f.epoch)
        }
        driver.node.receive(f, driver.platform.now(), out)
    } catch (e) {
        caught(driver, "receive", e)
    }
    apply(driver, out)
}

/**
 * Logs the auth layer's refusals: one line per reason at most every REFUSAL_LOG_MS, with the
 * count since the last one (count=), and the last sender.
 */
function noteRefusal(driver: NodeDriver, why: AuthRefusal, src: number) {
    driver.refusalsSeen = driver.auth.refusedTotal()
    // (plus one: a 0 says no sender known)
    driver.refusalFrom[why] = src + 1
    const wait = driver.refusalLoggedAt + REFUSAL_LOG_MS - driver.platform.now()
    if (wait <= 0) {
        flushRefusals(driver)
        return
    }
    if (driver.refusalFlush) return
    driver.refusalFlush = setTimeout(() => {
        try {
            driver.refusalFlush = 0
            flushRefusals(driver)
        } catch (e) {
            caught(driver, "refused", e)
        }
    }, wait)
}

function flushRefusals(driver: NodeDriver) {
    driver.refusalLoggedAt = driver.platform.now()
    for (let r = 0; r < AUTH_REFUSAL_COUNT; r++) {
        const count = driver.auth.refused[r] - driver.refusalsLogged[r]
        if (count === 0) continue
        driver.refusalsLogged[r] = driver.auth.refused[r]
        driver.log(
            "refused",
            "why=" + authRefusalName(r) + " from=" + (driver.refusalFrom[r] - 1) + " count=" + count
        )
    }
}

async function hintLeft(driver: NodeDriver, id: number) {
    if (!driver.node) return
    if (driver.problems.length > 0) return
    if (!driver.started) return
    // checked with a key, for another node, while we are up; else taken at once
    if (driver.auth) {
        if (id !== driver.node.id) {
            if (!driver.node.crashed) {
                await checkHint(driver, id, "left", async (alive: boolean) => {
                    if (alive) driver.log("left", "peer=" + id + " verdict=alive")
                    else await left(driver, id, " verdict=silent")
                })
                return
            }
        }
    }
    await left(driver, id, "")
}

function duplicateId(driver: NodeDriver) {
    const me = driver.config.nodeId
    driver.log("config", "problem=duplicate-node-id")
    driver.flagProblem("another board on the bus has node id " + me)
}

/**
 * Challenges `id` and calls `verdict(proven)` after a few of its measured round trips, at most
 * the answer timeout (proofWait); one check per id at a time. A proof later than that is too
 * late: the node was taken as gone, and is back with its next frame; its round trip still
 * counts, so the next check waits longer (unless the verdict says `unmeasured`, as the early
 * probe's does: probe.ts).
 */
export async function checkHint(driver: NodeDriver, id: number, what: string, verdict: (proven: boolean) => Promise<void>) {
    if (driver.checking.indexOf(id) >= 0) return
    const since = driver.platform.now()
    const wait = proofWait(driver.auth, id, driver.config.timing.answerTimeout)
    const challenge = driver.auth.probe(id, since)
    // the wait's timer ends the check, or the transport's word that nobody can answer (peerUnreachable)
    const end = async () => {
        try {
            const at = driver.checkEnds.indexOf(end)
            if (at < 0) return
            // the last one in its place (no splice in DeviceScript; the order does not matter)
            const ids = driver.checking
            const ends = driver.checkEnds
            ids[at] = ids[ids.length - 1]
            ends[at] = ends[ends.length - 1]
            ids.pop()
            ends.pop()
            await verdict(driver.auth.proven(id, since))
        } catch (e) {
            caught(driver, "hint", e)
        }
    }
    driver.checking.push(id)
    driver.checkEnds.push(end)
    driver.log("hint", "" + what + "=" + id + " check=challenge wait=" + wait)
    setTimeout(end, wait)
    post(driver, challenge as Buffer, id)
}

/**
 * The transport's word that nobody receives node `id`'s frames (an MQTT 5 broker's "no
 * matching subscribers" for a challenge): a check of `id` under way ends now, on the proofs
 * it has. Nothing else changes on it: a node proven meanwhile stays alive.
 */
export async function peerUnreachable(driver: NodeDriver, id: number) {
    const at = driver.checking.indexOf(id)
    if (at < 0) return
    driver.log("hint", "unreachable=" + id)
    await driver.checkEnds[at]()
}

async function left(driver: NodeDriver, id: number, why: string) {
    if (!driver.node) return
    if (driver.problems.length > 0) return
    const out: Action[] = []
    try {
        driver.log("left", "peer=" + id + why)
        driver.node.peerLeft(id, driver.platform.now(), out)
    } catch (e) {
        caught(driver, "left", e)
    }
    apply(driver, out)
}

/**
 * Carries out the actions in order, at once: timers and role reports now, frames sealed
 * into the outbox. Nothing here waits for the wire.
 */
export function apply(driver: NodeDriver, out: Action[]) {
    for (let i = 0; i < out.length; i++) {
        const action = out[i]
        try {
            if (action.type === ActionType.Send) {
                const frame = action.frame
                const bytes = seal(driver, frame)
                if (bytes) {
                    // one destination: to it by name, even when the frame (shared by several
                    // such sends) is addressed to all
                    if (post(driver, bytes, action.to.length === 1 ? action.to[0] : BROADCAST)) {
                        driver.framesSent = driver.framesSent + 1
                        if (frame.kind !== Kind.HEARTBEAT)
                            driver.log("tx", "k=" + kindName(frame.kind) + " to=" + action.to.join(",") + " e=" + frame.epoch)
                    }
                }
            } else if (action.type === ActionType.SetTimer) {
                stopTimeout(driver, action.timer)
                const gen = driver.generations[action.timer] + 1
                driver.generations[action.timer] = gen
                // A timeout counts from when the frames sent before it have left (T: no answer T
                // after the request went): it waits its turn in the outbox.
                if (!driver.sending || driver.outbox.length >= OUTBOX_LIMIT) startTimeout(driver, action.timer, gen, action.delay)
                else {
                    driver.outbox.push([action.timer, gen, action.delay])
                    driver.outboxTo.push(-1)
                }
            } else if (action.type === ActionType.CancelTimer) {
                stopTimeout(driver, action.timer)
                driver.generations[action.timer] = driver.generations[action.timer] + 1
            } else if (action.type === ActionType.RoleChange) {
                report(driver, action.role, action.coordinator, action.epoch)
            }
        } catch (e) {
            caught(driver, "action", e)
        }
    }
}

/** Queues sealed bytes for `to` (a node id, or BROADCAST); false when the outbox is full or there is no transport. */
function post(driver: NodeDriver, bytes: Buffer, to: number): boolean {
    if (!driver.transport) return false
    const control = bytes[0] === AUTH_CONTROL_MARKER
    const queue = control ? driver.controlOut : driver.outbox
    if (queue.length >= OUTBOX_LIMIT) {
        driver.outboxDropped = driver.outboxDropped + 1
        driver.log("drop", "why=outbox-full len=" + bytes.length)
        return false
    }
    queue.push(bytes)
    if (control) driver.controlTo.push(to)
    else driver.outboxTo.push(to)
    if (!driver.sending) {
        driver.sending = true
        // its own fiber: the caller goes on
        const sender = async () => {
            await drain(driver)
        }
        spawn(driver, sender)
    }
    return true
}

/**
 * An empty queue with room for `n`, made at boot: one grown in a burst asks the heap for a
 * larger block at each step, when the heap is most in pieces (docs/image-size.md).
 * DeviceScript's `new Array(n)` takes exactly n, and its pop keeps the room.
 */
function withRoom(n: number): any[] {
    const list = new Array(n)
    while (list.length > 0) list.pop()
    return list
}

/** Runs `fiber` on its own once the caller has returned. */
function spawn(driver: NodeDriver, fiber: () => Promise<void>) {
    if (driver.platform.defer) driver.platform.defer(fiber)
    else setTimeout(fiber, 0)
}

/**
 * Handles INBOX_BATCH frames of the inbox, then the rest in a fiber of its own: the VM stops a
 * program that runs 128 K instructions without a wait, and a burst of frames did. The caller
 * counted itself in `handlers`.
 */
async function handleInbox(driver: NodeDriver) {
    let handled = 0
    try {
        while (driver.inbox.length > 0 && handled < INBOX_BATCH) {
            handled = handled + 1
            const next = driver.inbox.shift()
            if (typeof next === "number") await hintLeft(driver, next)
            else if (driver.auth) await receiveSealed(driver, next)
            else await deliver(driver, next, next.length)
        }
    } finally {
        if (driver.inbox.length > 0) handleLater(driver)
        else driver.handlers = driver.handlers - 1
    }
}

function handleLater(driver: NodeDriver) {
    spawn(driver, async () => {
        await handleInbox(driver)
    })
}

/** The outbox's one fiber: each frame to the wire in turn. */
async function drain(driver: NodeDriver) {
    try {
        while (driver.controlOut.length + driver.outbox.length > 0) {
            const control = driver.controlOut.length > 0
            const next = control ? driver.controlOut.shift() : driver.outbox.shift()
            const to = control ? driver.controlTo.shift() : driver.outboxTo.shift()
            if (!(next instanceof Buffer)) {
                // a timer's turn, [timer, generation, delay]: start it, unless cancelled or set again meanwhile
                const t = next as number[]
                if (driver.generations[t[0]] === t[1]) startTimeout(driver, t[0], t[1], t[2])
                continue
            }
            const bytes = next as Buffer
            try {
                if (to === BROADCAST) await driver.transport.broadcast(bytes)
                else await driver.transport.unicast(to, bytes)
            } catch (e) {
                caught(driver, "send", e)
            }
        }
    } finally {
        driver.sending = false
    }
}

function startTimeout(driver: NodeDriver, timer: number, gen: number, delay: number) {
    driver.timers[timer] = setTimeout(() => {
        if (driver.generations[timer] !== gen) return
        driver.timers[timer] = 0
        const out: Action[] = []
        try {
            driver.node.timer(timer, driver.platform.now(), out)
        } catch (e) {
            caught(driver, "timer", e)
        }
        apply(driver, out)
    }, delay)
    // (one test for the hook, nested: && costs a board bytes)
    if (timer === TIMER_WATCH) if (driver.watchArmed) driver.watchArmed(driver, gen, delay)
}

function stopTimeout(driver: NodeDriver, timer: number) {
    if (driver.timers[timer]) clearTimeout(driver.timers[timer])
    driver.timers[timer] = 0
}

/**
 * A frame encoded (and sealed, with a key) for the wire, written straight into its Buffer: as
 * numbers it would take 8 bytes of the heap per byte; null when it cannot leave.
 */
function seal(driver: NodeDriver, frame: Frame): Buffer {
    const appError = appFrameError(frame)
    const error = appError !== CodecError.None ? appError : validateFrame(frame)
    if (error !== CodecError.None) {
        driver.errors = driver.errors + 1
        driver.log("err", "where=encode k=" + kindName(frame.kind) + " why=" + codecErrorName(error))
        return null
    }
    // encodedSize's sum, written out: one function less in a board's image
    const size = FRAME_HEADER_BYTES + 2 * frame.list.length
    const bytes = Buffer.alloc(driver.auth ? size + AUTH_TRAILER_BYTES : size)
    writeFrame(frame, bytes)
    if (driver.auth) {
        if (!driver.auth.seal(bytes, size, driver.platform.now())) {
            driver.errors = driver.errors + 1
            driver.log("err", "where=seal k=" + kindName(frame.kind) + " why=too-long")
            return null
        }
    }
    return bytes
}

function report(driver: NodeDriver, role: Role, coordinator: number, epoch: number) {
    driver.log("role", "r=" + roleName(role) + " c=" + coordinator + " e=" + epoch)
    if (driver.observer) driver.observer.roleChanged(role, coordinator, epoch)
    for (let i = 0; i < driver.listeners.length; i++) {
        try {
            driver.listeners[i].roleChanged(role, coordinator, epoch)
        } catch (e) {
            caught(driver, "listener", e)
        }
    }
}

export function caught(driver: NodeDriver, where: string, e: any) {
    driver.errors = driver.errors + 1
    driver.log("err", "where=" + where + " msg=" + e)
}

