// Runs one campaign plan and judges it with the core's checker: the property at the end
// of the quiet phase, and no change during its last part. Also the shrinker: drop faults
// one at a time while the run still fails.

import type { Delivery } from "../config/input"
import { algorithmName } from "../../src/core/algorithms"
import { ScenarioRunner } from "../simulator/scenario"
import { makePlan, type Family, type Plan, planCommands } from "./plan"
import { lastChangeOf } from "../../src/core/summary"
import { TokenTally } from "./tokens"

export interface RunResult {
  seed: number
  pass: boolean
  violations: string[]
  /** From the end of the faults to the last change of any live process's state, ms (0 when it settled earlier). */
  convergence: number
  /** Election messages (heartbeats apart) over the whole run. */
  messages: number
  /** Most election messages in flight at once. */
  inFlight: number
  nodes: number
  faults: number
}

function execute(plan: Plan, faults: string[], runner: ScenarioRunner): string[] {
  const commands = planCommands(plan, faults)
  const out: string[] = []
  commands.forEach((command, i) => {
    for (const line of runner.runCommand(command, `${describePlan(plan)} command ${i + 1}`)) out.push(line)
  })
  return out
}

export function runPlan(plan: Plan, faults: string[] = plan.faults): RunResult {
  const runner = new ScenarioRunner("campaign", { quiet: true })
  const commands = planCommands(plan, faults)
  const ran = commands.slice(0, commands.indexOf(`run until=${plan.end}`) + 1)
  // the election API's fencing tokens, played on every role change
  const tokens = new TokenTally()
  ran.forEach((command, i) => {
    runner.runCommand(command, `${describePlan(plan)} command ${i + 1}`)
    if (i === 0) tokens.watch(runner.engine!)
  })
  const engine = runner.engine!
  runner.runCommand(`check stable-since=${plan.stableSince}`, `${describePlan(plan)} check`)
  const violations = [...(runner.lastCheck ?? [])]
  if (engine.maxInFlight > plan.inFlightBudget)
    violations.push(`message storm: ${engine.maxInFlight} election messages in flight at once, budget ${plan.inFlightBudget}`)
  tokens.judgeEnd(engine)
  const t = tokens.figures
  if (t.staleAccepted > 0) violations.push(`fencing: ${t.staleAccepted} orders accepted below a token accepted before`)
  if (t.endRefusedIssued > 0) violations.push(`fencing: ${t.endRefusedIssued} live followers refuse their coordinator's token at the end`)
  const last = lastChangeOf(engine)
  return {
    seed: plan.seed,
    pass: violations.length === 0,
    violations,
    convergence: Math.max(0, last - plan.faultEnd),
    messages: engine.traffic.messages,
    inFlight: engine.maxInFlight,
    nodes: plan.ids.length,
    faults: faults.length,
  }
}

export function runSeed(seed: number, algorithm: number, family: Family, detector = "fixed", delivery: Delivery = "destinations"): RunResult {
  return runPlan(makePlan(seed, algorithm, family, detector, delivery))
}

/** The failure's shape without its numbers, to group failures by mode. */
export function failureMode(violations: string[]): string {
  return violations
    .map((v) =>
      v
        .replace(/^node \d+ threw at t=[\d.]+: /, "exception: ")
        .replace(/t=[\d.]+/g, "t")
        .replace(/\d+(\.\d+)?/g, "N")
        .replace(/N(,N)+/g, "N"),
    )
    .join("; ")
}

/** Drops faults one at a time while the run still fails the same way (same failure mode); returns the faults left. */
export function shrink(plan: Plan): string[] {
  const mode = failureMode(runPlan(plan).violations)
  let faults = [...plan.faults]
  let changed = true
  while (changed) {
    changed = false
    for (let i = faults.length - 1; i >= 0; i--) {
      // The end of a fault is not a fault: dropping a heal would leave a partition for ever.
      if (/\b(heal|faults none)$/.test(faults[i])) continue
      const fewer = faults.filter((_, k) => k !== i)
      const r = runPlan(plan, fewer)
      if (!r.pass && failureMode(r.violations) === mode) {
        faults = fewer
        changed = true
      }
    }
  }
  return faults
}

export function describePlan(plan: Plan): string {
  return `seed ${plan.seed} ${algorithmName(plan.algorithm)} ${plan.family}`
}

/** The flags `--replay` needs besides the seed, the algorithm and the family (none for the defaults). */
function replayFlags(plan: Plan): string {
  return (plan.detector !== "fixed" ? ` --failure-detector ${plan.detector}` : "") + (plan.delivery !== "destinations" ? ` --delivery ${plan.delivery}` : "")
}

/** The run as a scenario file that `electlab sim --scenario FILE` replays to the same verdict. */
export function scenarioText(plan: Plan, faults: string[], violations: string[]): string {
  const header = [
    `# ${describePlan(plan)}: written by electlab campaign --write`,
    `# replay: electlab campaign --replay ${plan.seed} --algorithm ${algorithmName(plan.algorithm)} --family ${plan.family}${replayFlags(plan)}`,
    `# fails with: ${violations.join("; ") || "(passes)"}`,
    `# faults end at t=${plan.faultEnd}; nothing may change after t=${plan.stableSince}`,
  ]
  return header.join("\n") + "\n\n" + planCommands(plan, faults).join("\n") + "\n"
}

/** The schedule and the full trace (message chart) of one run. */
export function replay(plan: Plan, faults: string[] = plan.faults): string[] {
  const runner = new ScenarioRunner("replay")
  return [`# ${describePlan(plan)}`, ...planCommands(plan, faults).map((c) => `> ${c}`), "", ...execute(plan, faults, runner)]
}
