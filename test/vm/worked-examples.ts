// The seeds' worked examples as plain data, portable so that the DeviceScript VM test
// (core.vm.ts) and Node (run-vm-tests.js) run exactly the same steps through the same engine.

import { Engine, IdealNetwork } from "../../src/core/engine"
import { Algorithm } from "../../src/core/frame"
import { idealTiming } from "../../src/core/node"

export interface Step {
    /** "crash", "recover", "detect" (ids at the current time) or "settle". */
    op: string
    ids: number[]
}

export interface Example {
    name: string
    algorithm: Algorithm
    ids: number[]
    steps: Step[]
}

/** One phase's outcome: what a `summary` reports after each settle. */
export interface PhaseResult {
    coordinator: number
    messages: number
    byKind: number[]
    electionTime: number
    violations: number
}

export interface ExampleResult {
    name: string
    phases: PhaseResult[]
    digest: number
}

function ids(lo: number, hi: number): number[] {
    const out: number[] = []
    for (let i = lo; i <= hi; i++) out.push(i)
    return out
}

function s(op: string, list: number[]): Step {
    return { op: op, ids: list }
}

const SETTLE = s("settle", [])

export function workedExamples(): Example[] {
    return [
        {
            name: "tanenbaum-bully",
            algorithm: Algorithm.Bully,
            ids: ids(0, 7),
            steps: [s("crash", [7]), s("detect", [4]), SETTLE],
        },
        {
            name: "silberschatz-bully",
            algorithm: Algorithm.Bully,
            ids: ids(1, 4),
            steps: [
                s("crash", [1, 4]),
                s("detect", [2]),
                SETTLE,
                s("recover", [1]),
                SETTLE,
                s("recover", [4]),
                SETTLE,
            ],
        },
        {
            name: "paper004-bully",
            algorithm: Algorithm.Bully,
            ids: ids(1, 10),
            steps: [s("crash", [10]), s("detect", [4]), SETTLE],
        },
        {
            name: "paper004-improved-bully",
            algorithm: Algorithm.ImprovedBully,
            ids: ids(1, 10),
            steps: [s("crash", [10]), s("detect", [4]), SETTLE],
        },
        {
            name: "paper004-improved-bully-cascade",
            algorithm: Algorithm.ImprovedBully,
            ids: ids(1, 10),
            steps: [s("crash", [9, 10]), s("detect", [4]), SETTLE],
        },
        {
            name: "paper004-improved-bully-recovery",
            algorithm: Algorithm.ImprovedBully,
            ids: ids(1, 10),
            steps: [
                s("crash", [1, 10]),
                s("detect", [4]),
                SETTLE,
                s("recover", [1]),
                SETTLE,
                s("recover", [10]),
                SETTLE,
            ],
        },
    ]
}

export function runExample(example: Example): ExampleResult {
    const engine = new Engine({
        algorithm: example.algorithm,
        ids: example.ids,
        group: 1,
        timing: idealTiming(),
        network: new IdealNetwork(),
    })
    engine.start()
    const phases: PhaseResult[] = []
    for (let i = 0; i < example.steps.length; i++) {
        const step = example.steps[i]
        if (step.op === "settle") {
            engine.settle(1000000)
            const sum = engine.summary()
            phases.push({
                coordinator: sum.coordinator,
                messages: sum.messages,
                byKind: sum.byKind,
                electionTime: sum.electionTime,
                violations: sum.violations.length,
            })
            engine.resetStats()
        } else {
            for (let j = 0; j < step.ids.length; j++) {
                const id = step.ids[j]
                if (step.op === "crash") engine.crash(id)
                else if (step.op === "recover") engine.recover(id)
                else if (step.op === "detect") engine.detect(id)
            }
        }
    }
    return { name: example.name, phases: phases, digest: engine.digest }
}

/**
 * Short lines (the VM's log cuts long ones): one per phase, then the trace digest.
 * Identical in Node and in the VM when they behave alike.
 */
export function resultLines(r: ExampleResult): string[] {
    const lines: string[] = []
    for (let i = 0; i < r.phases.length; i++) {
        const p = r.phases[i]
        lines.push(
            "ELECTLAB-PHASE " + r.name + " " + i + " coordinator=" + p.coordinator +
                " messages=" + p.messages + " kinds=" + p.byKind.join(".") +
                " time=" + p.electionTime + " violations=" + p.violations
        )
    }
    lines.push("ELECTLAB-DIGEST " + r.name + " " + r.digest)
    return lines
}
