// Shared by the 12-board lab tests: one headless run of a script, as `electlab lab --headless`
// runs it, with the figures printed for the docs.
import { expect } from "vitest"
import { labOptions, type LabFlags, type LabSummary, runHeadless } from "../../sim/lab/command"
import { readLabScript } from "../../sim/lab/script"
import { unexplainedOverlaps } from "../overlaps"

export const FAILOVER_10 = "sim/lab/scripts/failover-10.txt"
/** KB of each board's heap the headroom runs hold back: the 16 KB the firmware keeps free at 12 boards. */
export const BALLAST_KB = 16
/**
 * T and T' of the runs with the ballast held: 500 and 1,000 ms instead of the boards' 200 and
 * 400. Twelve VMs that each hold 16 KB share this machine's two cores, and a VM now and then
 * stalls past T: boards 10 and 11 led together after a crash of 12 for 29 ms in one run at
 * T 200 and for 21 ms in one at T 300 (improved-bully lets 10 win only when 11 has not
 * answered within T; there 11 announced itself 256 ms late). These runs are about memory;
 * lab12.test.ts keeps the boards' own timing.
 */
export const BALLAST_TIMING = { answerTimeout: "500", coordinatorTimeout: "1000" }

export async function runTwelve(flags: Partial<LabFlags>): Promise<LabSummary> {
  const options = labOptions({ boards: "12", loss: "0", delay: "0", seed: "1", transport: "bus", ...flags })
  const summary = await runHeadless(options, readLabScript(FAILOVER_10), FAILOVER_10, false)
  const overlaps = summary.transitions.filter((t) => t.overlapMs > 0).map((t) => `${t.trigger}: ${t.overlapMs} ms (${t.reigns}; stalled: ${t.stalls || "none"})`)
  const longestStallMs = Math.max(0, ...summary.transitions.filter((t) => !t.trigger.startsWith("restart")).map((t) => t.stallMs))
  const figures = { transport: summary.transport, ballastKb: summary.ballastKb, detector: summary.timing.failureDetector, overlaps, longestStallMs, statsByTrigger: summary.statsByTrigger }
  process.stdout.write(`12 boards: ${JSON.stringify(figures)}\n`)
  return summary
}

/** No board ran out of heap, and every crash, recover, kill and restart of failover-10 ended in agreement on the right board. */
function expectFailoversWithoutPanic(s: LabSummary) {
  expect(s.agreement).toBe(true)
  expect(s.coordinator).toBe(12)
  expect(s.boards.filter((b) => b.panics > 0).map((b) => `board ${b.node}: ${b.panics} panics`)).toEqual([])
  expect(s.panics).toBe(0)
  expect(s.transitions.map((t) => t.trigger.split(" ")[0])).toEqual([
    ...Array(10).fill(["crash", "recover"]).flat(),
    ...Array(5).fill(["kill", "restart"]).flat(),
  ])
  for (const t of s.transitions) {
    expect(t.durationMs, t.trigger).not.toBeNull()
    expect(t.coordinatorAfter, t.trigger).toBe(/^(crash|kill)/.test(t.trigger) ? 11 : 12)
  }
}

/**
 * As above, and never two coordinators at once (overlapMs 0) unless a process of the lab
 * stalled for half of T or more in that transition (test/overlaps.ts; each is printed).
 */
export function expectCleanFailovers(s: LabSummary) {
  expectFailoversWithoutPanic(s)
  // named, so that a failure says which transition had two coordinators and what stalled
  expect(unexplainedOverlaps(s.transitions, s.timing.answerTimeout)).toEqual([])
}
