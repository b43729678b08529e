// Replays a golden scenario file (test/scenarios/*.txt) on the core's engine and compares
// what it prints with the file's expected output. Portable: the DeviceScript VM runs it
// (golden-1.vm.ts, golden-2.vm.ts) on data that generate-golden.ts makes from the files with the host's own
// parser and cluster resolver, so the VM checks the files themselves, line for line.

import { chartLine, formatStatus, formatSummary } from "../../src/core/chart"
import { Timing } from "../../src/core/contract"
import { createCluster } from "../../src/core/algorithms"
import { Engine, EngineOptions, IdealNetwork } from "../../src/core/engine"
import { summarize } from "../../src/core/summary"

/** One call the host's scenario runner made on its engine, or "status" (which reads the nodes). */
export interface EngineCall {
    method: string
    args: number[]
}

export interface GoldenBlock {
    /** 1-based line of the command in the file. */
    line: number
    command: string
    calls: EngineCall[]
    /** The file's expected output; null where the file gives none or the line is the host's (the cluster header). */
    expected: string[]
}

export interface GoldenScenario {
    file: string
    algorithm: number
    /** In ring order. */
    ids: number[]
    group: number
    timing: Timing
    neighbors: number[][]
    suitability: number[]
    seed: number
    messageBudget: number
    maxEventsPerInstant: number
    blocks: GoldenBlock[]
    /** The host engine's trace digest after the last block. */
    digest: number
}

/** Events per slice of a settle: the VM stops a fiber that runs long without yielding. */
const SLICE = 10

/** Runs a scenario's blocks one by one, yielding through `pause` between slices of work. */
export class GoldenRun {
    readonly engine: Engine
    private lines: string[] = []

    constructor(readonly scenario: GoldenScenario) {
        const options: EngineOptions = {
            algorithm: scenario.algorithm,
            ids: scenario.ids,
            group: scenario.group,
            timing: scenario.timing,
            network: new IdealNetwork(),
            neighbors: scenario.neighbors,
            suitability: scenario.suitability,
            seed: scenario.seed,
        }
        this.engine = new Engine(options, createCluster(options))
        this.engine.start()
        this.engine.messageBudget = scenario.messageBudget
        this.engine.maxEventsPerInstant = scenario.maxEventsPerInstant
        const lines = this.lines
        this.engine.tracer = record => {
            const line = chartLine(record)
            if (line !== null) lines.push(line)
        }
    }

    /** What block `b` printed. */
    async runBlock(b: GoldenBlock, pause: () => Promise<void>): Promise<string[]> {
        const engine = this.engine
        while (this.lines.length > 0) this.lines.pop()
        for (let c = 0; c < b.calls.length; c++) {
            const call = b.calls[c]
            const a = call.args
            const m = call.method
            if (m === "crash") engine.crash(a[0])
            else if (m === "recover") engine.recover(a[0])
            else if (m === "detect") engine.detect(a[0])
            else if (m === "scheduleCrash") engine.scheduleCrash(a[0], a[1])
            else if (m === "scheduleRecover") engine.scheduleRecover(a[0], a[1])
            else if (m === "scheduleDetect") engine.scheduleDetect(a[0], a[1])
            else if (m === "resetStats") engine.resetStats()
            else if (m === "summary") this.lines.push(formatSummary(summarize(engine)))
            else if (m === "status") for (let i = 0; i < engine.nodes.length; i++) this.lines.push(formatStatus(engine.nodes[i]))
            else if (m === "settle") {
                let left = a[0]
                let done = false
                while (!done && left > 0 && engine.stalled === "" && !engine.overBudget()) {
                    const slice = left < SLICE ? left : SLICE
                    done = engine.settle(slice)
                    left -= slice
                    await pause()
                }
                if (!done) this.lines.push("not settled: " + engine.stalled)
            } else throw new Error("golden runner: no engine call '" + m + "'")
        }
        return this.lines.slice(0)
    }
}

/** "" when `got` is `expected`, else where they part. */
export function firstDifference(where: string, expected: string[], got: string[]): string {
    const n = expected.length > got.length ? expected.length : got.length
    for (let i = 0; i < n; i++) {
        const e = i < expected.length ? expected[i] : "(nothing)"
        const g = i < got.length ? got[i] : "(nothing)"
        if (e !== g) return where + ", output line " + (i + 1) + ": expected '" + e + "', got '" + g + "'"
    }
    return ""
}

/** Runs every block; "" when all printed what the file expects and the digest is the host's. */
export async function checkGolden(scenario: GoldenScenario, pause: () => Promise<void>): Promise<string> {
    const run = new GoldenRun(scenario)
    for (let i = 0; i < scenario.blocks.length; i++) {
        const b = scenario.blocks[i]
        const got = await run.runBlock(b, pause)
        if (b.expected === null) continue
        const diff = firstDifference(scenario.file + ":" + b.line + " (" + b.command + ")", b.expected, got)
        if (diff !== "") return diff
    }
    if (run.engine.digest !== scenario.digest)
        return scenario.file + ": trace digest " + run.engine.digest + ", the host's " + scenario.digest
    return ""
}
