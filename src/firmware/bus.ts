// The wired transport: election frames over the Jacdac bus through the ElectLab Election
// service (services/electlab.md). Unicast is the `frame` command on the role bound to the
// destination's server; broadcast is the `broadcast` event of our own server.

import * as ds from "@devicescript/core"
import { Server, startServer } from "@devicescript/server"
import { Role } from "../core/contract"
import { TRANSPORT_BUS } from "./config"
import { boardRandom32 } from "./crypto"
import { FrameTransport, NodeDriver } from "./driver"
import { log } from "./log"

import { MAX_BOARDS } from "./bus-limits"

class ElectionServer extends Server implements ds.ElectlabElectionServerSpec {
    driver: NodeDriver
    nonce: number
    /** set_crashed commands ignored: not a lab build. */
    labCommandsRefused = 0

    constructor(driver: NodeDriver, nonce: number) {
        super(ds.ElectlabElection.spec)
        this.driver = driver
        this.nonce = nonce
    }
    nodeId() {
        return this.driver.config.nodeId
    }
    bootNonce() {
        return this.nonce
    }
    role(): ds.ElectlabElectionRole {
        // the service's Role enum has the core's Role numbers
        return this.driver.role() as number as ds.ElectlabElectionRole
    }
    coordinator() {
        return this.driver.coordinator()
    }
    epoch() {
        return this.driver.epoch()
    }
    framesSent() {
        return this.driver.framesSent
    }
    framesReceived() {
        return this.driver.framesReceived
    }
    framesDropped() {
        return this.driver.droppedTotal()
    }
    framesRefused() {
        return this.driver.refusedTotal()
    }
    async frame(data: Buffer) {
        await this.driver.receive(data)
    }
    async setCrashed(crashed: boolean) {
        // anyone on the bus may send it: only the virtual lab's image obeys
        if (!this.driver.config.labTools) {
            this.labCommandsRefused = this.labCommandsRefused + 1
            return
        }
        log("action", "n=" + this.driver.config.nodeId + " crashed=" + (crashed ? 1 : 0))
        await this.driver.setCrashed(crashed)
    }
}

/** Bound, not identified yet. */
const UNKNOWN = -1
const SELF = -2
const UNBOUND = -3
/**
 * Longest a unicast may wait to leave. The runtime lets a program send 5 packets at once,
 * then one per 20 ms; beyond a second the destination's role has lost its binding.
 */
const SEND_TIMEOUT_MS = 1000
/** How often a role advertising our id is checked again while it stays bound. */
const TWIN_RECHECK_MS = 2000
/** The service's `broadcast` event (services/electlab.md). */
const EVENT_BROADCAST = 0x81

/** The transports started on this board (one; a test may start more): who owns a role. */
const transports: BusTransport[] = []

/** The servers' packet handler of @devicescript/server, once `start` put answerOnce before it. */
let answerServerPacket: (pkt: ds.Packet) => Promise<void> = null
/** The register read being answered now (service index * 65536 + command), or 0. */
let answering = 0

/**
 * A register's report goes to the whole bus and answers every reader waiting for it, and a
 * reader asks again after 20, 40, 80 ms... while none came. A board that restarted among 11
 * peers was read by all of them at once, and each read held a fiber and its packet while the
 * runtime let one packet out per 20 ms: the repeats piled up to 68 (6 KB of the heap). A read
 * of the register being answered is dropped: that answer serves it.
 */
async function answerOnce(pkt: ds.Packet) {
    let read = 0
    if (pkt.isRegGet) read = pkt.serviceIndex * 65536 + pkt.serviceCommand
    if (read) {
        if (read === answering) return
        answering = read
    }
    try {
        await answerServerPacket(pkt)
    } finally {
        // (a read of another register since then took the slot: harmless, one answer more)
        if (read) answering = 0
    }
}

/** The runtime calls it on every packet of an election role, and on its binding changes. */
async function onRolePacket(this: ds.ElectlabElection, pkt: ds.Packet) {
    for (let i = 0; i < transports.length; i++) await transports[i].rolePacket(this, pkt)
}

export class BusTransport implements FrameTransport {
    server: ElectionServer
    peers: ds.ElectlabElection[] = []
    /** Node id behind each role: UNBOUND, UNKNOWN while being identified, SELF for our own server. */
    peerNode: number[] = []
    /** Bound roles waiting to be identified, and whether a fiber is identifying them. */
    unidentified: number[] = []
    identifying = false

    constructor(readonly driver: NodeDriver) {
        // a number that differs per device and per boot: not Math.random, which the VM seeds
        // the same way at every boot (every VM drew 3514796)
        this.server = new ElectionServer(driver, boardRandom32())
    }

    /**
     * The service, and on the bus (`transport`) a client role per possible peer, the election
     * frames' way. Over MQTT the service only shows the board's state and takes the crash action:
     * bound roles there took about 300 bytes of the heap each and handled every peer's
     * announce, for frames that never come that way.
     */
    start(transport: number) {
        startServer(this.server)
        if (!answerServerPacket) {
            answerServerPacket = (ds as any)._onServerPacket
            ;(ds as any)._onServerPacket = answerOnce
        }
        if (transport !== TRANSPORT_BUS) return
        for (let i = 0; i < MAX_BOARDS; i++) {
            this.peers.push(new ds.ElectlabElection())
            this.peerNode.push(UNBOUND)
        }
        // One handler for every role's packets, in place of a binding subscription and an
        // event subscription per role: those took 7 KB of the 64 KB heap at 12 roles.
        transports.push(this)
        ;(ds.ElectlabElection.prototype as any)._onPacket = onRolePacket
    }

    /** A packet, or a binding change (no packet, or command 0), for one of our roles. */
    async rolePacket(role: ds.ElectlabElection, pkt: ds.Packet) {
        const i = this.peers.indexOf(role)
        if (i < 0) return
        try {
            if (!pkt || pkt.serviceCommand === 0) {
                // every announce of the bound device comes here too: act on a change only
                const bound = role.isBound
                if (bound === (this.peerNode[i] !== UNBOUND)) return
                this.peerNode[i] = bound ? UNKNOWN : UNBOUND
                if (bound) await identifyInTurn(this, i)
            } else if (pkt.isEvent) {
                if (pkt.eventCode === EVENT_BROADCAST) {
                    if (this.peerNode[i] !== SELF) await this.driver.receive(pkt.payload)
                }
            }
        } catch (e) {
            log("err", "where=role msg=" + e)
        }
    }

    nonce(): number {
        return this.server.nonce
    }

    /** Peers identified so far (our own server not counted). */
    peerCount(): number {
        let n = 0
        for (let i = 0; i < this.peerNode.length; i++) if (this.peerNode[i] >= 0) n++
        return n
    }

    /** To every role bound to `dst`: a device advertising that id too cannot divert the frames. */
    async unicast(dst: number, bytes: Buffer) {
        let sent = 0
        for (let i = 0; i < this.peerNode.length; i++) {
            if (this.peerNode[i] !== dst) continue
            sent++
            await command(this, i, bytes)
        }
        // no role bound to the destination: it is off the bus; the algorithm's timeouts cover it
        if (sent === 0) log("lost", "n=" + this.driver.config.nodeId + " dst=" + dst + " why=unroutable")
    }

    async broadcast(bytes: Buffer) {
        try {
            await this.server.sendEvent(ds.ElectlabElection.spec.lookup("broadcast").encode(bytes))
        } catch (e) {
            log("err", "where=broadcast msg=" + e)
        }
    }
}

/**
 * Identifies freshly bound roles one at a time: at boot every role binds at once, and a
 * fiber per role, each waiting for two register reads, held 6 KB of the heap at 12 boards.
 */
async function identifyInTurn(bus: BusTransport, i: number) {
    bus.unidentified.push(i)
    if (bus.identifying) return
    bus.identifying = true
    try {
        while (bus.unidentified.length > 0) {
            const next = bus.unidentified.shift()
            if (bus.peerNode[next] === UNKNOWN) await identify(bus, next)
        }
    } finally {
        bus.identifying = false
    }
}

/** Which board a freshly bound role talks to: ourselves, a peer, or a duplicate id. */
async function identify(bus: BusTransport, i: number) {
    const peer = bus.peers[i]
    const id = await peer.nodeId.read()
    const nonce = await peer.bootNonce.read()
    const me = bus.driver.config.nodeId
    if (id === me) {
        if (nonce === bus.server.nonce) {
            bus.peerNode[i] = SELF
            return
        }
    }
    bus.peerNode[i] = id
    log("peer", "n=" + me + " peer=" + id)
    if (id === me) await checkTwin(bus, i)
}

/**
 * Anyone can advertise our id: a hint the driver checks (with a key) before it acts.
 * Checked again while that role stays bound: a check goes unproven when the other board
 * had not started, or had not yet found us, when it ran.
 */
async function checkTwin(bus: BusTransport, i: number) {
    if (bus.peerNode[i] !== bus.driver.config.nodeId) return
    if (bus.driver.role() === Role.Misconfigured) return
    await bus.driver.duplicateIdReported()
    setTimeout(async () => {
        try {
            await checkTwin(bus, i)
        } catch (e) {
            log("err", "where=twin msg=" + e)
        }
    }, TWIN_RECHECK_MS)
}

/**
 * The `frame` command to role i, given up after SEND_TIMEOUT_MS: a command to a role that
 * lost its binding (its board went off the bus) waits until the role binds again, for ever
 * if the board never comes back, and every frame the board sends after it would wait too.
 */
async function command(bus: BusTransport, i: number, bytes: Buffer) {
    const waiter = ds.Fiber.self()
    const peer = bus.peers[i]
    let done = false
    const send = async () => {
        try {
            await peer.frame(bytes)
        } catch (e) {
            log("err", "where=unicast msg=" + e)
        }
        done = true
        if (waiter.suspended) waiter.resume(true)
    }
    const sender = send.start()
    if (!done) await ds.suspend(SEND_TIMEOUT_MS)
    if (done) return
    sender.terminate()
    log("lost", "n=" + bus.driver.config.nodeId + " dst=" + bus.peerNode[i] + " why=stalled")
}

