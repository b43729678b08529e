// The exhaustive check's speed and memory, its searches side by side in one run: breadth
// first on one thread (layers of whole states kept, eventual agreement judged at every
// state) against depth first (keys only, judged where an instant ends) step by step on one
// thread and on every core, the same states, and depth first with instants taken node by
// node (fewer states: its speed-up is not comparable). Each search runs in its own process,
// so that none inherits another's heap.
//   npx tsx sim/bench/check.ts            (npm run bench:check)

import { spawnSync } from "node:child_process"
import { join } from "node:path"
import { defaultThreads } from "../check/parallel"
import { algorithmName } from "../../src/core/algorithms"
import { Algorithm } from "../../src/core/frame"

interface Row {
  label: string
  args: string[]
  /** Visits fewer states than the rows above it (states a second do not compare). */
  fewer?: boolean
}

interface Figures {
  states: number
  complete: boolean
  seconds: number
  statesPerSecond: number
  bytesPerState: number
  threads: number
}

const bin = join(import.meta.dirname, "..", "..", "bin", "electlab.js")
const cores = defaultThreads()

function run(args: string[]): Figures {
  const r = spawnSync(process.execPath, [bin, "check", ...args, "--json"], { encoding: "utf8", maxBuffer: 1 << 26 })
  if (r.status !== 0) throw new Error(`electlab check ${args.join(" ")} exited ${r.status}: ${r.stderr.slice(-500)}`)
  return JSON.parse(r.stdout) as Figures
}

const cases: { name: string; flags: string[]; rows: Row[] }[] = [
  {
    name: "ring, N = 4",
    flags: ["--algorithm", algorithmName(Algorithm.Ring), "--nodes", "4"],
    rows: [
      { label: "breadth first, 1 thread", args: ["--breadth-first"] },
      { label: "depth first, step by step, 1 thread", args: ["--step-by-step", "--threads", "1"] },
      { label: `depth first, step by step, ${cores} threads`, args: ["--step-by-step", "--threads", String(cores)] },
      { label: `depth first, instants node by node, ${cores} threads`, args: ["--threads", String(cores)], fewer: true },
    ],
  },
  {
    name: "echo, N = 4",
    flags: ["--algorithm", algorithmName(Algorithm.Echo), "--nodes", "4"],
    rows: [
      // about 2.4 GB resident and a hundred seconds
      { label: "breadth first, 1 thread", args: ["--breadth-first"] },
      { label: "depth first, step by step, 1 thread", args: ["--step-by-step", "--threads", "1"] },
      { label: `depth first, step by step, ${cores} threads`, args: ["--step-by-step", "--threads", String(cores)] },
      { label: `depth first, instants node by node, ${cores} threads`, args: ["--threads", String(cores)], fewer: true },
    ],
  },
]

const lines = [
  "| search (one crash, one recovery, one loss) | states | seconds | states/s | bytes/state | speed-up |",
  "| --- | ---: | ---: | ---: | ---: | ---: |",
]
for (const c of cases) {
  let base = 0
  for (const row of c.rows) {
    const f = run([...c.flags, ...row.args])
    if (base === 0) base = f.statesPerSecond
    const done = f.complete ? "" : " (stopped)"
    lines.push(
      `| ${c.name}: ${row.label} | ${f.states.toLocaleString("en-US")}${done} | ${f.seconds.toFixed(1)} | ${f.statesPerSecond.toLocaleString("en-US")} | ${f.bytesPerState.toLocaleString("en-US")} | ${row.fewer ? "—" : (f.statesPerSecond / base).toFixed(1) + "×"} |`,
    )
    process.stderr.write(lines[lines.length - 1] + "\n")
  }
}
process.stdout.write(lines.join("\n") + "\n")
