// The failover benchmark. `stats` runs in every `vitest run`. The end-to-end run (a real
// 3-member etcd cluster and three host nodes over a real mosquitto, one trial per failure)
// runs only with `npm run test:bench:failover`: it starts etcd and mosquitto, takes half a
// minute, and all it can check beyond the benchmark itself is that each trial ended with a
// new leader that every survivor reports, which every trial already waits for (it throws
// when that does not happen in time). The figures are in docs/benchmarks.md (`npm run bench:failover`).
import { describe, expect, test } from "vitest"
import { formatFailoverReport, runFailoverBench, stats } from "../sim/bench/failover"

const endToEnd = process.env.ELECTLAB_BENCH_E2E === "1"

describe("failover benchmark", () => {
  test("stats: min, median and p90 of a sample", () => {
    const s = stats([5, 1, 4, 2, 3, 10, 9, 8, 7, 6])
    expect(s).toMatchObject({ trials: 10, minMs: 1, medianMs: 5.5, p90Ms: 9 })
    expect(stats([3, 1, 2]).medianMs).toBe(2)
  })

  test.runIf(endToEnd)("both sides, both failures, from one run: every trial ends with a new leader all survivors report", async () => {
    const r = await runFailoverBench(1, 1000)
    for (const side of [r.etcd, r.electlab, r.adaptive])
      for (const failure of ["kill", "freeze"] as const) expect(side[failure].samples).toHaveLength(1)
    expect(r.heartbeatMs).toBe(50)
    expect(r.electionTimeoutMs).toBe(250)
    const text = formatFailoverReport(r)
    expect(text).toContain("etcd      kill")
    expect(text).toContain("electlab  freeze")
    expect(text).toContain("adaptive  freeze")
  }, 120_000)
})
