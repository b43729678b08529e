// The firmware's adapters inside the DeviceScript VM:
// `devs run test/vm/firmware.vm.ts --test --test-self-exit`.

import * as ds from "@devicescript/core"
import { describe, expect, test } from "@devicescript/test"
import { encodeFrame, parseHex } from "../../src/core/codec"
import { Algorithm, BROADCAST, Kind, makeFrame } from "../../src/core/frame"
import { Role } from "../../src/core/contract"
import { configProblems, nodeIdFromDeviceId, parseIdList } from "../../src/firmware/config"
import { NodeDriver } from "../../src/firmware/driver"
import { boardPlatform } from "../../src/firmware/log"
import { settled } from "./settled.vm"
import { threeBoardConfig } from "./vm-config"
import { ledColorAt, ledLook } from "../../src/firmware/led-scheme"
import { readFirmwareConfig } from "../../src/firmware/settings"
import { bullyDescriptor } from "../../src/core/bully"
import { improvedBullyDescriptor } from "../../src/core/improved-bully"
import { deleteSetting, writeSetting } from "@devicescript/settings"
import { randomBuffer } from "@devicescript/crypto"
import { MqttLink, mqttPacket, mqttString } from "../../src/firmware/mqtt-link"
import { MemoryBus, MemoryTransport } from "./memory-bus"


describe("config", () => {
    test("hex and device ids", () => {
        expect(parseHex("ff")).toBe(255)
        expect(parseHex("1E1EC7AB")).toBe(0x1e1ec7ab)
        expect(parseHex("xyz")).toBe(-1)
        expect(nodeIdFromDeviceId("e1ec7ab000000005")).toBe(5)
        expect(nodeIdFromDeviceId("e1ec7ab00000012c")).toBe(300)
    })
    test("id lists", () => {
        const ids = parseIdList("3, 1,x,2,3")
        expect(ids.length).toBe(3)
        expect(ids[0]).toBe(3)
        expect(ids[2]).toBe(2)
    })
    test("problems", () => {
        expect(configProblems(threeBoardConfig(2)).length).toBe(0)
        const bad = threeBoardConfig(9)
        expect(configProblems(bad).length).toBe(1)
        bad.timing.coordinatorTimeout = 10
        expect(configProblems(bad).length).toBe(2)
    })
})

describe("settings", () => {
    test("what `electlab settings` writes is what the board reads", async () => {
        await writeSetting("NODE_ID", "4")
        await writeSetting("NODE_IDS", "1,2,3,4,5")
        await writeSetting("ALGORITHM", "bully")
        await writeSetting("GROUP", 7)
        await writeSetting("HEARTBEAT_MS", "300")
        await writeSetting("FAIL_MS", 900)
        await writeSetting("BUTTON_PIN", "9")
        const problems: string[] = []
        const c = await readFirmwareConfig(bullyDescriptor, problems)
        expect(problems.length).toBe(0)
        expect(c.nodeId).toBe(4)
        expect(c.ids.length).toBe(5)
        expect(c.ids[4]).toBe(5)
        expect(c.algorithm).toBe(Algorithm.Bully)
        expect(c.group).toBe(7)
        expect(c.timing.heartbeatInterval).toBe(300)
        expect(c.timing.failureTimeout).toBe(900)
        expect(c.timing.answerTimeout).toBe(200)
        expect(c.buttonPin).toBe(9)
        expect(configProblems(c).length).toBe(0)
        // an image of another algorithm refuses, and says which one it runs
        const mismatch: string[] = []
        const other = await readFirmwareConfig(improvedBullyDescriptor, mismatch)
        expect(other.algorithm).toBe(Algorithm.ImprovedBully)
        expect(mismatch.length).toBe(1)
        expect(mismatch[0]).toBe("ALGORITHM is bully but this image runs improved-bully: flash the image for bully")
        await deleteSetting("NODE_ID")
        const fallback = await readFirmwareConfig(improvedBullyDescriptor, [])
        // test mode fixes the device id to 12abdd2289421234: its last four hex digits
        expect(fallback.nodeId).toBe(0x1234)
    })
})

describe("led scheme", () => {
    test("each role has its own colour", () => {
        expect(ledLook(Role.Coordinator).color).toBe(0x00ff00)
        expect(ledLook(Role.Crashed).color).toBe(0xff0000)
        expect(ledColorAt(Role.Coordinator, 5)).toBe(0x00ff00)
        expect(ledColorAt(Role.Follower, 0)).toBe(0x0000ff)
        expect(ledColorAt(Role.Follower, 9)).toBe(0)
        expect(ledColorAt(Role.Electing, 1)).toBe(0)
    })
})

describe("driver", () => {
    test("three drivers with real timers fail over when the coordinator crashes", async () => {
        const bus = new MemoryBus()
        for (let id = 1; id <= 3; id++) {
            const d = new NodeDriver(threeBoardConfig(id), [], boardPlatform, improvedBullyDescriptor)
            d.transport = new MemoryTransport(bus, id)
            bus.drivers.push(d)
        }
        for (let i = 0; i < 3; i++) await bus.drivers[i].start()
        // each step has a bound from the timing; a loaded machine runs the VM's timers late
        await settled(() => bus.drivers[0].coordinator() === 3 && bus.drivers[2].role() === Role.Coordinator, 2000)
        expect(bus.drivers[0].coordinator()).toBe(3)
        expect(bus.drivers[2].role()).toBe(Role.Coordinator)
        await bus.drivers[2].setCrashed(true)
        expect(bus.drivers[2].role()).toBe(Role.Crashed)
        await settled(() => bus.drivers[0].coordinator() === 2 && bus.drivers[1].role() === Role.Coordinator, 3000)
        expect(bus.drivers[0].coordinator()).toBe(2)
        expect(bus.drivers[1].role()).toBe(Role.Coordinator)
        await bus.drivers[2].setCrashed(false)
        await settled(() => bus.drivers[0].coordinator() === 3 && bus.drivers[1].coordinator() === 3 && bus.drivers[2].role() === Role.Coordinator, 2000)
        expect(bus.drivers[0].coordinator()).toBe(3)
        expect(bus.drivers[1].coordinator()).toBe(3)
        expect(bus.drivers[2].role()).toBe(Role.Coordinator)
        expect(bus.drivers[0].errors).toBe(0)
        await bus.drivers[0].setCrashed(true)
        await bus.drivers[1].setCrashed(true)
        await bus.drivers[2].setCrashed(true)
    })

    test("a malformed frame is dropped and counted, and the board carries on", async () => {
        const d = new NodeDriver(threeBoardConfig(1), [], boardPlatform, improvedBullyDescriptor)
        await d.start()
        await d.receive(Buffer.from([1, 2, 3]))
        await d.receive(Buffer.from([9, 1, 1, 1, 0, 0, 0, 0, 0, 2, 0, 1, 0, 0, 0, 0, 0, 0, 0]))
        expect(d.droppedTotal()).toBe(2)
        const ok = encodeFrame(makeFrame(Kind.COORDINATOR, Algorithm.ImprovedBully, 1, 1, 2, BROADCAST))
        await d.receive(Buffer.from(ok.bytes))
        expect(d.coordinator()).toBe(2)
        expect(d.framesReceived).toBe(1)
        expect(d.errors).toBe(0)
        await d.setCrashed(true)
    })

    test("a misconfigured board refuses to run and says so", async () => {
        const bad = threeBoardConfig(7)
        const d = new NodeDriver(bad, configProblems(bad), boardPlatform, improvedBullyDescriptor)
        await d.start()
        expect(d.role()).toBe(Role.Misconfigured)
    })

    test("a board whose configuration names another algorithm than its image's refuses", async () => {
        const d = new NodeDriver(threeBoardConfig(1), [], boardPlatform, bullyDescriptor)
        await d.start()
        expect(d.role()).toBe(Role.Misconfigured)
        expect(d.node).toBe(null)
    })

    test("a duplicate node id seen at run time stops the node", async () => {
        const d = new NodeDriver(threeBoardConfig(1), [], boardPlatform, improvedBullyDescriptor)
        await d.start()
        d.flagProblem("another board on the bus has node id 1")
        expect(d.role()).toBe(Role.Misconfigured)
    })
})

/** A socket with `count` copies of one packet waiting (handed out one by one), then closed. */
/** A socket whose reads return the given chunks in turn, then the broker's close. */
class ChunkSocket {
    constructor(public chunks: Buffer[]) {}
    async recv(timeout?: number): Promise<Buffer> {
        const c = this.chunks.shift()
        return c === undefined ? null : c
    }
    async close() {}
}

describe("mqtt link reading (in the VM)", () => {
    test("packets split across reads and several in one read come out whole and in order", async () => {
        const link = new MqttLink({ host: "", port: 0, clientId: "t", keepAliveSec: 3, willTopic: "w", willMessage: "", topics: [], timeoutMs: 100 })
        const got: string[] = []
        link.onMessage = async (topic: string, payload: Buffer) => {
            let sum = 0
            for (let i = 0; i < payload.length; i++) sum += payload[i]
            got.push(topic + ":" + payload.length + ":" + sum)
        }
        // five publishes, the last with a 200-byte payload (two length bytes), and a PINGRESP
        let stream = Buffer.alloc(0)
        const want: string[] = []
        for (let k = 1; k <= 5; k++) {
            const n = k === 5 ? 200 : k * 7
            const payload = Buffer.alloc(n)
            let sum = 0
            for (let i = 0; i < n; i++) {
                payload[i] = (i * k) & 255
                sum += payload[i]
            }
            stream = stream.concat(mqttPacket(0x30, mqttString("t/" + k).concat(payload)))
            want.push("t/" + k + ":" + n + ":" + sum)
            if (k === 2) stream = stream.concat(Buffer.from([0xd0, 0]))
        }
        // every read 7 bytes (a length field split too), then the same stream in one read
        const chunks: Buffer[] = []
        for (let at = 0; at < stream.length; at += 7) chunks.push(stream.slice(at, at + 7))
        chunks.push(stream)
        const sock = new ChunkSocket(chunks)
        ;(link as any).socket = sock
        await (link as any).readLoop(sock)
        expect(got.join(",")).toBe(want.join(",") + "," + want.join(","))
    })


    // a few hundred sealed frames published at once (a replay through the broker) made the VM
    // stop the board's program (InfiniteLoop): the reader never yielded between them
    test("a burst of 400 publishes waiting, each costly to handle, does not stop the program", async () => {
        const link = new MqttLink({ host: "", port: 0, clientId: "t", keepAliveSec: 3, willTopic: "w", willMessage: "", topics: [], timeoutMs: 100 })
        let handled = 0
        link.onMessage = async (topic: string, payload: Buffer) => {
            let x = 0
            for (let i = 0; i < 300; i++) x += payload[i % payload.length]
            handled++
        }
        const packet = mqttPacket(0x30, mqttString("electlab/1/all/frame").concat(Buffer.alloc(60)))
        const burst: Buffer[] = []
        for (let i = 0; i < 400; i++) burst.push(packet)
        const sock = new ChunkSocket(burst)
        ;(link as any).socket = sock
        await (link as any).readLoop(sock)
        expect(handled).toBe(400)
    })
})

describe("mqtt link encoding (in the VM)", () => {
    test("a string is two length bytes then UTF-8", () => {
        const s = mqttString("ab")
        expect(s.length).toBe(4)
        expect(s[0] * 256 + s[1]).toBe(2)
        expect(s[2]).toBe(97)
    })
    test("remaining length: one byte to 127, two from 128 (MQTT 3.1.1, 2.2.3)", () => {
        const small = mqttPacket(0x30, Buffer.alloc(127))
        expect(small.length).toBe(129)
        expect(small[1]).toBe(127)
        const large = mqttPacket(0x30, Buffer.alloc(321))
        expect(large.length).toBe(324)
        // 321 = 65 + 2 * 128
        expect(large[1]).toBe(65 + 128)
        expect(large[2]).toBe(2)
    })
    test("two crypto draws differ (the boot nonce's source)", () => {
        const a = randomBuffer(4)
        const b = randomBuffer(4)
        expect(a.toString("hex") === b.toString("hex")).toBe(false)
    })
})
