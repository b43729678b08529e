// Fencing tokens against the algorithms' real runs (sim/bench/token-order.ts): the campaign's
// fault schedules, every process running the API's token rules. The raw token (election
// epoch, id) is not enough: an epoch can repeat for one process, and a run can end with the
// agreed coordinator below a token some follower took, which would refuse its orders for
// ever. The API's tokens (TokenIssuer, and the follower's "fenced" notice) end with none.
import { describe, expect, test } from "vitest"
import { algorithmName } from "../src/core/frame"
import { CAMPAIGN_FAMILIES } from "../sim/campaign/plan"
import { measureRun, type TokenFigures } from "../sim/bench/token-order"

const SEEDS = 10

describe("fencing tokens over the campaign's runs", () => {
  const totals: TokenFigures[] = []
  for (let a = 1; a <= 6; a++)
    test(`${algorithmName(a)}: every run ends with the agreed coordinator's orders taken by every follower`, () => {
      for (const family of CAMPAIGN_FAMILIES)
        for (let seed = 1; seed <= SEEDS; seed++) {
          const f = measureRun(seed, a, family)
          totals.push(f)
          expect(f.endRefusedIssued, `${family} seed ${seed}`).toBe(0)
        }
    })

  test("the raw token would not do: epochs repeat, and runs end fenced out", () => {
    expect(totals).toHaveLength(6 * CAMPAIGN_FAMILIES.length * SEEDS)
    const sum = (k: keyof TokenFigures) => totals.reduce((n, f) => n + f[k], 0)
    expect(sum("reusedEpochs")).toBeGreaterThan(0)
    expect(sum("endRefusedRaw")).toBeGreaterThan(0)
  })
})
