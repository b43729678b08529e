// A small MQTT 3.1.1 client (QoS 0, exact topics) on the board's one socket.
//
// Why not @devicescript/net's MQTTClient: it reads the socket from an event handler that
// DeviceScript coalesces (a handler still running when the next event comes runs once more,
// not once per event) and each run takes one chunk, so chunks pile up in the socket's queue
// and a frame waits for a later packet to push it out: 24 ms to 3 s in the lab (median about
// 300 ms), growing with traffic. Here one fiber reads the socket in a loop and parses every
// packet in order. A publish is one write (header and payload together), so Nagle's algorithm
// never holds a payload back waiting for the broker's delayed ACK of its header.

import * as ds from "@devicescript/core"
import { connect, Socket } from "@devicescript/net"

export interface MqttLinkOptions {
    host: string
    port: number
    clientId: string
    /** The broker drops a silent client after 1.5 × this and publishes its will. */
    keepAliveSec: number
    willTopic: string
    willMessage: string
    /** The broker's password file and topic rights (optional: the broker's access control, docs/lab-guide.md). */
    username?: string
    password?: string
    /** Exact topics to receive. */
    topics: string[]
    /** Longest wait for the socket, CONNACK and SUBACK, ms. */
    timeoutMs: number
}

const CONNECT = 1
const CONNACK = 2
const PUBLISH = 3
const SUBSCRIBE = 8
const SUBACK = 9
const PINGREQ = 12

/** A string as MQTT sends it: two length bytes, then UTF-8. */
export function mqttString(text: string): Buffer {
    const b = Buffer.from(text)
    return Buffer.from([b.length >> 8, b.length & 255]).concat(b)
}

/** Fixed header byte, the remaining length (variable-length integer), then the body. */
export function mqttPacket(first: number, body: Buffer): Buffer {
    const head: number[] = [first]
    let remaining = body.length
    for (;;) {
        let b = remaining & 127
        remaining = remaining >> 7
        if (remaining > 0) b = b | 128
        head.push(b)
        if (remaining === 0) break
    }
    return Buffer.from(head).concat(body)
}

export class MqttLink {
    connected = false
    /** A received PUBLISH: topic and payload. Called in order, one at a time. */
    onMessage: (topic: string, payload: Buffer) => Promise<void> = null
    /** The connection is gone (socket closed, error, or the broker silent). */
    onLost: (why: string) => Promise<void> = null

    socket: Socket = null
    answered = ds.emitter<number>()
    lastHeard = 0
    pinger: any = 0

    constructor(readonly opts: MqttLinkOptions) {}

    /** Connects, subscribes; true once the broker has acknowledged both. Never throws. */
    async open(): Promise<boolean> {
        await this.close()
        const o = this.opts
        let sock: Socket
        try {
            sock = await connect({ host: o.host, port: o.port, proto: "tcp", timeout: o.timeoutMs })
        } catch (e) {
            await lost(this, "" + e)
            return false
        }
        this.socket = sock
        this.lastHeard = ds.millis()
        const self = this
        const reader = async () => {
            await self.readLoop(sock)
        }
        reader.start()
        let payload = mqttString(o.clientId).concat(mqttString(o.willTopic)).concat(mqttString(o.willMessage))
        // protocol "MQTT" level 4; flags: will (QoS 0, not retained), clean session, then
        // user name and password when set (in that order after the will, MQTT 3.1.1 3.1.3)
        let flags = 0x04 | 0x02
        if (o.username) {
            flags = flags | 0x80
            payload = payload.concat(mqttString(o.username))
            if (o.password) {
                flags = flags | 0x40
                payload = payload.concat(mqttString(o.password))
            }
        }
        const header = mqttString("MQTT").concat(Buffer.from([4, flags, o.keepAliveSec >> 8, o.keepAliveSec & 255]))
        if (!(await write(this, mqttPacket(CONNECT << 4, header.concat(payload))))) return false
        const code = await ds.wait(this.answered, o.timeoutMs)
        if (code !== 0) {
            await lost(this, code === undefined ? "no CONNACK" : "connection refused, code " + code)
            return false
        }
        let subscription = Buffer.from([0, 1])
        for (let i = 0; i < o.topics.length; i++) subscription = subscription.concat(mqttString(o.topics[i])).concat(Buffer.from([0]))
        if (!(await write(this, mqttPacket((SUBSCRIBE << 4) | 2, subscription)))) return false
        if ((await ds.wait(this.answered, o.timeoutMs)) !== SUBACK) {
            await lost(this, "no SUBACK")
            return false
        }
        this.connected = true
        const pingMs = (o.keepAliveSec * 1000) / 3
        this.pinger = setInterval(async () => {
            // three pings unanswered: the broker (or the path to it) is gone
            if (ds.millis() - self.lastHeard > 3 * pingMs + 500) await lost(self, "broker silent")
            else await write(self, Buffer.from([PINGREQ << 4, 0]))
        }, pingMs)
        return true
    }

    /** One PUBLISH (QoS 0) in one write; false when not connected or the write failed. */
    async publish(topic: string, payload: Buffer): Promise<boolean> {
        if (!this.connected) return false
        return await write(this, mqttPacket(PUBLISH << 4, mqttString(topic).concat(payload)))
    }

    async close() {
        this.connected = false
        if (this.pinger) clearInterval(this.pinger)
        this.pinger = 0
        const s = this.socket
        this.socket = null
        if (s) await s.close()
    }

    /**
     * Reads every chunk the socket queues and parses the packets in it, in order. A method,
     * not a function like the other steps: the VM test drives it on a socket of its own.
     */
    private async readLoop(sock: Socket) {
        let pending = Buffer.alloc(0)
        for (;;) {
            let chunk: Buffer = null
            try {
                // a timeout now and then lets a replaced socket's reader end
                chunk = await sock.recv(1000)
            } catch (e) {
                if (this.socket === sock) await lost(this, "" + e)
                return
            }
            if (this.socket !== sock) return
            if (chunk === null) {
                await lost(this, "closed by the broker")
                return
            }
            if (chunk === undefined) continue
            this.lastHeard = ds.millis()
            pending = pending.length > 0 ? pending.concat(chunk) : chunk
            // packets are parsed where they lie; what is left of the chunk is copied once
            let start = 0
            for (;;) {
                // fixed header: type and flags, then 1..4 bytes of remaining length
                let length = 0
                let scale = 1
                let at = start + 1
                let complete = false
                while (at < pending.length && at <= start + 4) {
                    const b = pending[at++]
                    length += (b & 127) * scale
                    scale *= 128
                    if ((b & 128) === 0) {
                        complete = true
                        break
                    }
                }
                if (!complete) {
                    if (at > start + 4) {
                        await lost(this, "malformed packet length")
                        return
                    }
                    break
                }
                if (pending.length < at + length) break
                await handle(this, pending[start], pending.slice(at, at + length))
                start = at + length
                // the VM stops a program that runs too long without yielding: a few hundred
                // sealed frames published at once (a replay through the broker) did
                await ds.sleep(0)
            }
            pending = start > 0 ? pending.slice(start) : pending
        }
    }
}

async function write(link: MqttLink, bytes: Buffer): Promise<boolean> {
    const s = link.socket
    if (!s) return false
    try {
        await s.send(bytes)
        return true
    } catch (e) {
        await lost(link, "" + e)
        return false
    }
}

async function lost(link: MqttLink, why: string) {
    const was = link.socket !== null || link.connected
    await link.close()
    if (was) {
        if (link.onLost) await link.onLost(why)
    }
}

async function handle(link: MqttLink, first: number, body: Buffer) {
    const type = first >> 4
    if (type === CONNACK) link.answered.emit(body.length >= 2 ? body[1] : 255)
    else if (type === SUBACK) link.answered.emit(SUBACK)
    else if (type === PUBLISH && body.length >= 2) {
        const topicLength = (body[0] << 8) | body[1]
        // QoS 1 and 2 carry a packet id after the topic (we subscribe with QoS 0 only)
        const start = 2 + topicLength + (((first >> 1) & 3) > 0 ? 2 : 0)
        if (start > body.length) return
        const topic = body.slice(2, 2 + topicLength).toString()
        if (link.onMessage) {
            try {
                await link.onMessage(topic, body.slice(start))
            } catch (e) {
                console.log("EL err where=mqtt-message msg=" + e)
            }
        }
    }
    // PINGRESP and anything else: counted as heard in readLoop
}

