// The seeds' worked examples as plain data, portable so that the DeviceScript VM test
// (core.vm.ts) and Node (run-vm-tests.js) run exactly the same steps through the same engine.

import { Engine, IdealNetwork } from "../../src/core/engine"
import { Algorithm } from "../../src/core/frame"
import { idealTiming } from "../../src/core/node"

export interface Step {
    /**
     * "crash", "recover", "detect" (ids at the current time), "settle", or
     * "crash-at" (ids[0] is the time, the rest crash then).
     */
    op: string
    ids: number[]
}

export interface Example {
    name: string
    algorithm: Algorithm
    /** In ring order. */
    ids: number[]
    steps: Step[]
    /** echo: neighbours aligned with ids. */
    neighbors?: number[][]
    /** bid-ring: suitability aligned with ids. */
    suitability?: number[]
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

/** Neighbours on an R x C grid filled row by row with ids 1..R*C. */
function grid(rows: number, cols: number): number[][] {
    const nb: number[][] = []
    for (let r = 0; r < rows; r++)
        for (let c = 0; c < cols; c++) {
            const list: number[] = []
            const id = r * cols + c + 1
            if (r > 0) list.push(id - cols)
            if (c > 0) list.push(id - 1)
            if (c + 1 < cols) list.push(id + 1)
            if (r + 1 < rows) list.push(id + cols)
            nb.push(list)
        }
    return nb
}

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
        {
            // test/scenarios/ring.txt
            name: "ring",
            algorithm: Algorithm.Ring,
            ids: ids(1, 6),
            steps: [s("crash", [6]), s("detect", [2]), SETTLE, s("recover", [6]), SETTLE],
        },
        {
            // test/scenarios/ring-concurrent.txt: Tanenbaum's figure, 2 and 5 notice
            name: "ring-concurrent",
            algorithm: Algorithm.Ring,
            ids: ids(0, 7),
            steps: [s("crash", [7]), s("detect", [2, 5]), SETTLE],
        },
        {
            // test/scenarios/active-list-ring.txt
            name: "active-list-ring",
            algorithm: Algorithm.ActiveListRing,
            ids: ids(1, 5),
            steps: [
                s("crash", [5]),
                s("detect", [2]),
                SETTLE,
                s("crash", [1]),
                s("recover", [1]),
                SETTLE,
                s("recover", [5]),
                SETTLE,
            ],
        },
        {
            // every process initiates, ids increasing: 2k ELECTION (k = 4; the dead coordinator's predecessor sends to it once)
            name: "bid-ring-increasing",
            algorithm: Algorithm.BidRing,
            ids: ids(1, 5),
            steps: [s("crash", [5]), s("detect", [1, 2, 3, 4]), SETTLE],
        },
        {
            // every process initiates, ids decreasing: k(k+1)/2 ELECTION (k = 4)
            name: "bid-ring-decreasing",
            algorithm: Algorithm.BidRing,
            ids: [4, 3, 2, 1, 5],
            steps: [s("crash", [5]), s("detect", [1, 2, 3, 4]), SETTLE],
        },
        {
            // a suitability prefix past int32 in the bid (the VM's % is wrong there)
            name: "bid-ring-suitability",
            algorithm: Algorithm.BidRing,
            ids: ids(1, 6),
            suitability: [0, 0, 40000, 0, 2, 0],
            steps: [s("crash", [6]), s("detect", [1]), SETTLE],
        },
        {
            // test/scenarios/bid-ring-lost-notice.txt
            name: "bid-ring-lost-notice",
            algorithm: Algorithm.BidRing,
            ids: ids(1, 6),
            steps: [s("crash", [6]), s("crash-at", [3, 4]), s("crash-at", [4, 3]), s("detect", [1]), SETTLE],
        },
        {
            // test/scenarios/echo.txt: 3x3 grid, the centre and the corner 9 down
            name: "echo-grid",
            algorithm: Algorithm.Echo,
            ids: ids(1, 9),
            neighbors: grid(3, 3),
            steps: [s("crash", [9, 5]), s("detect", [1]), SETTLE, s("recover", [9]), SETTLE],
        },
        {
            // test/scenarios/echo-concurrent.txt: three waves at once
            name: "echo-concurrent",
            algorithm: Algorithm.Echo,
            ids: ids(1, 6),
            neighbors: grid(2, 3),
            steps: [s("crash", [6]), s("detect", [1, 3, 4]), SETTLE],
        },
    ]
}

/**
 * One example, a step at a time, so that the VM can yield between steps and between
 * slices of a long settle (its watchdog stops a fiber that runs too long). Slicing a
 * settle changes nothing in the run: events run in the same order either way.
 */
export class ExampleRun {
    readonly engine: Engine
    readonly phases: PhaseResult[] = []
    private next = 0
    private settling = false

    constructor(readonly example: Example) {
        this.engine = new Engine({
            algorithm: example.algorithm,
            ids: example.ids,
            group: 1,
            timing: idealTiming(),
            network: new IdealNetwork(),
            neighbors: example.neighbors,
            suitability: example.suitability,
        })
        this.engine.start()
    }

    /** Runs at most `budget` events of the example. Returns true when it is over. */
    advance(budget: number): boolean {
        const engine = this.engine
        const steps = this.example.steps
        while (this.next < steps.length) {
            const step = steps[this.next]
            if (step.op === "settle") {
                if (!engine.settle(budget)) return false
                const sum = engine.summary()
                this.phases.push({
                    coordinator: sum.coordinator,
                    messages: sum.messages,
                    byKind: sum.byKind,
                    electionTime: sum.electionTime,
                    violations: sum.violations.length,
                })
                engine.resetStats()
                this.next++
                return this.next >= steps.length
            }
            if (step.op === "crash-at") {
                for (let j = 1; j < step.ids.length; j++) engine.scheduleCrash(step.ids[0], step.ids[j])
            } else {
                for (let j = 0; j < step.ids.length; j++) {
                    const id = step.ids[j]
                    if (step.op === "crash") engine.crash(id)
                    else if (step.op === "recover") engine.recover(id)
                    else if (step.op === "detect") engine.detect(id)
                }
            }
            this.next++
        }
        return true
    }

    result(): ExampleResult {
        return { name: this.example.name, phases: this.phases, digest: this.engine.digest }
    }
}

export function runExample(example: Example): ExampleResult {
    const run = new ExampleRun(example)
    while (!run.advance(1000000)) {}
    return run.result()
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
