// Authenticated frames inside the DeviceScript VM: the same tags as Node (the runner compares
// the printed lines), drivers with a key, and the time to seal and open one frame.
// `devs run test/vm/auth.vm.ts --test --test-self-exit`.

import * as ds from "@devicescript/core"
import { describe, expect, test } from "@devicescript/test"
import { AuthRefusal, FrameAuth, parseKeyHex, proofWait, sealCopy } from "../../src/core/auth"
import { decodeFrame, encodeFrame } from "../../src/core/codec"
import { Algorithm, BROADCAST, Kind, makeFrame } from "../../src/core/frame"
import { Role } from "../../src/core/contract"
import { boardMac, boardRandom32 } from "../../src/firmware/crypto"
import { NodeDriver, peerUnreachable } from "../../src/firmware/driver"
import { boardPlatform } from "../../src/firmware/log"
import { settled } from "./settled.vm"
import { threeBoardConfig } from "./vm-config"
import { improvedBullyDescriptor } from "../../src/core/improved-bully"
import { authVectorLines, VECTOR_KEY } from "./auth-vectors"
import { MemoryBus, MemoryTransport } from "./memory-bus"

/** Control frames as the driver makes them on a board. */
const boardBytes = (n: number) => Buffer.alloc(n)

const WRONG_KEY = "ff0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"


describe("tags", () => {
    test("the VM prints the vectors (the runner compares them with Node's)", () => {
        const lines = authVectorLines(boardMac)
        for (let i = 0; i < lines.length; i++) console.log(lines[i])
        expect(lines[lines.length - 1]).toBe("ELECTLAB-AUTH released=1 refused=0")
    })

    test("sealing and opening many frames: every one accepted once", async () => {
        const key = parseKeyHex(VECTOR_KEY)
        const a = new FrameAuth(3, 1, boardMac(key), boardRandom32, boardBytes)
        const b = new FrameAuth(1, 1, boardMac(key), boardRandom32, boardBytes)
        const plain = encodeFrame(makeFrame(Kind.HEARTBEAT, Algorithm.ImprovedBully, 1, 5, 3, BROADCAST)).bytes
        const first = b.open(sealCopy(a, plain, 0), 0)
        b.open(a.open(first.reply, 0).reply, 0)
        let accepted = 0
        for (let chunk = 0; chunk < 20; chunk++) {
            for (let i = 0; i < 5; i++) {
                const sealed = Buffer.from(sealCopy(a, plain, chunk >> 1))
                accepted += b.open(sealed, chunk >> 1).frames.length
                // the same bytes again: a replay
                accepted += b.open(sealed, chunk >> 1).frames.length
            }
            await ds.sleep(1) // a long run without yielding panics (InfiniteLoop)
        }
        expect(accepted).toBe(100)
        expect(b.refused[AuthRefusal.Replay]).toBe(100)
        expect(decodeFrame(Buffer.from(plain)).error).toBe(0)
    })
})

describe("against replays", () => {
    test("a recorded challenge replayed 50 times gets one proof; the counter stays on the clock", async () => {
        const key = parseKeyHex(VECTOR_KEY)
        const a = new FrameAuth(3, 1, boardMac(key), boardRandom32, boardBytes)
        const b = new FrameAuth(1, 1, boardMac(key), boardRandom32, boardBytes)
        const plain = encodeFrame(makeFrame(Kind.HEARTBEAT, Algorithm.ImprovedBully, 1, 5, 3, BROADCAST)).bytes
        sealCopy(a, plain, 0)
        const hello = b.helloChallenge(10)
        let proofs = 0
        for (let i = 0; i < 50; i++) {
            if (a.open(hello, 10).reply) proofs++
            if (i % 10 === 9) await ds.sleep(1) // a long run without yielding panics (InfiniteLoop)
        }
        expect(proofs).toBe(1)
        expect(a.refused[AuthRefusal.Replay]).toBe(49)
        const sealed = sealCopy(a, plain, 20)
        // counter bytes right after the frame: 21 ms since a's first frame
        const at = plain.length
        expect(((sealed[at] * 256 + sealed[at + 1]) * 256 + sealed[at + 2]) * 256 + sealed[at + 3]).toBe(21)
    })
})

describe("a hint's check", () => {
    test("waits a few measured round trips: the same figures as in Node", () => {
        const key = parseKeyHex(VECTOR_KEY)
        const a = new FrameAuth(1, 1, boardMac(key), boardRandom32, boardBytes)
        const b = new FrameAuth(3, 1, boardMac(key), boardRandom32, boardBytes)
        expect(proofWait(a, 3, 200)).toBe(200)
        // first contact (not measured): b's frame held, b challenged, proven
        const plain = encodeFrame(makeFrame(Kind.HEARTBEAT, Algorithm.ImprovedBully, 1, 5, 3, BROADCAST)).bytes
        const first = a.open(sealCopy(b, plain, 0), 0)
        expect(a.open(b.open(first.reply, 0).reply, 0).frames.length).toBe(1)
        expect(proofWait(a, 3, 200)).toBe(200)
        // a round trip of 20 ms: 2·20 + 4·10
        expect(a.open(b.open(a.probe(3, 0), 10).reply, 20).refusal).toBe(AuthRefusal.None)
        expect(proofWait(a, 3, 200)).toBe(80)
        expect(proofWait(a, 3, 50)).toBe(50)
        // then 35 ms: SRTT 21.875, RTTVAR 11.25, 88.75 rounded up
        expect(a.open(b.open(a.probe(3, 1000), 1010).reply, 1035).refusal).toBe(AuthRefusal.None)
        expect(proofWait(a, 3, 200)).toBe(89)
    })
})

/** Boards 1, 2 and 3 with the key, improved Bully, started on one memory bus. */
async function threeBoardsWithAKey(): Promise<MemoryBus> {
    const bus = new MemoryBus()
    // every frame kept, for the replays
    bus.log = []
    for (let id = 1; id <= 3; id++) {
        const d = new NodeDriver(threeBoardConfig(id, VECTOR_KEY), [], boardPlatform, improvedBullyDescriptor)
        d.transport = new MemoryTransport(bus, id)
        bus.drivers.push(d)
    }
    for (let i = 0; i < 3; i++) await bus.drivers[i].start()
    return bus
}

describe("drivers with a key", () => {
    test("three boards fail over; a wrong-key board and replays change nothing", async () => {
        const bus = await threeBoardsWithAKey()
        // a loaded machine runs the VM's timers late: wait for each step, within a bound
        await settled(() => bus.drivers[0].coordinator() === 3, 2000)
        expect(bus.drivers[0].coordinator()).toBe(3)
        await bus.drivers[2].setCrashed(true)
        await settled(() => bus.drivers[0].coordinator() === 2 && bus.drivers[1].role() === Role.Coordinator, 3000)
        expect(bus.drivers[0].coordinator()).toBe(2)
        expect(bus.drivers[1].role()).toBe(Role.Coordinator)
        // everything sent so far, again: 3's old COORDINATOR and heartbeats among it
        const recorded = bus.log.slice(0)
        const before = bus.drivers[0].refusedTotal()
        for (let i = 0; i < recorded.length; i++) await bus.drivers[0].receive(recorded[i])
        expect(bus.drivers[0].refusedTotal() > before).toBe(true)
        expect(bus.drivers[0].auth.refused[AuthRefusal.Replay] > 0).toBe(true)
        expect(bus.drivers[0].coordinator()).toBe(2)
        // a wrong-key board claiming to be 3 and the coordinator
        const rogue = new FrameAuth(3, 1, boardMac(parseKeyHex(WRONG_KEY)), boardRandom32, boardBytes)
        const forged = encodeFrame(makeFrame(Kind.COORDINATOR, Algorithm.ImprovedBully, 1, 99, 3, BROADCAST)).bytes
        await bus.drivers[0].receive(Buffer.from(sealCopy(rogue, forged, 0)))
        await bus.drivers[0].receive(Buffer.from(forged))
        expect(bus.drivers[0].auth.refused[AuthRefusal.BadTag]).toBe(1)
        expect(bus.drivers[0].auth.refused[AuthRefusal.Unsigned]).toBe(1)
        expect(bus.drivers[0].coordinator()).toBe(2)
        expect(bus.drivers[0].errors).toBe(0)
        for (let i = 0; i < 3; i++) await bus.drivers[i].setCrashed(true)
    })

    test("a leave is checked: a live node's proof keeps it; a silent one is gone after the wait, or at once on the transport's word", async () => {
        const bus = await threeBoardsWithAKey()
        await settled(() => bus.drivers[0].coordinator() === 3 && bus.drivers[1].coordinator() === 3, 2000)
        // forged: 3 answers the challenge, nobody moves
        await bus.drivers[0].peerLeft(3)
        expect(bus.drivers[0].checking.length).toBe(1)
        await settled(() => bus.drivers[0].checking.length === 0, 1000)
        expect(bus.drivers[0].coordinator()).toBe(3)
        // 3 silent: the transport says nobody receives it, the check ends before its timer
        await bus.drivers[2].setCrashed(true)
        await bus.drivers[1].peerLeft(3)
        expect(bus.drivers[1].checking.length).toBe(1)
        await peerUnreachable(bus.drivers[1], 3)
        expect(bus.drivers[1].checking.length).toBe(0)
        expect(bus.drivers[1].checkEnds.length).toBe(0)
        expect(bus.drivers[1].role()).toBe(Role.Coordinator)
        await settled(() => bus.drivers[0].coordinator() === 2, 3000)
        expect(bus.drivers[0].coordinator()).toBe(2)
        expect(bus.drivers[1].errors).toBe(0)
        for (let i = 0; i < 3; i++) await bus.drivers[i].setCrashed(true)
    })

    test("a key that is not 64 hex digits makes the board misconfigured", async () => {
        const d = new NodeDriver(threeBoardConfig(1, "abc"), [], boardPlatform, improvedBullyDescriptor)
        await d.start()
        expect(d.role()).toBe(Role.Misconfigured)
    })
})
