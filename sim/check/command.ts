// The `electlab check` command: flags checked by name, the search, and for a violation
// its shortest trace printed and written as a scenario file the simulator replays.

import type { Command } from "commander"
import { existsSync, mkdirSync, writeFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { algorithmName, ALGORITHMS } from "../../src/core/algorithms"
import { InputError, parseAlgorithmName, parseInteger } from "../config/input"
import { DETECT_DELAY, type Detection, DETECTIONS, type ModelConfig, TIMING_MODELS, type TimingModel } from "./model"
import { counterexampleScenario } from "./replay"
import { defaultMemory, defaultThreads } from "./parallel"
import { FULL_AT } from "./key"
import { BREADTH_FIRST_MAX_STATES, defaultOptions, PARALLEL_AFTER, type Progress, PROPERTIES, type Property, promisedProperties, searchesDepthFirst, type SearchOptions, type SearchResult } from "./search"
import { searchInterruptibly } from "./search-host"
import { INTERRUPTED } from "./explore"

export interface CheckFlags {
  algorithm: string
  nodes: string
  timing: string
  detection?: string
  crashes: string
  recoveries: string
  losses: string
  duplicates: string
  property?: string
  maxDepth: string
  maxEpoch: string
  maxStates?: string
  all?: boolean
  breadthFirst?: boolean
  threads?: string
  memory?: string
  maxSeconds?: string
  checkpoint?: string
  checkpointEvery: string
  resume?: boolean
  progress: string
  /** commander's negation of --no-reduction. */
  reduction?: boolean
  stepByStep?: boolean
  write?: string
  json?: boolean
}

/** Registers `check` on the CLI (one call in sim/cli.ts). */
export function registerCheckCommand(program: Command) {
  program
    .command("check")
    .description("exhaustive search over every interleaving and crash point of a small cluster running the real core")
    .requiredOption("--algorithm <name>", "the algorithm, a comma list, or all")
    .option("--nodes <n>", "processes (ids 1..n)", "3")
    .option(
      "--timing <model>",
      `${TIMING_MODELS.join(" | ")}: any delay; any delay up to one tick, in any order; one tick, each link in order (the reduction's model)`,
      "ideal",
    )
    .option(
      "--detection <when>",
      `${DETECTIONS.join(" | ")}: a follower notices its coordinator's crash when its detector times out (${DETECT_DELAY} ticks after; ideal's default), at any point (the others'), or by the nodes' own heartbeats and failure timeout, with the handover`,
    )
    .option("--crashes <k>", "most crashes, at any point", "1")
    .option("--recoveries <k>", "most recoveries", "1")
    .option("--losses <l>", "most messages lost", "1")
    .option("--duplicates <d>", "most messages duplicated", "0")
    .option("--property <list>", `${PROPERTIES.join(", ")} (default: what the algorithm promises under the timing model)`)
    .option("--max-depth <n>", "most steps on a path", "200")
    .option("--max-epoch <n>", "states past this epoch are not expanded", "12")
    .option("--max-states <n>", `stop after this many states (default: depth first none, the key table's memory ends it; breadth first, which keeps whole states, ${BREADTH_FIRST_MAX_STATES.toLocaleString("en-US")})`)
    .option("--memory <GiB>", `most memory the key table may take (default: half the machine's, ${(defaultMemory() / 2 ** 30).toFixed(1)} here); past it the table fills up to ${FULL_AT * 100} %, then the search stops`)
    .option("--max-seconds <s>", "depth first: stop after this many seconds (over every run of a resumed search), leaving a checkpoint")
    .option("--checkpoint <file>", "depth first: where the checkpoint goes (default .electlab/check/ALGORITHM-nN.ckpt)")
    .option("--checkpoint-every <s>", "depth first: seconds between checkpoints; a search stopped by a limit writes one too", "600")
    .option("--resume", "depth first: go on from the checkpoint (the same search; --max-states may be raised)")
    .option("--progress <s>", "seconds between progress lines on stderr (0: none)", "5")
    .option("--breadth-first", "search breadth first from the start (memory: a layer of whole states)")
    .option("--threads <n>", `threads of the depth-first search, once it passes ${PARALLEL_AFTER.toLocaleString("en-US")} states (default: every core, ${defaultThreads()} here)`)
    .option("--no-reduction", "ideal model: visit every interleaving of an instant (no partial-order reduction)")
    .option("--step-by-step", "ideal model, depth first: keep every state within an instant (instants not taken node by node)")
    .option("--all", "keep searching after the first violation (one per property)")
    .option("--write <file>", "where to write the first violation's scenario (default .electlab/check/ALGORITHM-PROPERTY.txt)")
    .option("--json", "print the result as JSON")
    .action(async (flags: CheckFlags) => {
      process.exitCode = await runCheckCommand(flags)
    })
}

/** A size in GiB (fractions allowed): bytes. */
export function parseGiB(text: string, where: string): number {
  const v = Number(text)
  if (!(text.trim() !== "" && Number.isFinite(v) && v > 0)) throw new InputError(`'${text}' is not a size in GiB`, where)
  return Math.floor(v * 2 ** 30)
}

export function parseTimingModel(text: string, where: string): TimingModel {
  if ((TIMING_MODELS as readonly string[]).includes(text)) return text as TimingModel
  throw new InputError(`unknown timing model '${text}'; known: ${TIMING_MODELS.join(", ")}`, where)
}

export function parseDetection(text: string, where: string): Detection {
  if ((DETECTIONS as readonly string[]).includes(text)) return text as Detection
  throw new InputError(`unknown detection '${text}'; known: ${DETECTIONS.join(", ")}`, where)
}

export function parseProperties(text: string, where: string): Property[] {
  return text.split(",").map((p) => {
    const name = p.trim()
    if (!(PROPERTIES as readonly string[]).includes(name))
      throw new InputError(`unknown property '${name}'; known: ${PROPERTIES.join(", ")}`, where)
    return name as Property
  })
}

/** `--algorithm` takes one name, a comma list, or `all`: one search each, in turn. */
export async function runCheckCommand(flags: CheckFlags): Promise<number> {
  const names = flags.algorithm === "all" ? ALGORITHMS.map((d) => d.name) : flags.algorithm.split(",").map((n) => n.trim())
  for (const name of names) parseAlgorithmName(name, "--algorithm")
  const jsons: unknown[] = []
  let code = 0
  for (const name of names) {
    const c = await checkOne({ ...flags, algorithm: name }, jsons)
    if (c !== 0) code = c
  }
  if (flags.json) process.stdout.write(JSON.stringify(jsons.length === 1 ? jsons[0] : jsons, null, 2) + "\n")
  return code
}

/** The search `flags` ask for (one algorithm), and its model; the progress printer not yet set. */
export function checkSearchOptions(flags: CheckFlags): { config: ModelConfig; options: SearchOptions } {
  const config: ModelConfig = {
    algorithm: parseAlgorithmName(flags.algorithm, "--algorithm"),
    nodes: parseInteger(flags.nodes, "--nodes", 2, 6),
    timing: parseTimingModel(flags.timing, "--timing"),
    detection: flags.detection === undefined ? undefined : parseDetection(flags.detection, "--detection"),
    crashes: parseInteger(flags.crashes, "--crashes", 0, 10),
    recoveries: parseInteger(flags.recoveries, "--recoveries", 0, 10),
    losses: parseInteger(flags.losses, "--losses", 0, 10),
    duplicates: parseInteger(flags.duplicates, "--duplicates", 0, 10),
  }
  if (config.timing === "arbitrary" && (config.detection === "timed" || config.detection === "heartbeats"))
    throw new InputError(`${config.detection} detection needs one clock: use it with --timing ideal or bounded`, "--detection")
  const properties = flags.property ? parseProperties(flags.property, "--property") : promisedProperties(config)
  const options = defaultOptions(config, properties)
  options.maxDepth = parseInteger(flags.maxDepth, "--max-depth", 1, 1e6)
  options.maxEpoch = parseInteger(flags.maxEpoch, "--max-epoch", 1, 1e6)
  options.all = !!flags.all
  options.reduce = flags.reduction !== false
  options.instants = !flags.stepByStep
  if (flags.breadthFirst) options.order = "breadth"
  if (flags.maxStates !== undefined) options.maxStates = parseInteger(flags.maxStates, "--max-states", 1, 1e12)
  else if (searchesDepthFirst(options)) options.maxStates = Number.MAX_SAFE_INTEGER
  if (flags.threads !== undefined) options.threads = parseInteger(flags.threads, "--threads", 1, 64)
  if (flags.memory !== undefined) options.memory = parseGiB(flags.memory, "--memory")
  if (flags.maxSeconds !== undefined) options.maxSeconds = parseInteger(flags.maxSeconds, "--max-seconds", 1, 1e9)
  const checkpointFile = flags.checkpoint ?? join(".electlab", "check", `${algorithmName(config.algorithm)}-n${config.nodes}.ckpt`)
  options.checkpoint = { file: checkpointFile, every: parseInteger(flags.checkpointEvery, "--checkpoint-every", 1, 1e9), resume: !!flags.resume }
  if (flags.resume && !existsSync(checkpointFile)) throw new InputError(`no checkpoint at ${checkpointFile}`, "--resume")
  options.progressEvery = parseInteger(flags.progress, "--progress", 0, 1e6)
  return { config, options }
}

async function checkOne(flags: CheckFlags, jsons: unknown[]): Promise<number> {
  const { config, options } = checkSearchOptions(flags)
  if (options.progressEvery > 0) options.progress = (p) => process.stderr.write(progressLine(algorithmName(config.algorithm), p) + "\n")
  const result = await searchInterruptibly(options)
  const written: string[] = []
  result.violations.forEach((v, i) => {
    if (i > 0 && flags.write) return
    const file = flags.write ?? join(".electlab", "check", `${algorithmName(config.algorithm)}-${v.property}.txt`)
    try {
      const scenario = counterexampleScenario(config, v.steps, [
        `electlab check --algorithm ${result.algorithm} --nodes ${config.nodes} --timing ${config.timing} --detection ${result.detection} --crashes ${config.crashes} --recoveries ${config.recoveries} --losses ${config.losses} --duplicates ${config.duplicates}`,
        `violates ${v.property}: ${v.detail}`,
      ])
      mkdirSync(dirname(file), { recursive: true })
      writeFileSync(file, scenario.text)
      written.push(file)
    } catch (e) {
      written.push(`(not written: ${(e as Error).message})`)
    }
  })
  if (flags.json) {
    const json = {
      ...result,
      violations: result.violations.map((v, i) => ({ property: v.property, detail: v.detail, trace: v.trace, scenario: written[i] ?? null })),
    }
    jsons.push(json)
  } else process.stdout.write(formatResult(result, written) + "\n\n")
  if (result.violations.length > 0) return 3
  // as a shell reports a program stopped by Ctrl-C
  return result.limits.includes(INTERRUPTED) ? 130 : 0
}

/** One progress line: states, rate, depth, memory, and the guess of what is left. */
export function progressLine(name: string, p: Progress): string {
  const count = (n: number) => Math.round(n).toLocaleString("en-US")
  let line = `${name}: ${count(p.states)} states, ${count(p.statesPerSecond)}/s, depth ${p.depth} (most ${p.maxDepth}), ${formatBytes(p.rss)} resident (table ${formatBytes(p.tableBytes)}), ${formatDuration(p.seconds)}`
  if (p.share !== null) line += `; about ${(100 * p.share).toFixed(p.share < 0.1 ? 2 : 1)} % of the tree behind the paths`
  if (p.secondsLeft !== null) line += `, about ${formatDuration(p.secondsLeft)} left`
  return line
}

export function formatDuration(s: number): string {
  return s < 120 ? `${Math.round(s)} s` : s < 7200 ? `${Math.round(s / 60)} min` : `${(s / 3600).toFixed(1)} h`
}

/** The store and the odds that it left a state out. */
export function storeText(r: SearchResult): string {
  return `64-bit fingerprints (hash compaction), table ${formatBytes(r.tableBytes)}; odds that a state was left out (two states sharing a fingerprint): ${r.omissionOdds.toPrecision(2)}`
}

export function formatBytes(b: number): string {
  return b >= 2 ** 30 ? `${(b / 2 ** 30).toFixed(1)} GiB` : b >= 2 ** 20 ? `${Math.round(b / 2 ** 20)} MiB` : `${Math.round(b / 1024)} KiB`
}

export function formatResult(r: SearchResult, written: string[]): string {
  const lines = [
    `${r.algorithm}, ${r.nodes} processes, ${r.timing} timing, ${r.detection === "any" ? "any-time" : r.detection} detection; at most ${r.crashes} crash(es), ${r.recoveries} recovery(ies), ${r.losses} loss(es), ${r.duplicates} duplication(s)`,
    `properties: ${r.properties.join(", ")}`,
    `${r.states} states, ${r.transitions} transitions, depth ${r.depth}, ${r.seconds} s (${r.statesPerSecond} states/s, ${r.bytesPerState} bytes/state, ${r.order} first${r.instants ? ", instants node by node" : ""}${r.threads > 1 ? `, ${r.threads} threads` : ""}); ${r.complete ? "complete" : "not complete" + (r.limits.length ? ": " + r.limits.join(", ") : r.violations.length ? ": stopped at the first violation" : "")}`,
  ]
  lines.push(`store: ${storeText(r)}`)
  if (r.resumedFrom) lines.push(`resumed from a checkpoint of ${r.resumedFrom} states`)
  if (r.checkpoint) lines.push(`checkpoint: ${r.checkpoint} (--resume goes on from it)`)
  if (r.violations.length === 0) lines.push("no violation")
  r.violations.forEach((v, i) => {
    lines.push("", `VIOLATION of ${v.property}: ${v.detail}`, `shortest trace (${v.steps.length} steps):`, ...v.trace.map((t) => "  " + t))
    if (written[i]) lines.push(`scenario: ${written[i]}`)
  })
  return lines.join("\n")
}
