// electlab check: a stopped depth-first search goes on from its checkpoint to the counts of
// an uninterrupted one, and a long search says how far it got.

import { spawn, spawnSync } from "node:child_process"
import { copyFileSync, existsSync, mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { expect } from "vitest"
import { parseAlgorithm } from "../src/core/algorithms"
import type { ModelConfig } from "../sim/check/model"
import { defaultOptions, type Progress, promisedProperties, search, type SearchOptions } from "../sim/check/search"
import { checkSearchOptions, type CheckFlags, progressLine } from "../sim/check/command"
import { INTERRUPTED, MEMORY_LIMIT } from "../sim/check/explore"
import { SEGMENTS } from "../sim/check/key"
// this file spans the tiers: `test` is the fast tier's (test/tiers.ts)
import { mediumTest, test } from "./tiers"

function options(algorithm: string, nodes: number): SearchOptions {
  const c: ModelConfig = { algorithm: parseAlgorithm(algorithm), nodes, timing: "ideal", crashes: 1, recoveries: 1, losses: 1, duplicates: 0 }
  const o = defaultOptions(c, promisedProperties(c))
  o.threads = 1
  return o
}

const dir = () => mkdtempSync(join(tmpdir(), "electlab-resume-"))

/** Echo at N = 3 with a crash, a recovery and a loss, searched without a stop (test/check.test.ts). */
const ECHO_3 = 2409

test("a search stopped by its state limit and resumed ends with the states of one never stopped", () => {
  const file = join(dir(), "echo.ckpt")
  const first = search({ ...options("echo", 3), maxStates: 1000, checkpoint: { file, every: 1e9 } })
  expect(first).toMatchObject({ complete: false, states: 1000, checkpoint: file })
  expect(first.limits).toEqual(["state limit 1000"])
  // twice more, each stopped again, then to the end
  const second = search({ ...options("echo", 3), maxStates: 2000, checkpoint: { file, every: 1e9, resume: true } })
  expect(second).toMatchObject({ complete: false, states: 2000, resumedFrom: 1000 })
  const last = search({ ...options("echo", 3), checkpoint: { file, every: 1e9, resume: true } })
  expect(last).toMatchObject({ complete: true, states: ECHO_3, resumedFrom: 2000, checkpoint: null, violations: [] })
  // a finished search leaves no checkpoint behind
  expect(existsSync(file)).toBe(false)
})

test("a checkpoint taken while the search runs (what Ctrl-C leaves) resumes to the same states", () => {
  const d = dir()
  const file = join(d, "echo.ckpt")
  const kept = join(d, "kept.ckpt")
  let copies = 0
  // a checkpoint at every look (each 1,024 turns of the loop); the progress report comes
  // just after it, and keeps the first one as a kill would leave it
  const o = { ...options("echo", 3), checkpoint: { file, every: 0 }, progressEvery: 0 }
  o.progress = () => {
    if (copies++ === 0) copyFileSync(file, kept)
  }
  expect(search(o)).toMatchObject({ complete: true, states: ECHO_3 })
  expect(copies).toBeGreaterThan(0)
  const resumed = search({ ...options("echo", 3), checkpoint: { file: kept, every: 1e9, resume: true } })
  expect(resumed.resumedFrom).toBeGreaterThan(0)
  expect(resumed.resumedFrom).toBeLessThan(ECHO_3)
  expect(resumed).toMatchObject({ complete: true, states: ECHO_3, violations: [] })
})

test("a search interrupted (Ctrl-C's flag) stops as at a limit, with a checkpoint that resumes to the same states", () => {
  const file = join(dir(), "echo.ckpt")
  const interrupt = new Int32Array(new SharedArrayBuffer(4))
  let looks = 0
  const o = { ...options("echo", 3), checkpoint: { file, every: 1e9 }, progressEvery: 0, interrupt }
  // set from the search's own thread here; Ctrl-C sets it from the CLI's main thread
  o.progress = () => {
    if (++looks === 2) Atomics.store(interrupt, 0, 1)
  }
  const first = search(o)
  expect(first.limits).toEqual([INTERRUPTED])
  expect(first).toMatchObject({ complete: false, checkpoint: file })
  expect(first.states).toBeLessThan(ECHO_3)
  const last = search({ ...options("echo", 3), checkpoint: { file, every: 1e9, resume: true } })
  expect(last).toMatchObject({ complete: true, states: ECHO_3, resumedFrom: first.states, violations: [] })
})

test("a search whose table fills its memory budget stops, and goes on with more", () => {
  const file = join(dir(), "echo.ckpt")
  // 16 slots a segment, no room to double: each takes 14 keys (90 %), then the search stops
  const tableSlots = 16 * SEGMENTS
  const first = search({ ...options("echo", 3), tableSlots, memory: 8 * tableSlots, checkpoint: { file, every: 1e9 } })
  expect(first.limits).toEqual([MEMORY_LIMIT])
  expect(first.tableBytes).toBe(8 * tableSlots)
  expect(first.states).toBeLessThan(SEGMENTS * 15)
  const last = search({ ...options("echo", 3), checkpoint: { file, every: 1e9, resume: true } })
  expect(last).toMatchObject({ complete: true, states: ECHO_3, resumedFrom: first.states })
})

test("a checkpoint goes on only with its own search", () => {
  const file = join(dir(), "echo.ckpt")
  search({ ...options("echo", 3), maxStates: 500, checkpoint: { file, every: 1e9 } })
  expect(() => search({ ...options("echo", 3), losses: 0, checkpoint: { file, every: 1e9, resume: true } })).toThrow("the checkpoint of another search")
  // the state limit may be raised
  expect(search({ ...options("echo", 3), maxStates: 600, checkpoint: { file, every: 1e9, resume: true } })).toMatchObject({ states: 600, resumedFrom: 500 })
})

test("progress: states, rate, depth, memory and a guess of what is left, on stderr's line", () => {
  const reports: Progress[] = []
  const o = { ...options("echo", 3), progressEvery: 0 }
  o.progress = (p) => reports.push(p)
  const r = search(o)
  expect(reports.length).toBeGreaterThan(1)
  for (let i = 1; i < reports.length; i++) expect(reports[i].states).toBeGreaterThanOrEqual(reports[i - 1].states)
  for (const p of reports) {
    expect(p.states).toBeLessThanOrEqual(r.states)
    expect(p.depth).toBeGreaterThan(0)
    expect(p.maxDepth).toBeGreaterThanOrEqual(p.depth)
    expect(p.rss).toBeGreaterThan(p.tableBytes)
    expect(p.share).toBeGreaterThanOrEqual(0)
    expect(p.share).toBeLessThanOrEqual(1)
  }
  const line = progressLine("echo", { states: 1234567, statesPerSecond: 75000, depth: 37, maxDepth: 48, seconds: 3600, rss: 3 * 2 ** 30, tableBytes: 2 ** 30, share: 0.25, secondsLeft: 10800 })
  expect(line).toBe("echo: 1,234,567 states, 75,000/s, depth 37 (most 48), 3.0 GiB resident (table 1.0 GiB), 60 min; about 25.0 % of the tree behind the paths, about 3.0 h left")
})

mediumTest("two threads stopped, checkpointed with both paths and resumed: the states of one thread never stopped", () => {
  const whole = search(options("ring", 4))
  expect(whole).toMatchObject({ complete: true, states: 28600 })
  const file = join(dir(), "ring.ckpt")
  // a small table: its segments grow while the helper runs and between checkpoints
  const two = (o: SearchOptions) => search({ ...o, threads: 2, parallelAfter: 500, tableSlots: 1024 })
  const first = two({ ...options("ring", 4), maxStates: 15000, checkpoint: { file, every: 0 } })
  expect(first).toMatchObject({ complete: false, states: 15000 })
  const last = two({ ...options("ring", 4), checkpoint: { file, every: 0, resume: true } })
  expect(last).toMatchObject({ complete: true, states: whole.states, resumedFrom: 15000, violations: [] })
})

test("`electlab check` sets no state limit depth first (the key table's memory ends it), 10,000,000 breadth first, or the one given", () => {
  const flags: CheckFlags = { algorithm: "echo", nodes: "5", timing: "ideal", crashes: "1", recoveries: "1", losses: "1", duplicates: "0", maxDepth: "200", maxEpoch: "12", checkpointEvery: "600", progress: "0" }
  const limit = (more: Partial<CheckFlags>) => checkSearchOptions({ ...flags, ...more }).options.maxStates
  expect(limit({})).toBe(Number.MAX_SAFE_INTEGER)
  expect(limit({ breadthFirst: true })).toBe(10_000_000)
  // depth first does not fit these: breadth first from the start
  expect(limit({ timing: "bounded" })).toBe(10_000_000)
  expect(limit({ maxDepth: "50" })).toBe(10_000_000)
  expect(limit({ maxStates: "2000000000" })).toBe(2_000_000_000)
  expect(() => limit({ maxStates: "0" })).toThrow(/--max-states/)
})

/** Echo at N = 4, as above (docs/algorithms.md): a search long enough to be stopped halfway. */
const ECHO_4 = 29994
const bin = join(import.meta.dirname, "..", "bin", "electlab.js")

mediumTest("Ctrl-C stops `electlab check` with a checkpoint (exit 130); --resume ends at the uninterrupted states", async () => {
  const file = join(dir(), "echo4.ckpt")
  const args = ["check", "--algorithm", "echo", "--nodes", "4", "--threads", "1", "--checkpoint", file]
  const child = spawn(process.execPath, [bin, ...args, "--progress", "1"], { stdio: ["ignore", "pipe", "pipe"] })
  let out = ""
  let err = ""
  child.stdout.on("data", (d) => (out += d))
  // Ctrl-C at the first progress line: the search is under way
  child.stderr.on("data", (d) => {
    if (!err.includes("states")) if ((err + d).includes("states")) child.kill("SIGINT")
    err += d
  })
  const code = await new Promise<number | null>((resolve) => child.on("close", resolve))
  expect(err).toContain("stopping: writing a checkpoint")
  expect(out).toContain("not complete: interrupted (Ctrl-C)")
  expect(out).toContain(`checkpoint: ${file}`)
  expect(code).toBe(130)
  const resumed = spawnSync(process.execPath, [bin, ...args, "--progress", "0", "--resume"], { encoding: "utf8" })
  expect(resumed.status).toBe(0)
  expect(resumed.stdout).toMatch(new RegExp(`^${ECHO_4} states, .*; complete$`, "m"))
  expect(resumed.stdout).toMatch(/^resumed from a checkpoint of \d+ states$/m)
}, 120_000)
