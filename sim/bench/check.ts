// The exhaustive check's speed and memory, its searches side by side in one run: breadth
// first on one thread (layers of whole states kept, eventual agreement judged at every
// state) against depth first (keys only, judged where an instant ends) step by step on one
// thread and on every core, the same states, and depth first with instants taken node by
// node (fewer states: its speed-up is not comparable). Each search runs in its own process,
// so that none inherits another's heap. The per-core case, echo at N = 5 on one thread, its
// first 2 million states, runs beside another checkout's checker when one is named (`--base
// DIR`: its bin/electlab.js, e.g. a `git archive` of an older commit), so that before and
// after are measured in one run on the same machine.
//   npx tsx sim/bench/check.ts            (npm run bench:check)
//   npm run bench:check -- --case "echo, N = 5" --base /tmp/before

import { spawnSync } from "node:child_process"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { defaultThreads } from "../check/parallel"
import { algorithmName } from "../../src/core/algorithms"
import { Algorithm } from "../../src/core/frame"

interface Row {
  label: string
  args: string[]
  /** Run by the checker of the checkout given as --base. */
  base?: boolean
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
  resumedFrom?: number
}

const bin = join(import.meta.dirname, "..", "..", "bin", "electlab.js")
const cores = defaultThreads()
const flag = (name: string) => {
  const i = process.argv.indexOf(name)
  return i >= 0 ? process.argv[i + 1] : undefined
}
const baseDir = flag("--base")
const only = flag("--case")

/** CPU seconds the children this process waited for have used (Linux: /proc; elsewhere null). */
function childCpu(): number | null {
  try {
    // after the command's name (in parentheses): state is field 3, cutime and cstime 16 and 17
    const fields = readFileSync("/proc/self/stat", "utf8").split(") ")[1].split(" ")
    return (Number(fields[13]) + Number(fields[14])) / 100
  } catch {
    return null
  }
}

function run(args: string[], base = false): Figures & { cpu: number | null } {
  const program = base ? join(baseDir!, "bin", "electlab.js") : bin
  // --progress is this checkout's (a base may not know it)
  const quiet = base ? [] : ["--progress", "0"]
  const cpuBefore = childCpu()
  const r = spawnSync(process.execPath, [program, "check", ...args, ...quiet, "--json"], { encoding: "utf8", maxBuffer: 1 << 26 })
  const cpuAfter = childCpu()
  if (r.status !== 0) throw new Error(`electlab check ${args.join(" ")} exited ${r.status}: ${r.stderr.slice(-500)}`)
  const cpu = cpuBefore === null || cpuAfter === null ? null : cpuAfter - cpuBefore
  return { ...(JSON.parse(r.stdout) as Figures), cpu }
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

cases.push({
  name: "echo, N = 5",
  flags: ["--algorithm", algorithmName(Algorithm.Echo), "--nodes", "5", "--max-states", "2000000"],
  rows: [
    ...(baseDir ? [{ label: "first 2,000,000 states, 1 thread, before", args: ["--threads", "1"], base: true }] : []),
    { label: "first 2,000,000 states, 1 thread", args: ["--threads", "1"] },
  ],
})

const lines = [
  // CPU seconds (of every thread) beside the wall clock: states per CPU second hold when other work shares the cores
  "| search (one crash, one recovery, one loss) | states | seconds | states/s | CPU s | states/CPU s | bytes/state | speed-up |",
  "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
]
for (const c of cases) {
  if (only && c.name !== only) continue
  let base = 0
  for (const row of c.rows) {
    const f = run([...c.flags, ...row.args], row.base)
    if (base === 0) base = f.statesPerSecond
    const done = f.complete ? "" : " (stopped)"
    lines.push(
      `| ${c.name}: ${row.label} | ${f.states.toLocaleString("en-US")}${done} | ${f.seconds.toFixed(1)} | ${f.statesPerSecond.toLocaleString("en-US")} | ${f.cpu === null ? "—" : f.cpu.toFixed(1)} | ${f.cpu === null ? "—" : Math.round((f.states - (f.resumedFrom ?? 0)) / f.cpu).toLocaleString("en-US")} | ${f.bytesPerState.toLocaleString("en-US")} | ${row.fewer ? "—" : (f.statesPerSecond / base).toFixed(1) + "×"} |`,
    )
    process.stderr.write(lines[lines.length - 1] + "\n")
  }
}
process.stdout.write(lines.join("\n") + "\n")
