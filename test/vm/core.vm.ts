// Runs inside the DeviceScript VM: `devs run test/vm/core.vm.ts --test --test-self-exit`.
// The codec and the checker; the golden files replay in golden-1.vm.ts and golden-2.vm.ts.

import { describe, expect, test } from "@devicescript/test"
import { CodecError, decodeFrame, encodeFrame } from "../../src/core/codec"
import { Kind } from "../../src/core/frame"
import { mod } from "../../src/core/portable"
import { checkCluster } from "../../src/core/checker"
import { NO_NODE, Role } from "../../src/core/contract"

describe("codec in the VM", () => {
    test("u32 fields survive a round trip (the VM's % is wrong past int32)", () => {
        const enc = encodeFrame({
            kind: Kind.TABLE,
            algorithm: 2,
            group: 7,
            epoch: 4294967295,
            src: 65534,
            dst: 65535,
            initiator: 9,
            bid: 4000000001,
            seq: 65535,
            list: [1, 300, 65535],
        })
        expect(enc.error).toBe(CodecError.None)
        const dec = decodeFrame(enc.bytes)
        expect(dec.error).toBe(CodecError.None)
        expect(dec.frame.epoch).toBe(4294967295)
        expect(dec.frame.bid).toBe(4000000001)
        expect(dec.frame.src).toBe(65534)
        expect(dec.frame.list[2]).toBe(65535)
        expect(dec.frame.seq).toBe(65535)
    })
    test("a Buffer decodes like a number array", () => {
        const enc = encodeFrame({ kind: Kind.OK, algorithm: 1, group: 1, epoch: 3, src: 2, dst: 1, initiator: 0, bid: 0, seq: 0, list: [] })
        const dec = decodeFrame(Buffer.from(enc.bytes))
        expect(dec.error).toBe(CodecError.None)
        expect(dec.frame.kind).toBe(Kind.OK)
    })
    test("bad frames are rejected with a reason", () => {
        expect(decodeFrame([1, 2, 3]).error).toBe(CodecError.Short)
        const enc = encodeFrame({ kind: Kind.OK, algorithm: 1, group: 1, epoch: 3, src: 2, dst: 1, initiator: 0, bid: 0, seq: 0, list: [] })
        const bad = enc.bytes.slice(0)
        bad[1] = 99
        expect(decodeFrame(bad).error).toBe(CodecError.Kind)
    })
    test("mod is exact past int32", () => {
        expect(mod(62000000000, 1000)).toBe(0)
        expect(mod(4000000001, 256)).toBe(1)
    })
})

describe("the checker in the VM", () => {
    test("judges a cluster as in Node", () => {
        const ok = checkCluster([
            { id: 1, live: true, role: Role.Follower, coordinator: 3, epoch: 1, rank: 1 },
            { id: 2, live: false, role: Role.Crashed, coordinator: NO_NODE, epoch: 0, rank: 2 },
            { id: 3, live: true, role: Role.Coordinator, coordinator: 3, epoch: 1, rank: 3 },
        ])
        expect(ok.violations.length).toBe(0)
        expect(ok.coordinator).toBe(3)
        const bad = checkCluster([
            { id: 1, live: true, role: Role.Electing, coordinator: 2, epoch: 1, rank: 3 * 65536 + 1 },
            { id: 2, live: true, role: Role.Coordinator, coordinator: 2, epoch: 1, rank: 2 },
        ])
        expect(bad.violations.join("; ")).toBe(
            "coordinator 2 is not the highest-ranked live process 1; still electing: 1"
        )
    })
})
