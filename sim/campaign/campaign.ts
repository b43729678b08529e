// `electlab campaign`: many seeded runs per algorithm and fault family, judged by the
// core's checker; a table of pass rates, convergence times and messages. Seeds are split
// over worker processes (one per core by default); every run is decided by its seed alone,
// so the table is the same whatever the number of workers.

import type { Delivery } from "../config/input"
import { spawn } from "node:child_process"
import { availableParallelism } from "node:os"
import { join } from "node:path"
import { performance } from "node:perf_hooks"
import { algorithmName } from "../../src/core/algorithms"
import { CAMPAIGN_FAMILIES, type Family, makePlan, type TimingName } from "./plan"
import { failureMode, runSeed } from "./run"

/** Failing seeds kept per cell and failure mode (the smallest clusters and fewest faults first). */
const EXAMPLES_PER_MODE = 5

export interface CellResult {
  algorithm: string
  family: Family
  runs: number
  passed: number
  /** Convergence of passing runs, ms: mean and largest. */
  convergenceMean: number
  convergenceMax: number
  /** Most election messages in flight at once, over n², largest of the cell. */
  inFlightMax: number
  /** Longest a frame the faults delayed landed after them, ms (the quiet phase starts then). */
  heldMax: number
  /** Election messages per run, mean. */
  messagesMean: number
  /** Failure modes, most frequent first, with example seeds. */
  failures: { mode: string; count: number; seeds: number[] }[]
}

export interface CampaignReport {
  seeds: { first: number; count: number }
  /** The failure detector and the boards' timing every run used. */
  detector: string
  timing: TimingName
  runs: number
  seconds: number
  runsPerSecond: number
  workers: number
  cells: CellResult[]
}

interface CellAccumulator {
  runs: number
  passed: number
  convergenceSum: number
  convergenceMax: number
  inFlightMax: number
  heldMax: number
  messagesSum: number
  modes: Record<string, { count: number; examples: { seed: number; size: number }[] }>
}

function emptyCell(): CellAccumulator {
  return { runs: 0, passed: 0, convergenceSum: 0, convergenceMax: 0, inFlightMax: 0, heldMax: 0, messagesSum: 0, modes: {} }
}

export interface CampaignJob {
  algorithms: number[]
  families: Family[]
  first: number
  count: number
  /** The failure detector: "fixed" (the failure timeout) or "adaptive". */
  detector?: string
  /** How a frame for several processes travels (sim/config/input.ts). */
  delivery?: Delivery
  /** The boards' timing (sim/campaign/plan.ts). */
  timing?: TimingName
}

/** Runs seeds first..first+count-1 of every cell in this process. */
export function runCells(job: CampaignJob): Record<string, CellAccumulator> {
  const cells: Record<string, CellAccumulator> = {}
  for (const algorithm of job.algorithms)
    for (const family of job.families) {
      const cell = emptyCell()
      for (let seed = job.first; seed < job.first + job.count; seed++) {
        const r = runSeed(seed, algorithm, family, job.detector, job.delivery, job.timing)
        cell.runs++
        cell.messagesSum += r.messages
        cell.inFlightMax = Math.max(cell.inFlightMax, r.inFlight / (r.nodes * r.nodes))
        cell.heldMax = Math.max(cell.heldMax, r.heldAfterFaults)
        if (r.pass) {
          cell.passed++
          cell.convergenceSum += r.convergence
          cell.convergenceMax = Math.max(cell.convergenceMax, r.convergence)
        } else {
          const mode = failureMode(r.violations)
          const m = (cell.modes[mode] ??= { count: 0, examples: [] })
          m.count++
          m.examples.push({ seed, size: r.nodes * 100 + r.faults })
          m.examples.sort((a, b) => a.size - b.size || a.seed - b.seed)
          if (m.examples.length > EXAMPLES_PER_MODE) m.examples.pop()
        }
      }
      cells[`${algorithm}/${family}`] = cell
    }
  return cells
}

function merge(into: Record<string, CellAccumulator>, from: Record<string, CellAccumulator>) {
  for (const [key, c] of Object.entries(from)) {
    const a = (into[key] ??= emptyCell())
    a.runs += c.runs
    a.passed += c.passed
    a.convergenceSum += c.convergenceSum
    a.convergenceMax = Math.max(a.convergenceMax, c.convergenceMax)
    a.inFlightMax = Math.max(a.inFlightMax, c.inFlightMax)
    a.heldMax = Math.max(a.heldMax, c.heldMax)
    a.messagesSum += c.messagesSum
    for (const [mode, m] of Object.entries(c.modes)) {
      const am = (a.modes[mode] ??= { count: 0, examples: [] })
      am.count += m.count
      am.examples.push(...m.examples)
      am.examples.sort((x, y) => x.size - y.size || x.seed - y.seed)
      am.examples.splice(EXAMPLES_PER_MODE)
    }
  }
}

function runWorker(job: CampaignJob): Promise<Record<string, CellAccumulator>> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", join(import.meta.dirname, "worker.ts"), JSON.stringify(job)], {
      cwd: join(import.meta.dirname, "..", ".."),
      stdio: ["ignore", "pipe", "inherit"],
    })
    let out = ""
    child.stdout.setEncoding("utf8")
    child.stdout.on("data", (chunk: string) => (out += chunk))
    child.on("error", reject)
    child.on("close", (code) => {
      if (code !== 0) reject(new Error(`campaign worker exited with code ${code}`))
      else resolve(JSON.parse(out))
    })
  })
}

export async function runCampaign(
  algorithms: number[],
  families: Family[],
  first: number,
  count: number,
  workers = availableParallelism(),
  detector = "fixed",
  delivery: Delivery = "destinations",
  timing: TimingName = "wifi",
): Promise<CampaignReport> {
  const t0 = performance.now()
  const all: Record<string, CellAccumulator> = {}
  const jobs = Math.max(1, Math.min(workers, count))
  if (jobs === 1) merge(all, runCells({ algorithms, families, first, count, detector, delivery, timing }))
  else {
    const parts: Promise<Record<string, CellAccumulator>>[] = []
    const per = Math.ceil(count / jobs)
    for (let s = first; s < first + count; s += per)
      parts.push(runWorker({ algorithms, families, first: s, count: Math.min(per, first + count - s), detector, delivery, timing }))
    for (const part of await Promise.all(parts)) merge(all, part)
  }
  const seconds = (performance.now() - t0) / 1000
  const cells: CellResult[] = []
  for (const algorithm of algorithms)
    for (const family of families) {
      const c = all[`${algorithm}/${family}`]
      cells.push({
        algorithm: algorithmName(algorithm),
        family,
        runs: c.runs,
        passed: c.passed,
        convergenceMean: c.passed ? Math.round(c.convergenceSum / c.passed) : 0,
        convergenceMax: Math.round(c.convergenceMax),
        inFlightMax: Math.round(c.inFlightMax * 100) / 100,
        heldMax: Math.round(c.heldMax),
        messagesMean: Math.round(c.messagesSum / c.runs),
        failures: Object.entries(c.modes)
          .sort((a, b) => b[1].count - a[1].count)
          .map(([mode, m]) => ({ mode, count: m.count, seeds: m.examples.map((e) => e.seed) })),
      })
    }
  const runs = cells.reduce((s, c) => s + c.runs, 0)
  return {
    seeds: { first, count },
    detector,
    timing,
    runs,
    seconds: Math.round(seconds * 10) / 10,
    runsPerSecond: Math.round(runs / seconds),
    workers: jobs,
    cells,
  }
}

function percent(passed: number, runs: number): string {
  const p = (100 * passed) / runs
  return p === 100 ? "100 %" : `${p >= 99.95 ? p.toFixed(2) : p.toFixed(1)} %`
}

/** Pass rates as a Markdown table (algorithm × family), then convergence and messages, then failures. */
export function formatCampaign(report: CampaignReport): string {
  const families = [...new Set(report.cells.map((c) => c.family))]
  const algorithms = [...new Set(report.cells.map((c) => c.algorithm))]
  const cell = (a: string, f: string) => report.cells.find((c) => c.algorithm === a && c.family === f)!
  const lines: string[] = []
  lines.push(
    `${report.runs} runs (seeds ${report.seeds.first}..${report.seeds.first + report.seeds.count - 1} per cell; ${report.timing} timing, ${report.detector} detector) in ${report.seconds} s, ${report.runsPerSecond} runs/s on ${report.workers} worker(s)`,
    "",
    "pass rate (every live process names the highest-ranked live process, one coordinator, nobody electing, and it stays so):",
    "",
    `| algorithm | ${families.join(" | ")} |`,
    `|---|${families.map(() => "---|").join("")}`,
  )
  for (const a of algorithms) lines.push(`| ${a} | ${families.map((f) => percent(cell(a, f).passed, cell(a, f).runs)).join(" | ")} |`)
  lines.push(
    "",
    `convergence once the network is quiet (the faults over and the last frame they delayed landed, up to ${Math.max(...report.cells.map((c) => c.heldMax))} ms after them), mean / max ms (passing runs) · election messages per run, mean · most in flight at once, over n²:`,
    "",
  )
  lines.push(`| algorithm | ${families.join(" | ")} |`, `|---|${families.map(() => "---|").join("")}`)
  for (const a of algorithms)
    lines.push(
      `| ${a} | ${families
        .map((f) => {
          const c = cell(a, f)
          return `${c.convergenceMean} / ${c.convergenceMax} · ${c.messagesMean} · ${c.inFlightMax}`
        })
        .join(" | ")} |`,
    )
  const failing = report.cells.filter((c) => c.failures.length)
  if (failing.length) {
    lines.push("", "failures by mode (smallest runs first; replay with --replay SEED --algorithm A --family F):")
    for (const c of failing) {
      lines.push(`  ${c.algorithm} × ${c.family}: ${c.runs - c.passed} of ${c.runs}`)
      for (const f of c.failures) lines.push(`    ${f.count}× ${f.mode}  — seeds ${f.seeds.join(", ")}`)
    }
  }
  return lines.join("\n")
}

export { CAMPAIGN_FAMILIES, makePlan }
