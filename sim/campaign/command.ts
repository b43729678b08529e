// The `electlab campaign` command: flags checked by name, then a table, a replay or a file.

import { writeFileSync } from "node:fs"
import { ALGORITHMS } from "../../src/core/algorithms"
import { InputError, parseAlgorithmName, parseDelivery, parseDetectorName, parseInteger } from "../config/input"
import { formatCampaign, runCampaign } from "./campaign"
import { CAMPAIGN_FAMILIES, type Family, makePlan, TIMING_NAMES, type TimingName } from "./plan"
import { replay, runPlan, scenarioText, shrink } from "./run"

export interface CampaignFlags {
  algorithms?: string
  families?: string
  seeds: string
  seed: string
  workers?: string
  json?: boolean
  replay?: string
  algorithm?: string
  family?: string
  write?: string
  shrink: boolean
  failureDetector?: string
  delivery?: string
  timing?: string
}

export function parseCampaignFamilies(text: string, where: string): Family[] {
  return text.split(",").map((name) => {
    const f = name.trim()
    if (!(CAMPAIGN_FAMILIES as readonly string[]).includes(f))
      throw new InputError(`unknown family '${f}'; known: ${CAMPAIGN_FAMILIES.join(", ")}`, where)
    return f as Family
  })
}

export function parseTimingName(text: string, where: string): TimingName {
  if ((TIMING_NAMES as string[]).includes(text)) return text as TimingName
  throw new InputError(`unknown timing '${text}'; known: ${TIMING_NAMES.join(", ")}`, where)
}

export async function runCampaignCommand(flags: CampaignFlags): Promise<number> {
  const detector = flags.failureDetector !== undefined ? parseDetectorName(flags.failureDetector, "--failure-detector") : "fixed"
  const delivery = flags.delivery !== undefined ? parseDelivery(flags.delivery, "--delivery") : "destinations"
  const timing = flags.timing !== undefined ? parseTimingName(flags.timing, "--timing") : "wifi"
  if (flags.replay !== undefined || flags.write !== undefined) {
    if (flags.replay === undefined) throw new InputError("--write needs --replay SEED (the run to write)", "--write")
    if (!flags.algorithm || !flags.family)
      throw new InputError("--replay needs --algorithm NAME and --family NAME", "--replay")
    const seed = parseInteger(flags.replay, "--replay", 0, 2 ** 32 - 1)
    const plan = makePlan(seed, parseAlgorithmName(flags.algorithm, "--algorithm"), parseCampaignFamilies(flags.family, "--family")[0], detector, delivery, timing)
    const result = runPlan(plan)
    if (flags.write) {
      const faults = !result.pass && flags.shrink ? shrink(plan) : plan.faults
      const verdict = runPlan(plan, faults)
      writeFileSync(flags.write, scenarioText(plan, faults, verdict.violations))
      process.stdout.write(
        `wrote ${flags.write}: ${faults.length} of ${plan.faults.length} faults; ${verdict.pass ? "passes" : "fails with: " + verdict.violations.join("; ")}\n`,
      )
    } else process.stdout.write(replay(plan).join("\n") + "\n")
    return result.pass ? 0 : 3
  }
  for (const key of ["algorithm", "family"] as const)
    if (flags[key] !== undefined) throw new InputError(`--${key} goes with --replay; use --${key === "algorithm" ? "algorithms" : "families"} for a campaign`)
  const algorithms = flags.algorithms
    ? flags.algorithms.split(",").map((name) => parseAlgorithmName(name.trim(), "--algorithms"))
    : ALGORITHMS.map((d) => d.algorithm)
  const families = flags.families ? parseCampaignFamilies(flags.families, "--families") : [...CAMPAIGN_FAMILIES]
  const count = parseInteger(flags.seeds, "--seeds", 1, 1e9)
  const first = parseInteger(flags.seed, "--seed", 0, 2 ** 32 - 1 - count)
  const workers = flags.workers !== undefined ? parseInteger(flags.workers, "--workers", 1, 64) : undefined
  const report = await runCampaign(algorithms, families, first, count, workers, detector, delivery, timing)
  process.stdout.write((flags.json ? JSON.stringify(report, null, 2) : formatCampaign(report)) + "\n")
  return report.cells.every((c) => c.passed === c.runs) ? 0 : 3
}
