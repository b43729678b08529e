// Answer latency in the virtual lab, per transport: how long a board takes to answer
// (ELECTION → OK, REQUEST → TABLE), timed from the asker's "tx" log line to the answerer's,
// as the lab receives them. The answer timeout T must exceed the slowest of these.
//   npx tsx sim/bench/lab-latency.ts [bus|mqtt] [ROUNDS]
// Run it as the only lab on the machine, in its own network namespace (`unshare -n`): see
// docs/benchmarks.md.

import { performance } from "node:perf_hooks"
import { Algorithm } from "../../src/core/frame"
import type { LogEvent } from "../lab/board-event"
import { Lab, sleep } from "../lab/lab"
import { defaultTiming } from "../../src/core/timing"

const transport = (process.argv[2] ?? "mqtt") as "bus" | "mqtt"
const rounds = Number(process.argv[3] ?? 5)
const timing = defaultTiming(transport === "mqtt" ? "wifi" : "bus")
const lab = new Lab({ ids: [1, 2, 3, 4, 5], algorithm: Algorithm.ImprovedBully, group: 1, timing, transport })
const asked = new Map<string, number>()
const answers: Record<string, number[]> = { OK: [], TABLE: [] }
const QUESTION: Record<string, string> = { OK: "ELECTION", TABLE: "REQUEST" }
const observe = (e: LogEvent) => {
  if (e.event !== "tx") return
  const k = e.fields.k
  if (k === "ELECTION" || k === "REQUEST") asked.set(`${k}:${e.node}>${e.fields.to}`, e.at)
  const question = QUESTION[k]
  if (!question) return
  const key = `${question}:${e.fields.to}>${e.node}`
  const t = asked.get(key)
  if (t !== undefined) {
    asked.delete(key)
    answers[k].push(e.at - t)
  }
}
// the lab's own handler first, then ours
const labOnEvent = (lab as unknown as { onEvent: (e: LogEvent) => void }).onEvent.bind(lab)
;(lab as unknown as { onEvent: (e: LogEvent) => void }).onEvent = (e) => {
  labOnEvent(e)
  observe(e)
}

function describe(xs: number[]): string {
  const s = [...xs].sort((a, b) => a - b)
  if (!s.length) return "none"
  const at = (p: number) => s[Math.min(s.length - 1, Math.floor(p * s.length))].toFixed(0)
  return `n=${s.length} min=${at(0)} median=${at(0.5)} p90=${at(0.9)} max=${at(1)} ms`
}

try {
  await lab.start()
  await lab.waitForAgreement(60_000)
  const t0 = performance.now()
  for (let i = 0; i < rounds; i++) {
    const c = lab.coordinator()!
    await lab.crash(c)
    await lab.waitForAgreement(20_000)
    await sleep(700)
    await lab.recover(c)
    await lab.waitForAgreement(20_000)
    await sleep(700)
  }
  console.log(`${transport}: ${rounds} crash/recover rounds in ${((performance.now() - t0) / 1000).toFixed(0)} s`)
  for (const [k, v] of Object.entries(answers)) console.log(`  ${QUESTION[k]} → ${k}: ${describe(v)}`)
} finally {
  await lab.stop()
}
