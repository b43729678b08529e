// `npm run bench`: simulator throughput and the cost of a 1000-process Bully election.
// Figures go in docs/benchmarks.md; nothing here asserts a speed.

import { execFileSync } from "node:child_process"
import { join } from "node:path"
import { performance } from "node:perf_hooks"
import { Engine, IdealNetwork } from "../../src/core/engine"
import { Algorithm } from "../../src/core/frame"
import { algorithmName, createCluster } from "../../src/core/algorithms"
import { idealTiming } from "../../src/core/timing"
import { summarize } from "../../src/core/summary"
import { ROOT } from "../config/root"

export interface ElectionRun {
  algorithm: string
  n: number
  messages: number
  delivered: number
  coordinator: number
  ms: number
}

/** One election: processes 1..n, n crashed, process 1 (the worst initiator) notices. */
export function timeElection(algorithm: Algorithm, n: number): ElectionRun {
  const ids = Array.from({ length: n }, (_, i) => i + 1)
  const options = { algorithm, ids, group: 1, timing: idealTiming(), network: new IdealNetwork() }
  const engine = new Engine(options, createCluster(options))
  engine.digesting = false
  engine.start()
  engine.crash(n)
  const t0 = performance.now()
  engine.detect(1)
  engine.settle(Number.MAX_SAFE_INTEGER)
  const ms = performance.now() - t0
  const s = summarize(engine)
  if (s.violations.length) throw new Error(`bench run broke an invariant: ${s.violations.join("; ")}`)
  return {
    algorithm: algorithmName(algorithm),
    n,
    messages: s.messages,
    delivered: engine.delivered,
    coordinator: s.coordinator,
    ms,
  }
}

function inFreshProcess(algorithm: string, n: number): ElectionRun {
  const out = execFileSync(process.execPath, ["--import", "tsx", join(ROOT, "sim", "bench", "simulator-worker.ts"), algorithm, String(n)], {
    cwd: ROOT,
    encoding: "utf8",
  })
  return JSON.parse(out) as ElectionRun
}

export function runBench(flags: { json?: boolean; quick?: boolean }): void {
  const bigN = flags.quick ? 100 : 1000
  const midN = flags.quick ? 50 : 200
  const repeats = flags.quick ? 2 : 30
  timeElection(Algorithm.Bully, midN) // warm up the JIT
  let delivered = 0
  let ms = 0
  for (let i = 0; i < repeats; i++) {
    const run = timeElection(Algorithm.Bully, midN)
    delivered += run.delivered
    ms += run.ms
  }
  // Each large run in a fresh process; the median of five (2 cores, noisy neighbours).
  const bigRuns = Array.from({ length: flags.quick ? 1 : 5 }, () => inFreshProcess(algorithmName(Algorithm.Bully), bigN))
  const big = bigRuns.sort((a, b) => a.ms - b.ms)[Math.floor(bigRuns.length / 2)]
  const improved = inFreshProcess(algorithmName(Algorithm.ImprovedBully), bigN)
  const result = {
    throughput: { messagesPerSecond: Math.round((delivered / ms) * 1000), runs: repeats, n: midN },
    bully: big,
    improvedBully: improved,
    node: process.version,
  }
  if (flags.json) {
    process.stdout.write(JSON.stringify(result) + "\n")
    return
  }
  const mps = (result.throughput.messagesPerSecond / 1e6).toFixed(2)
  process.stdout.write(
    [
      `throughput: ${mps} million delivered messages/s (bully, n=${midN}, lowest notices, ${repeats} runs)`,
      `bully n=${bigN}, lowest notices: ${big.messages} messages, winner ${big.coordinator}, ${big.ms.toFixed(0)} ms (median of ${bigRuns.length}) ` +
        `(${((big.delivered / big.ms) * 1000 / 1e6).toFixed(2)} million messages/s)`,
      `improved-bully n=${bigN}, lowest notices: ${improved.messages} messages, winner ${improved.coordinator}, ${improved.ms.toFixed(2)} ms`,
    ].join("\n") + "\n",
  )
}
