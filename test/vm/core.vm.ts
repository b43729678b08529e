// Runs inside the DeviceScript VM: `devs run test/vm/core.vm.ts --test --test-self-exit`.
// Asserts the seeds' figures on the in-VM ideal network and prints one result line per
// example, which run-vm-tests.js compares with Node's run of the same examples.

import { describe, expect, test } from "@devicescript/test"
import { CodecError, decodeFrame, encodeFrame } from "../../src/core/codec"
import { Kind } from "../../src/core/frame"
import { mod } from "../../src/core/portable"
import { resultLines, runExample, workedExamples } from "./worked-examples"

import * as ds from "@devicescript/core"
import { ExampleResult } from "./worked-examples"

// Each example runs once; the VM stops a fiber that runs too long without yielding
// ("InfiniteLoop"), so every test handles one example and sleeps before the next.
const results: ExampleResult[] = []

async function find(name: string) {
    for (let i = 0; i < results.length; i++) if (results[i].name === name) return results[i]
    const examples = workedExamples()
    for (let i = 0; i < examples.length; i++)
        if (examples[i].name === name) {
            await ds.sleep(1)
            const r = runExample(examples[i])
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
            version: 1,
            kind: Kind.TABLE,
            algorithm: 2,
            group: 7,
            epoch: 4294967295,
            src: 65534,
            dst: 65535,
            initiator: 9,
            bid: 4000000001,
            list: [1, 300, 65535],
        })
        expect(enc.error).toBe(CodecError.None)
        const dec = decodeFrame(enc.bytes)
        expect(dec.error).toBe(CodecError.None)
        expect(dec.frame.epoch).toBe(4294967295)
        expect(dec.frame.bid).toBe(4000000001)
        expect(dec.frame.src).toBe(65534)
        expect(dec.frame.list[2]).toBe(65535)
    })
    test("a Buffer decodes like a number array", () => {
        const enc = encodeFrame({ version: 1, kind: Kind.OK, algorithm: 1, group: 1, epoch: 3, src: 2, dst: 1, initiator: 0, bid: 0, list: [] })
        const dec = decodeFrame(Buffer.from(enc.bytes))
        expect(dec.error).toBe(CodecError.None)
        expect(dec.frame.kind).toBe(Kind.OK)
    })
    test("bad frames are rejected with a reason", () => {
        expect(decodeFrame([1, 2, 3]).error).toBe(CodecError.Short)
        const enc = encodeFrame({ version: 1, kind: Kind.OK, algorithm: 1, group: 1, epoch: 3, src: 2, dst: 1, initiator: 0, bid: 0, list: [] })
        const bad = enc.bytes.slice(0)
        bad[1] = 99
        expect(decodeFrame(bad).error).toBe(CodecError.Kind)
    })
    test("mod is exact past int32", () => {
        expect(mod(62000000000, 1000)).toBe(0)
        expect(mod(4000000001, 256)).toBe(1)
    })
})
