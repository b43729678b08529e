// Fencing tokens against the algorithms' real runs (sim/bench/token-order.ts): the campaign's
// fault schedules, every process running the API's token rules. The raw token (election
// epoch, id) is not enough: an epoch can repeat for one process, and a run can end with the
// agreed coordinator below a token some follower took, which would refuse its orders for
// ever. The API's tokens (TokenIssuer, and the follower's "fenced" notice) end with none.
import { describe, expect, test } from "vitest"
import { algorithmName } from "../src/core/algorithms"
import { CAMPAIGN_FAMILIES } from "../sim/campaign/plan"
import { measureRun } from "../sim/bench/token-order"
import { type TokenFigures, TokenTally } from "../sim/campaign/tokens"
import type { Engine } from "../src/core/engine"
import { Role } from "../src/core/contract"

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
    const sum = (list: TokenFigures[], k: keyof TokenFigures) => list.reduce((n, f) => n + f[k], 0)
    expect(sum(totals, "endRefusedRaw")).toBeGreaterThan(0)
    // an epoch repeats more rarely since old news starts no election: two ring runs where one does
    const reused = [measureRun(47, 3, "coordinator-crash"), measureRun(34, 3, "mixed")]
    expect(reused.map((f) => f.reusedEpochs)).toEqual([1, 1])
    for (const f of reused) expect(f.endRefusedIssued).toBe(0)
  })
})

describe("the token tally the campaign judges every run by", () => {
  test("a follower fenced by an older coordinator's token takes the re-issued one; raw tokens would leave it fenced out", () => {
    const t = new TokenTally()
    t.roleChanged(3, Role.Coordinator, 3, 5)
    t.roleChanged(1, Role.Follower, 3, 5) // takes 5.3
    t.roleChanged(3, Role.Crashed, -1, 5)
    t.roleChanged(2, Role.Coordinator, 2, 3) // leads in an older epoch: 3.2
    t.roleChanged(1, Role.Follower, 2, 5) // refuses 3.2; 2 re-issues above 5.3
    const nodes = [
      { id: 1, crashed: false, role: Role.Follower, coordinator: 2 },
      { id: 2, crashed: false, role: Role.Coordinator, coordinator: 2 },
      { id: 3, crashed: true, role: Role.Crashed, coordinator: -1 },
    ]
    t.judgeEnd({ nodes } as unknown as Engine)
    expect(t.figures).toEqual({
      runs: 1,
      coordinatorships: 2,
      reusedEpochs: 0,
      refusedRaw: 1,
      refusedIssued: 1,
      staleAccepted: 0,
      endRefusedRaw: 1,
      endRefusedIssued: 0,
    })
  })
})
