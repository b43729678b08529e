// Runs inside the DeviceScript VM: `devs run test/vm/core.vm.ts --test --test-self-exit`.
// Asserts the seeds' figures on the in-VM ideal network and prints one result line per
// example, which run-vm-tests.js compares with Node's run of the same examples.

import { describe, expect, test } from "@devicescript/test"
import { CodecError, decodeFrame, encodeFrame } from "../../src/core/codec"
import { Kind } from "../../src/core/frame"
import { mod } from "../../src/core/portable"
import { checkCluster } from "../../src/core/checker"
import { NO_NODE, Role } from "../../src/core/node"
import { ExampleRun, resultLines, workedExamples } from "./worked-examples"

import * as ds from "@devicescript/core"
import { ExampleResult } from "./worked-examples"

// Each example runs once; the VM stops a fiber that runs too long without yielding
// ("InfiniteLoop"), so an example runs a slice of events at a time and sleeps in between.
const results: ExampleResult[] = []

async function find(name: string) {
    for (let i = 0; i < results.length; i++) if (results[i].name === name) return results[i]
    const examples = workedExamples()
    for (let i = 0; i < examples.length; i++)
        if (examples[i].name === name) {
            // Ten events at a time, yielding in between: the VM under test runs with GC stress, and a slice of a few hundred events overran its time limit once every arm of a timer made a queue bucket.
            const run = new ExampleRun(examples[i])
            await ds.sleep(1)
            while (!run.advance(10)) await ds.sleep(1)
            const r = run.result()
            results.push(r)
            return r
        }
    return null
}

describe("worked examples in the VM", () => {
    test("Tanenbaum: 6 wins with 15 messages in 5 time units", async () => {
        const r = await find("tanenbaum-bully")
        const p = r.phases[0]
        expect(p.coordinator).toBe(6)
        expect(p.messages).toBe(15)
        expect(p.byKind[Kind.ELECTION]).toBe(6)
        expect(p.byKind[Kind.OK]).toBe(3)
        expect(p.byKind[Kind.COORDINATOR]).toBe(6)
        expect(p.electionTime).toBe(5)
        expect(p.violations).toBe(0)
    })
    test("Silberschatz: 3 wins, 3 wins again, then 4 bullies back", async () => {
        const r = await find("silberschatz-bully")
        expect(r.phases[0].coordinator).toBe(3)
        expect(r.phases[0].messages).toBe(6)
        expect(r.phases[1].coordinator).toBe(3)
        expect(r.phases[1].messages).toBe(11)
        expect(r.phases[2].coordinator).toBe(4)
        expect(r.phases[2].messages).toBe(3)
    })
    test("seed 004 with bully: 44 messages", async () => {
        const r = await find("paper004-bully")
        expect(r.phases[0].messages).toBe(44)
        expect(r.phases[0].coordinator).toBe(9)
    })
    test("seed 004 with improved bully: 10 messages", async () => {
        const improved = (await find("paper004-improved-bully")).phases[0]
        expect(improved.messages).toBe(10)
        expect(improved.coordinator).toBe(9)
    })
    test("seed 004, P9 down too: the cascade elects P8 with 10 messages", async () => {
        const r = (await find("paper004-improved-bully-cascade")).phases[0]
        expect(r.coordinator).toBe(8)
        expect(r.messages).toBe(10)
    })
    test("seed 004 recovery: 2 + (n-1) messages, twice", async () => {
        const r = await find("paper004-improved-bully-recovery")
        expect(r.phases[1].messages).toBe(11)
        expect(r.phases[2].messages).toBe(11)
        expect(r.phases[2].coordinator).toBe(10)
    })
    test("ring: ELECTION n, COORDINATOR n-1, ACK 2(n-1); the recovered 6 wins with n, n, 2n", async () => {
        const r = await find("ring")
        expect(r.phases[0].coordinator).toBe(5)
        expect(r.phases[0].byKind[Kind.ELECTION]).toBe(6)
        expect(r.phases[0].byKind[Kind.COORDINATOR]).toBe(5)
        expect(r.phases[0].byKind[Kind.ACK]).toBe(10)
        expect(r.phases[0].electionTime).toBe(12)
        expect(r.phases[1].coordinator).toBe(6)
        expect(r.phases[1].messages).toBe(24)
    })
    test("ring, Tanenbaum's 2 and 5 at once: every process hears COORDINATOR once", async () => {
        const p = (await find("ring-concurrent")).phases[0]
        expect(p.coordinator).toBe(6)
        expect(p.byKind[Kind.ELECTION]).toBe(15)
        expect(p.byKind[Kind.COORDINATOR]).toBe(7)
        expect(p.violations).toBe(0)
    })
    test("active-list ring: k^2 + (n-i) elect messages; inquiry; the recovered 5 takes over", async () => {
        const r = await find("active-list-ring")
        expect(r.phases[0].coordinator).toBe(4)
        expect(r.phases[0].byKind[Kind.ELECTION]).toBe(19)
        expect(r.phases[0].byKind[Kind.ACK]).toBe(16)
        expect(r.phases[1].byKind[Kind.INQUIRY]).toBe(3)
        expect(r.phases[1].byKind[Kind.COORDINATOR]).toBe(1)
        expect(r.phases[2].coordinator).toBe(5)
        expect(r.phases[2].byKind[Kind.ELECTION]).toBe(25)
    })
    test("bid ring, everybody initiating: 2k increasing, k(k+1)/2 + min(k, T) decreasing, the winner told once", async () => {
        const inc = (await find("bid-ring-increasing")).phases[0]
        expect(inc.byKind[Kind.ELECTION]).toBe(8)
        expect(inc.byKind[Kind.COORDINATOR]).toBe(4)
        const dec = (await find("bid-ring-decreasing")).phases[0]
        expect(dec.byKind[Kind.ELECTION]).toBe(13)
        expect(dec.byKind[Kind.COORDINATOR]).toBe(4)
        expect(dec.coordinator).toBe(4)
    })
    test("bid ring: a suitability past int32 wins; a lost notice is re-initiated", async () => {
        const p = (await find("bid-ring-suitability")).phases[0]
        expect(p.coordinator).toBe(3)
        expect(p.violations).toBe(0)
        const lost = (await find("bid-ring-lost-notice")).phases[0]
        expect(lost.coordinator).toBe(5)
        expect(lost.byKind[Kind.ELECTION]).toBe(9)
        expect(lost.electionTime).toBe(38)
    })
    test("echo on a grid round a crashed centre: 2E'-(m-1)+D ELECTION, m-1 ECHO and COORDINATOR", async () => {
        const r = await find("echo-grid")
        expect(r.phases[0].coordinator).toBe(8)
        expect(r.phases[0].byKind[Kind.ELECTION]).toBe(12)
        expect(r.phases[0].byKind[Kind.ECHO]).toBe(6)
        expect(r.phases[0].byKind[Kind.COORDINATOR]).toBe(6)
        expect(r.phases[0].byKind[Kind.ACK]).toBe(6)
        expect(r.phases[1].coordinator).toBe(9)
        const c = (await find("echo-concurrent")).phases[0]
        expect(c.coordinator).toBe(5)
        expect(c.byKind[Kind.COORDINATOR]).toBe(4)
    })
    test("result lines for the Node comparison", async () => {
        const examples = workedExamples()
        for (let i = 0; i < examples.length; i++) {
            const lines = resultLines(await find(examples[i].name))
            for (let j = 0; j < lines.length; j++) console.log(lines[j])
        }
    })
})

describe("codec in the VM", () => {
    test("u32 fields survive a round trip (the VM's % is wrong past int32)", () => {
        const enc = encodeFrame({
            version: 2,
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
        const enc = encodeFrame({ version: 2, kind: Kind.OK, algorithm: 1, group: 1, epoch: 3, src: 2, dst: 1, initiator: 0, bid: 0, seq: 0, list: [] })
        const dec = decodeFrame(Buffer.from(enc.bytes))
        expect(dec.error).toBe(CodecError.None)
        expect(dec.frame.kind).toBe(Kind.OK)
    })
    test("bad frames are rejected with a reason", () => {
        expect(decodeFrame([1, 2, 3]).error).toBe(CodecError.Short)
        const enc = encodeFrame({ version: 2, kind: Kind.OK, algorithm: 1, group: 1, epoch: 3, src: 2, dst: 1, initiator: 0, bid: 0, seq: 0, list: [] })
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
