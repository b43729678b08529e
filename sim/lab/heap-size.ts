// `electlab size --heap`: the heap a board's program holds at its peak, per algorithm and
// transport, measured in the virtual lab: every board's VM is read after each collection
// (sim/lab/vm-heap.cjs), while the boards run a script that passes through every kind of
// transition once. docs/image-size.md, "Heap".

import { algorithmName, heapBudgetOf, parseAlgorithm } from "../../src/core/algorithms"
import { InputError } from "../config/input"
import { labOptions, type LabSummary, runHeadless, VM_HEAP_BYTES } from "./command"
import type { HeapKinds } from "./board-state"
import { parseLabScript } from "./script"
import { sizeOptions, type SizeFlags } from "./image-size"

/**
 * Heap the lab's ballast takes (`--ballast-kb`): a 1 KB Buffer per KB (its block 12 bytes
 * more) in an array grown by pushes (8 bytes a slot, a quarter spare).
 */
export function ballastBytes(kb: number): number {
    if (kb === 0) return 0
    return kb * (1024 + 12) + 20 + 8 * Math.ceil(kb * 1.25)
}

/** Each transition once: the coordinator crashed and recovered, then powered off and on. */
export const EACH_TRANSITION_ONCE = `crash coordinator
wait-agreement
sleep 700
recover crashed
wait-agreement
sleep 700
kill coordinator
wait-agreement
sleep 700
restart killed
wait-agreement
sleep 700
`

export interface HeapFigures {
  algorithm: string
  transport: "bus" | "mqtt"
  boards: number
  /** The fullest board's peak (bytes) and its node id. */
  peakBytes: number
  node: number
  /** The median of the boards' peaks. */
  medianBytes: number
  /** What the fullest board held at its peak, by kind of block. */
  kinds: HeapKinds
  /** The VM's heap less that peak. */
  leftBytes: number
  /** The most the algorithm's module allows at 12 boards (heapBudgetOf). */
  budgetBytes: number
}

export interface HeapFlags extends SizeFlags {
  /** Both transports unless --transport was given. */
  transportGiven: boolean
}

/** One headless lab run per algorithm and transport; the figures of each. */
export async function measureHeap(flags: HeapFlags, report: (line: string) => void): Promise<HeapFigures[]> {
  const transports = flags.transportGiven ? [flags.transport] : ["bus", "mqtt"]
  const steps = parseLabScript(EACH_TRANSITION_ONCE, "each transition once")
  const out: HeapFigures[] = []
  for (const size of sizeOptions(flags)) {
    const name = algorithmName(size.algorithm)
    for (const transport of transports) {
      const options = labOptions({
        boards: String(size.boards),
        algorithm: name,
        transport,
        loss: "0",
        delay: "0",
        seed: "1",
        auth: size.key,
        program: flags.program,
        failureDetector: size.failureDetector,
        answerTimeout: "300",
        coordinatorTimeout: "600",
        ballastKb: String(size.ballastKb),
      })
      const summary = await runHeadless(options, steps, "each transition once", false).catch((e: Error) => {
        throw new InputError(`${name} over ${transport}: ${e.message}`, "size --heap")
      })
      const figures = heapFigures(summary, size.boards)
      out.push(figures)
      report(formatHeapRow(figures))
    }
  }
  return out
}

function heapFigures(s: LabSummary, boards: number): HeapFigures {
  const peaks = s.boards.map((b) => b.heapPeak).filter((p) => p !== null).sort((a, b) => a - b)
  if (peaks.length === 0 || s.heap.peakBytes === null) throw new InputError("no board's heap could be read from its VM", "size --heap")
  return {
    algorithm: s.algorithm,
    transport: s.transport,
    boards,
    peakBytes: s.heap.peakBytes,
    node: s.heap.node,
    medianBytes: peaks[Math.floor((peaks.length - 1) / 2)],
    kinds: s.heap.kinds ?? {},
    leftBytes: VM_HEAP_BYTES - s.heap.peakBytes,
    budgetBytes: heapBudgetOf(parseAlgorithm(s.algorithm)),
  }
}

const kb = (bytes: number) => (bytes / 1024).toFixed(1) + " KB"

export const HEAP_HEADER = "algorithm          transport  boards  fullest board      median board  left of 64 KB  budget"

export function formatHeapRow(f: HeapFigures): string {
  const over = f.peakBytes > f.budgetBytes ? " (over)" : ""
  return (
    `${f.algorithm.padEnd(18)} ${f.transport.padEnd(9)}  ${String(f.boards).padStart(6)}  ${`${kb(f.peakBytes)} (${f.node})`.padEnd(17)}  ` +
    `${kb(f.medianBytes).padStart(12)}  ${kb(f.leftBytes).padStart(13)}  ${kb(f.budgetBytes)}${over}`
  )
}

/** `electlab size --heap`: 0 when every algorithm measured stays within its budget, 3 otherwise. */
export async function runHeapCommand(flags: HeapFlags): Promise<number> {
  if (!flags.json) {
    process.stdout.write("the most heap a board's program held after a collection (the election, the runtime and the program)\n")
    process.stdout.write(HEAP_HEADER + "\n")
  }
  const rows = await measureHeap(flags, (line) => {
    if (!flags.json) process.stdout.write(line + "\n")
  })
  if (flags.json) process.stdout.write(JSON.stringify(flags.algorithm && flags.transportGiven ? rows[0] : rows, null, 2) + "\n")
  return rows.every((r) => r.peakBytes <= r.budgetBytes) ? 0 : 3
}
