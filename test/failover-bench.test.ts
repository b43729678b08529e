// The failover benchmark runs end to end: a real 3-member etcd cluster and three host nodes
// over a real mosquitto, one trial per failure (the figures themselves are in the README,
// measured with `npm run bench:failover`; no timing is asserted here).
import { describe, expect, test } from "vitest"
import { formatFailoverReport, runFailoverBench, stats } from "../sim/bench/failover"

describe("failover benchmark", () => {
  test("stats: min, median and p90 of a sample", () => {
    const s = stats([5, 1, 4, 2, 3, 10, 9, 8, 7, 6])
    expect(s).toMatchObject({ trials: 10, minMs: 1, medianMs: 5.5, p90Ms: 9 })
    expect(stats([3, 1, 2]).medianMs).toBe(2)
  })

  test("both sides, both failures, from one run", async () => {
    const r = await runFailoverBench(1, 1000)
    for (const side of [r.etcd, r.electlab, r.adaptive])
      for (const failure of ["kill", "freeze"] as const) {
        expect(side[failure].trials).toBe(1)
        expect(side[failure].medianMs).toBeGreaterThan(0)
      }
    expect(r.heartbeatMs).toBe(50)
    expect(r.electionTimeoutMs).toBe(250)
    const text = formatFailoverReport(r)
    expect(text).toContain("etcd      kill")
    expect(text).toContain("electlab  freeze")
    expect(text).toContain("adaptive  freeze")
  }, 120_000)
})
