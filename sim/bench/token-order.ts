// Measures what the fencing tokens promise against the algorithms' real runs: the campaign's
// seeded fault schedules, with every process running the election API's token rules
// (TokenIssuer, FenceGate) on its role changes (sim/campaign/tokens.ts, which the campaign
// also judges every run by). Counted per algorithm and family:
//   coordinatorships, and how many had an election epoch at or below one an earlier
//     coordinatorship of the same process used (the raw token (epoch, id) would repeat);
//   orders refused: a process following a coordinator whose token is below one it took,
//     with raw tokens (epoch, id) and with the API's issued tokens (the follower then tells
//     the coordinator it follows, which leads on with a token above);
//   end refusals: after the faults and the quiet phase, live processes whose gate refuses the
//     agreed coordinator's token (its orders would never be taken again).
// `npx tsx sim/bench/token-order.ts [seeds]`

import { algorithmName } from "../../src/core/algorithms"
import { CAMPAIGN_FAMILIES, type Family, makePlan } from "../campaign/plan"
import { playPlan } from "../campaign/run"
import { addTokenFigures, noTokenFigures, type TokenFigures, TokenTally } from "../campaign/tokens"
import { ScenarioRunner } from "../simulator/scenario"

export function measureRun(seed: number, algorithm: number, family: Family): TokenFigures {
  const plan = makePlan(seed, algorithm, family)
  const runner = new ScenarioRunner("tokens", { quiet: true })
  const tally = new TokenTally()
  playPlan(plan, plan.faults, runner, (command, i) => {
    if (i === 0) tally.watch(runner.engine!)
    if (command.startsWith("check ")) tally.judgeEnd(runner.engine!)
  }, { toTheCheck: true })
  return tally.figures
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const seeds = Number(process.argv[2] ?? 100)
  console.log("algorithm         family             runs  reigns  reused  refused raw/issued  end refused raw/issued")
  for (let a = 1; a <= 6; a++)
    for (const family of CAMPAIGN_FAMILIES) {
      const total = noTokenFigures()
      for (let s = 1; s <= seeds; s++) addTokenFigures(total, measureRun(s, a, family))
      console.log(
        `${algorithmName(a).padEnd(17)} ${family.padEnd(18)} ${String(total.runs).padStart(4)}  ${String(total.coordinatorships).padStart(6)}  ${String(total.reusedEpochs).padStart(6)}  ${String(total.refusedRaw).padStart(7)} / ${String(total.refusedIssued).padEnd(7)}  ${String(total.endRefusedRaw).padStart(7)} / ${total.endRefusedIssued}`,
      )
    }
}
