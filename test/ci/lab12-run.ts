// Shared by the 12-board lab tests: one headless run of a script, as `electlab lab --headless`
// runs it, with the figures printed for the docs.
import { expect } from "vitest"
import { labOptions, type LabFlags, LabRunStopped, type LabSummary, runHeadless } from "../../sim/lab/command"
import { readLabScript } from "../../sim/lab/script"
import { heapBudgetOf, parseAlgorithm } from "../../src/core/algorithms"
import { ballastBytes } from "../../sim/lab/heap-size"
import { unexplainedOverlaps } from "../overlaps"

export const FAILOVER_10 = "sim/lab/scripts/failover-10.txt"
export const APPLICATION = "examples/sensor-summary/src/main.ts"

export async function runTwelve(flags: Partial<LabFlags>): Promise<LabSummary> {
  const options = labOptions({ boards: "12", loss: "0", delay: "0", seed: "1", transport: "bus", ...flags })
  let summary: LabSummary
  try {
    summary = await runHeadless(options, readLabScript(FAILOVER_10), FAILOVER_10, false)
  } catch (e) {
    // a run stopped by the script (no agreement in time, no coordinator to act on): the lab's
    // last events say why, and the log is all CI keeps
    if (e instanceof LabRunStopped) {
      const stalls = e.summary.transitions.filter((t) => t.stallMs > 0).map((t) => `${t.trigger}: ${t.stallMs} ms`)
      process.stdout.write(`12 boards, ${e.summary.algorithm} over ${e.summary.transport}, stopped: ${e.message}\n  longest stall per transition: ${stalls.join(", ") || "none"}\n  ${(e.summary.failed?.lastEvents ?? []).join("\n  ")}\n`)
    }
    throw e
  }
  const overlaps = summary.transitions.filter((t) => t.overlapMs > 0).map((t) => `${t.trigger}: ${t.overlapMs} ms (${t.reigns}; stalled: ${t.stalls || "none"})`)
  // a restart's own board stalls while it loads: not counted
  const longestStallMs = Math.max(0, ...summary.transitions.filter((t) => !t.trigger.startsWith("restart")).map((t) => t.stallMs))
  const heap = { peakBytes: summary.heap.peakBytes, node: summary.heap.node, withoutBallast: (summary.heap.peakBytes ?? 0) - ballastBytes(summary.ballastKb) }
  const figures = { algorithm: summary.algorithm, transport: summary.transport, ballastKb: summary.ballastKb, heap, timing: summary.timing, overlaps, longestStallMs, statsByTrigger: summary.statsByTrigger }
  process.stdout.write(`12 boards: ${JSON.stringify(figures)}\n`)
  return summary
}

/**
 * No board ran out of heap; every crash, recover, kill and restart of failover-10 ended in
 * agreement on the right board; never two coordinators at once (overlapMs 0) unless a process
 * of the lab stalled for half of T or more in that transition (test/overlaps.ts; each is printed).
 */
export function expectCleanFailovers(s: LabSummary) {
  expect(s.agreement).toBe(true)
  expect(s.coordinator).toBe(12)
  expect(s.boards.filter((b) => b.panics > 0).map((b) => `board ${b.node}: ${b.panics} panics`)).toEqual([])
  expect(s.panicNotes).toEqual([])
  expect(s.panics).toBe(0)
  expect(s.transitions.map((t) => t.trigger.split(" ")[0])).toEqual([
    ...Array(10).fill(["crash", "recover"]).flat(),
    ...Array(5).fill(["kill", "restart"]).flat(),
  ])
  for (const t of s.transitions) {
    expect(t.durationMs, t.trigger).not.toBeNull()
    expect(t.coordinatorAfter, t.trigger).toBe(/^(crash|kill)/.test(t.trigger) ? 11 : 12)
  }
  // named, so that a failure says which transition had two coordinators and what stalled
  expect(unexplainedOverlaps(s.transitions, s.timing.answerTimeout)).toEqual([])
}

/**
 * The fullest board's heap, less the ballast, stayed within the algorithm's budget (its
 * module's, heapBudgetOf): the heap the election takes cannot grow unnoticed.
 */
export function expectWithinHeapBudget(s: LabSummary) {
  const election = s.heap.peakBytes! - ballastBytes(s.ballastKb)
  expect(s.boards.every((b) => b.heapPeak !== null)).toBe(true)
  expect(election, `board ${s.heap.node}: ${JSON.stringify(s.heap.kinds)}`).toBeLessThanOrEqual(heapBudgetOf(parseAlgorithm(s.algorithm)))
}

/**
 * The example application kept its promise through it all: no board accepted an order older
 * than one it had accepted (staleAccepted 0), the followers took the coordinators' summaries,
 * and both coordinators (12, and 11 while 12 was down) gathered readings.
 */
export function expectApplicationFenced(s: LabSummary) {
  const app = s.app!
  const figures = JSON.stringify(app)
  expect(app.map((b) => b.node)).toEqual(Array.from({ length: 12 }, (_, i) => i + 1))
  for (const b of app) expect(b.staleAccepted, `board ${b.node}: ${figures}`).toBe(0)
  // 12 leads whenever it is up and takes over from 11 as soon as it is back: it may take none
  for (const b of app.filter((b) => b.node !== 12)) expect(b.accepted, `board ${b.node}: ${figures}`).toBeGreaterThan(0)
  for (const n of [11, 12]) expect(app.find((b) => b.node === n)!.received, figures).toBeGreaterThan(0)
}
