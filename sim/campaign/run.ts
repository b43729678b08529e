// Runs one campaign plan and judges it with the core's checker: the property at the end
// of the quiet phase, and no change during its last part. Also the shrinker: drop faults
// one at a time while the run still fails.

import type { Delivery } from "../config/input"
import { algorithmName } from "../../src/core/algorithms"
import { ScenarioRunner } from "../simulator/scenario"
import { faultCommands, judgeCommands, makePlan, type Family, type Plan, type TimingName } from "./plan"
import { lastChangeOf } from "../../src/core/summary"
import { TokenTally } from "./tokens"

export interface RunResult {
  seed: number
  pass: boolean
  violations: string[]
  /** From the quiet network (the faults over, their frames landed) to the last change of any live process's state, ms (0 when it settled earlier). */
  convergence: number
  /** How long after the faults their last delayed frame landed, ms. */
  heldAfterFaults: number
  /** Election messages (heartbeats apart) over the whole run. */
  messages: number
  /** Most election messages in flight at once. */
  inFlight: number
  nodes: number
  faults: number
}

/**
 * Plays a plan: the faults, then the quiet phase from the landing of the last frame they
 * delayed. Returns every command played (up to the check with `toTheCheck`) and the time
 * the quiet phase began. `each` sees each command's output.
 */
export function playPlan(
  plan: Plan,
  faults: string[],
  runner: ScenarioRunner,
  each: (command: string, i: number, out: string[]) => void = () => {},
  { toTheCheck = false } = {},
) {
  const commands = faultCommands(plan, faults)
  let i = 0
  const play = (command: string) => {
    each(command, i, runner.runCommand(command, `${describePlan(plan)} command ${i + 1}`))
    i++
  }
  commands.forEach(play)
  const quietAt = Math.max(plan.faultEnd, Math.ceil(runner.faultLayer.heldUntil))
  // a judge stops at the check: `summary` would reset the totals it reads
  const judge = judgeCommands(plan, quietAt).filter((c, k, all) => !toTheCheck || k <= all.findIndex((x) => x.startsWith("check ")))
  commands.push(...judge)
  judge.forEach(play)
  return { commands, quietAt }
}

export function runPlan(plan: Plan, faults: string[] = plan.faults): RunResult {
  const runner = new ScenarioRunner("campaign", { quiet: true })
  // the election API's fencing tokens, played on every role change
  const tokens = new TokenTally()
  let violations: string[] = []
  const { quietAt } = playPlan(plan, faults, runner, (command, i) => {
    if (i === 0) tokens.watch(runner.engine!)
    // judged at the check, before status and summary
    if (command.startsWith("check ")) {
      violations = [...(runner.lastCheck ?? [])]
      tokens.judgeEnd(runner.engine!)
    }
  }, { toTheCheck: true })
  // (the cluster line's budgets, in-flight-budget among them, are the checker's)
  const engine = runner.engine!
  const t = tokens.figures
  if (t.staleAccepted > 0) violations.push(`fencing: ${t.staleAccepted} orders accepted below a token accepted before`)
  if (t.endRefusedIssued > 0) violations.push(`fencing: ${t.endRefusedIssued} live followers refuse their coordinator's token at the end`)
  const last = lastChangeOf(engine)
  return {
    seed: plan.seed,
    pass: violations.length === 0,
    violations,
    convergence: Math.max(0, last - quietAt),
    heldAfterFaults: quietAt - plan.faultEnd,
    messages: engine.traffic.messages,
    inFlight: engine.maxInFlight,
    nodes: plan.ids.length,
    faults: faults.length,
  }
}

export function runSeed(
  seed: number,
  algorithm: number,
  family: Family,
  detector = "fixed",
  delivery: Delivery = "destinations",
  timing: TimingName = "wifi",
): RunResult {
  return runPlan(makePlan(seed, algorithm, family, detector, delivery, timing))
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
  return (
    (plan.detector !== "fixed" ? ` --failure-detector ${plan.detector}` : "") +
    (plan.delivery !== "destinations" ? ` --delivery ${plan.delivery}` : "") +
    (plan.timing !== "wifi" ? ` --timing ${plan.timing}` : "")
  )
}

/** The run as a scenario file that `electlab sim --scenario FILE` replays to the same verdict. */
export function scenarioText(plan: Plan, faults: string[], violations: string[]): string {
  const { commands, quietAt } = playPlan(plan, faults, new ScenarioRunner("written", { quiet: true }))
  const header = [
    `# ${describePlan(plan)}: written by electlab campaign --write`,
    `# replay: electlab campaign --replay ${plan.seed} --algorithm ${algorithmName(plan.algorithm)} --family ${plan.family}${replayFlags(plan)}`,
    `# fails with: ${violations.join("; ") || "(passes)"}`,
    `# faults end at t=${plan.faultEnd}, their last frame lands at t=${quietAt}; nothing may change after t=${quietAt + (plan.stableSince - plan.faultEnd)}`,
  ]
  return header.join("\n") + "\n\n" + commands.join("\n") + "\n"
}

/** The schedule and the full trace (message chart) of one run. */
export function replay(plan: Plan, faults: string[] = plan.faults): string[] {
  const out: string[] = []
  const { commands } = playPlan(plan, faults, new ScenarioRunner("replay"), (_, __, lines) => out.push(...lines))
  return [`# ${describePlan(plan)}`, ...commands.map((c) => `> ${c}`), "", ...out]
}
