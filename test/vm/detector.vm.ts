// Runs inside the DeviceScript VM: `devs run test/vm/detector.vm.ts --test --test-self-exit`.
// The adaptive failure detector gives the same delays as in Node (test/failure-detector.test.ts).

import * as ds from "@devicescript/core"
import { describe, expect, test } from "@devicescript/test"
import { AdaptiveDetector } from "../../src/core/failure-detector"

/** A detector fed heartbeats `gaps` apart from time 1000, yielding now and then (the VM stops long loops). */
async function fed(gaps: number[], ceiling: number) {
    const d = new AdaptiveDetector(50, ceiling)
    let t = 1000
    d.heartbeat(t)
    for (let i = 0; i < gaps.length; i++) {
        t += gaps[i]
        d.heartbeat(t)
        if (i % 5 === 4) await ds.sleep(1)
    }
    return d
}

function repeat(gap: number, n: number): number[] {
    const out: number[] = []
    for (let i = 0; i < n; i++) out.push(gap)
    return out
}

function joined(lists: number[][]): number[] {
    const out: number[] = []
    lists.forEach((l) => l.forEach((x) => out.push(x)))
    return out
}

function alternating(a: number, b: number, n: number): number[] {
    const out: number[] = []
    for (let i = 0; i < n; i++) out.push(i % 2 ? a : b)
    return out
}

describe("adaptive failure detector in the VM", () => {
    test("too few samples: the ceiling", async () => {
        expect((await fed(repeat(50, 7), 250)).delay()).toBe(250)
    })
    test("clean series: 225 after 20 gaps, 175 after 64, 125 after 600", async () => {
        expect((await fed(repeat(50, 20), 250)).delay()).toBe(225)
        expect((await fed(repeat(50, 64), 250)).delay()).toBe(175)
        expect((await fed(repeat(50, 600), 250)).delay()).toBe(125)
    })
    test("jitter 40/60: 150", async () => {
        expect((await fed(joined([repeat(50, 600), alternating(40, 60, 64)]), 250)).delay()).toBe(150)
    })
    test("two lost heartbeats: 175", async () => {
        const gaps = joined([repeat(50, 600), repeat(50, 31), [100], repeat(50, 31), [100]])
        expect((await fed(gaps, 250)).delay()).toBe(175)
    })
    test("a late timer's period from the median: 167.5", async () => {
        expect((await fed(joined([repeat(60, 648), repeat(79, 16)]), 250)).delay()).toBe(167.5)
    })
    test("a pause remembered: 205; the ceiling caps: 120", async () => {
        expect((await fed(joined([repeat(50, 600), [180], repeat(50, 64)]), 250)).delay()).toBe(205)
        expect((await fed(repeat(50, 600), 120)).delay()).toBe(120)
    })
})

/** `count` heartbeats 50 apart numbered from 1, then `extra` as [gap, number] pairs (test/heartbeat-numbers.test.ts). */
async function numbered(count: number, extra: number[][]) {
    const d = new AdaptiveDetector(50, 250)
    let t = 1000
    for (let i = 1; i <= count; i++) {
        d.heartbeat(t, i)
        t += 50
        if (i % 5 === 4) await ds.sleep(1)
    }
    t -= 50
    for (let i = 0; i < extra.length; i++) {
        t += extra[i][0]
        d.heartbeat(t, extra[i][1])
    }
    return d
}

describe("numbered heartbeats in the VM", () => {
    test("a late heartbeat is jitter: 128.125, loss 0.5/602", async () => {
        const d = await numbered(601, [[95, 602]])
        expect(d.delay()).toBe(128.125)
        expect(d.lossRate()).toBe(0.5 / 602)
    })
    test("3 numbers ahead in 130 ms: 2 lost, 175", async () => {
        const d = await numbered(601, [[130, 604]])
        expect(d.lossRate()).toBe(2.5 / 604)
        expect(d.delay()).toBe(175)
    })
    test("a reordered older number is ignored, a restart from 1 is followed", async () => {
        expect((await numbered(601, [[100, 603], [5, 602], [95, 604]])).lossRate()).toBe(1.5 / 605)
        expect((await numbered(1001, [[95, 1], [95, 2]])).lossRate()).toBe(1.5 / 1004)
    })
})
