// One resolver for a cluster: the manifest, command-line flags or a scenario's `cluster` line,
// and the defaults (src/core/timing.ts) become one typed ClusterSpec. `sim`, scenario files,
// `lab` and `node` all come through here. An option is one entry of CLUSTER_OPTIONS: its
// scenario key, its flag, who takes it, how its text is read, where the manifest keeps it,
// and (for an option nothing else depends on) where it goes in the spec. (No commander here:
// the web replay bundles the scenario runner for the browser; see cli-options.ts.)

import { ALGORITHMS, descriptorOf } from "../../src/core/algorithms"
import { Algorithm } from "../../src/core/frame"
import type { AlgorithmDescriptor } from "../../src/core/descriptor"
import type { Timing } from "../../src/core/contract"
import { defaultTiming, withoutDetector } from "../../src/core/timing"
import { MAX_BOARDS } from "../../src/firmware/bus-limits"
import { type ClusterSpec, defaultSpec } from "./cluster-spec"
import {
  checkIds,
  InputError,
  MAX_NODES,
  MIN_NODES,
  NETWORK_NAMES,
  type NetworkName,
  parseAlgorithmName,
  parseDelivery,
  parseDetectorName,
  parseIdArgument,
  parseInteger,
  parseNetworkName,
  parseNumber,
  parseNumberList,
} from "./input"
import type { Manifest } from "./manifest"
import { describeTopology, neighborsFor, parseTopology } from "./topology"

/** Who configures a cluster: each takes its own set of options and has its own defaults. */
export type ClusterUse = "sim" | "scenario" | "lab" | "node"

/** An option's value as read, with the place that gave it (flag, scenario file:line: key, manifest path). */
interface Sourced<T> {
  value: T
  where: string
  fromManifest: boolean
}

interface ClusterOption<T> {
  /** The key in a scenario's `cluster` line. */
  key: string
  /** The command-line flag, with its argument's name. */
  flag: string
  arg: string
  help: string
  /** Who may give it. */
  uses: ClusterUse[]
  /** Reads the value as the command line or a scenario gives it; errors name `where`. */
  parse: (text: string, where: string) => T
  /** The manifest's value and its path there (absent: the manifest has none). */
  manifest?: (m: Manifest) => { value: T; path: string } | undefined
  /** Where the value goes in the spec, for an option nothing else depends on (the others: resolveCluster). */
  apply?: (spec: ClusterSpec, value: T) => void
  /** The spec's value as this option's text (parse reads it back), or undefined: not given. Every option a host node takes has one. */
  write?: (spec: ClusterSpec) => string | undefined
}

/** Each process's suitability, once the ids are known. */
type Suitability = (ids: number[]) => number[]

const ALL: ClusterUse[] = ["sim", "scenario", "lab", "node"]
const TIMED: ClusterUse[] = ["scenario", "lab", "node"]
const option = <T>(o: ClusterOption<T>) => o as ClusterOption<unknown>
const time = (text: string, where: string) => parseNumber(text, where, 0.001, 1e9)
const period = (text: string, where: string) => parseNumber(text, where, 0, 1e9)
const timingField = (field: "heartbeatMs" | "failureTimeoutMs" | "answerTimeoutMs" | "coordinatorTimeoutMs") => (m: Manifest) => ({
  value: m.timing[field],
  path: `timing.${field}`,
})

interface UseRules {
  /** Algorithm when neither the command nor a manifest names one. */
  algorithm: Algorithm
  /** Ids when nothing gives them; null: they must be given. */
  ids: number[] | null
  missingIds: string
  /** Largest cluster. */
  maxNodes: number
  tooMany: string
  /** The failure detector runs always (boards, host nodes), on request (sim --detector), or when the file sets heartbeat=. */
  detector: "always" | "on request" | "when given"
}

const USE_RULES: Record<ClusterUse, UseRules> = {
  sim: {
    algorithm: Algorithm.Bully,
    ids: null,
    missingIds: "give --nodes N or --ids a,b,c (or --scenario FILE)",
    maxNodes: MAX_NODES,
    tooMany: "",
    detector: "on request",
  },
  scenario: { algorithm: Algorithm.Bully, ids: null, missingIds: "cluster needs ids= or nodes=", maxNodes: MAX_NODES, tooMany: "", detector: "when given" },
  lab: {
    algorithm: Algorithm.ImprovedBully,
    ids: [1, 2, 3, 4, 5],
    missingIds: "",
    maxNodes: MAX_BOARDS,
    tooMany: `the firmware joins labs of at most ${MAX_BOARDS} boards`,
    detector: "always",
  },
  node: {
    algorithm: Algorithm.ImprovedBully,
    ids: null,
    missingIds: "--ids is needed: every node id of the lab, this one included",
    maxNodes: MAX_NODES,
    tooMany: "",
    detector: "always",
  },
}

/** Each command's default algorithm, as the help says it: "bully in sim, improved-bully in lab and node". */
function defaultAlgorithms(): string {
  const usesOf = new Map<Algorithm, string[]>()
  for (const use of ["sim", "lab", "node"] as const) usesOf.set(USE_RULES[use].algorithm, [...(usesOf.get(USE_RULES[use].algorithm) ?? []), use])
  return [...usesOf].map(([algorithm, uses]) => `${descriptorOf(algorithm).name} in ${uses.join(" and ")}`).join(", ")
}

export const CLUSTER_OPTIONS: ClusterOption<unknown>[] = [
  option({
    key: "algorithm",
    flag: "--algorithm",
    arg: "name",
    help: `election algorithm: ${ALGORITHMS.map((d) => d.name).join(", ")} (default: the manifest's; else ${defaultAlgorithms()})`,
    uses: ALL,
    parse: parseAlgorithmName,
    manifest: (m) => ({ value: parseAlgorithmName(m.algorithm), path: "algorithm" }),
    write: (spec) => descriptorOf(spec.algorithm).name,
  }),
  option({
    key: "nodes",
    flag: "--nodes",
    arg: "n",
    help: `processes with ids 1..n (${MIN_NODES}..${MAX_NODES})`,
    uses: ["sim", "scenario"],
    parse: (text, where) => parseInteger(text, where, MIN_NODES, MAX_NODES),
  }),
  option({
    key: "boards",
    flag: "--boards",
    arg: "n",
    help: "number of boards, ids 1..n (default: the manifest's boards, or 5)",
    uses: ["lab"],
    parse: (text, where) => parseInteger(text, where, MIN_NODES, MAX_BOARDS),
  }),
  option({
    key: "ids",
    flag: "--ids",
    arg: "list",
    help: "explicit ids in ring order, e.g. 3,9,4 or 0..7 (default: the manifest's)",
    uses: ALL,
    parse: parseIdArgument,
    manifest: (m) => ({ value: m.boards.map((b) => b.nodeId), path: "boards" }),
    write: (spec) => spec.ids.join(","),
  }),
  option({
    key: "network",
    flag: "--network",
    arg: "name",
    help: `${NETWORK_NAMES.join(" | ")} (default: ideal)`,
    uses: ["sim", "scenario"],
    parse: parseNetworkName,
  }),
  option({
    key: "seed",
    flag: "--seed",
    arg: "s",
    help: "seed for the network's random choices (default: 1)",
    uses: ["sim", "scenario"],
    parse: (text, where) => parseInteger(text, where, 0, 2 ** 32 - 1),
    apply: (spec, seed) => (spec.seed = seed),
  }),
  option({
    key: "group",
    flag: "--group",
    arg: "g",
    help: "election group (default: the manifest's, or 1)",
    uses: ["scenario", "lab", "node"],
    parse: (text, where) => parseInteger(text, where, 0, 255),
    manifest: (m) => ({ value: m.group, path: "group" }),
    apply: (spec, group) => (spec.group = group),
    write: (spec) => String(spec.group),
  }),
  option({
    key: "loss",
    flag: "--loss",
    arg: "p",
    help: "probability that a message is lost (0..1, default 0)",
    uses: ["sim", "scenario"],
    parse: (text, where) => parseNumber(text, where, 0, 1),
    apply: (spec, loss) => (spec.loss = loss),
  }),
  option({
    key: "answer-timeout",
    flag: "--answer-timeout",
    arg: "t",
    help: "T: how long to wait for an answer",
    uses: TIMED,
    parse: time,
    manifest: timingField("answerTimeoutMs"),
    write: (spec) => String(spec.timing.answerTimeout),
  }),
  option({
    key: "coordinator-timeout",
    flag: "--coordinator-timeout",
    arg: "t",
    help: "T': after an answer, how long to wait for COORDINATOR",
    uses: TIMED,
    parse: time,
    manifest: timingField("coordinatorTimeoutMs"),
    write: (spec) => String(spec.timing.coordinatorTimeout),
  }),
  option({
    key: "heartbeat",
    flag: "--heartbeat",
    arg: "t",
    help: "coordinator heartbeat period",
    uses: TIMED,
    parse: period,
    manifest: timingField("heartbeatMs"),
    write: (spec) => String(spec.timing.heartbeatInterval),
  }),
  option({
    key: "failure-timeout",
    flag: "--fail-timeout",
    arg: "t",
    help: "silence after which the coordinator is suspected",
    uses: TIMED,
    parse: period,
    manifest: timingField("failureTimeoutMs"),
    write: (spec) => String(spec.timing.failureTimeout),
  }),
  option({
    key: "failure-detector",
    flag: "--failure-detector",
    arg: "name",
    help: "fixed (suspect after the failure timeout) or adaptive (learn the heartbeats); default: the manifest's, or fixed",
    uses: ALL,
    parse: parseDetectorName,
    manifest: (m) => ({ value: m.timing.failureDetector, path: "timing.failureDetector" }),
    write: (spec) => spec.timing.failureDetector ?? "fixed",
  }),
  option({
    key: "topology",
    flag: "--topology",
    arg: "t",
    help: `${namesWhere((d) => d.usesGraph)}: the graph: ring | complete | grid:RxC | FILE (edge list: one 'a b' pair per line; default complete)`,
    uses: ["sim", "scenario"],
    // read with the ids and the scenario's folder known
    parse: (text) => text,
  }),
  option<Suitability>({
    key: "suitability",
    flag: "--suitability",
    arg: "list",
    help: `${namesWhere((d) => d.usesSuitability)}: each process's suitability (0..65535), in the order of the ids (default: the manifest's boards', or 0)`,
    uses: ALL,
    parse: (text, where) => {
      const list = parseNumberList(text, where, 0, 65535)
      return () => list
    },
    // by node id: it follows the ids whatever gives them
    manifest: (m) =>
      m.boards.some((b) => b.suitability !== undefined)
        ? { value: (ids) => ids.map((id) => m.boards.find((b) => b.nodeId === id)?.suitability ?? 0), path: "boards.*.suitability" }
        : undefined,
    // written for the algorithms with bids, zeros included: a manifest's must not fill it in
    write: (spec) => (descriptorOf(spec.algorithm).usesSuitability ? (spec.suitability ?? spec.ids.map(() => 0)).join(",") : undefined),
  }),
  option({
    key: "message-budget",
    flag: "--message-budget",
    arg: "n",
    help: "more election messages than this in the run is a storm (a violation)",
    uses: ["scenario"],
    parse: (text, where) => parseInteger(text, where, 1, 1e12),
    apply: (spec, budget) => (spec.messageBudget = budget),
  }),
  option({
    key: "in-flight-budget",
    flag: "--in-flight-budget",
    arg: "n",
    help: "more election messages than this in flight at once is a storm (a violation)",
    uses: ["scenario"],
    parse: (text, where) => parseInteger(text, where, 1, 1e12),
    apply: (spec, budget) => (spec.inFlightBudget = budget),
  }),
  option<boolean>({
    key: "delivery",
    flag: "--delivery",
    arg: "d",
    help: "how a frame for several processes travels: destinations (a copy to each of them, the default) or shared (a broadcast reaches every process, as on the bus and through a broker)",
    uses: ["scenario"],
    parse: (text, where) => parseDelivery(text, where) === "shared",
    apply: (spec, shared) => (spec.sharedMedium = shared),
    write: (spec) => (spec.sharedMedium ? "shared" : undefined),
  }),
  option({
    key: "instant-events",
    flag: "--instant-events",
    arg: "n",
    help: "more events than this at one instant stops the run (simulated time stalls)",
    uses: ["scenario"],
    parse: (text, where) => parseInteger(text, where, 1, 1e12),
    apply: (spec, events) => (spec.instantEvents = events),
  }),
]

/** Values given by the command line or a scenario line, by option key, each with its place. */
export type Given = Map<string, { text: string; where: string }>

export interface ClusterSources {
  use: ClusterUse
  given: Given
  /** The lab manifest and its file name (named in errors). */
  manifest?: { file: string; manifest: Manifest } | null
  /** The network the driver runs on, when the user does not choose it (lab: bus or wifi; node: wifi). */
  network?: NetworkName
  /** sim --detector: run the heartbeat failure detector. */
  detector?: boolean
  /** Where a relative topology file is looked for (a scenario file's folder). */
  baseDir?: string
  /** The place of the whole command, for problems between options (a scenario's file:line). */
  where?: string
}

/** How a source names an option in a message: the flag, or the scenario key. */
function label(sources: ClusterSources, key: string): string {
  return sources.use === "scenario" ? key : optionNamed(key).flag
}

export function optionNamed(key: string): ClusterOption<unknown> {
  const option = CLUSTER_OPTIONS.find((o) => o.key === key)
  if (!option) throw new Error(`no cluster option '${key}'`)
  return option
}

/** The option keys `use` takes. */
export function optionKeys(use: ClusterUse): string[] {
  return CLUSTER_OPTIONS.filter((o) => o.uses.includes(use)).map((o) => o.key)
}

/** The attribute commander stores a flag's value in: --fail-timeout → failTimeout. */
function attribute(flag: string): string {
  return flag.replace(/^--/, "").replace(/-([a-z])/g, (_, c: string) => c.toUpperCase())
}

/**
 * The command-line arguments that give `spec` to a command of `use` (a host node the lab
 * starts): every option it takes, from the option's own writer, so a new option reaches it.
 */
export function clusterArguments(spec: ClusterSpec, use: ClusterUse): string[] {
  const out: string[] = []
  for (const o of CLUSTER_OPTIONS) {
    if (!o.uses.includes(use)) continue
    if (!o.write) throw new Error(`cluster option ${o.key} has no writer: ${use} cannot be given it`)
    const text = o.write(spec)
    if (text !== undefined) out.push(o.flag, text)
  }
  return out
}

/** The cluster options among parsed command-line flags. */
export function givenFlags(flags: object, use: ClusterUse): Given {
  const given: Given = new Map()
  const values = flags as Record<string, unknown>
  for (const o of CLUSTER_OPTIONS) {
    if (!o.uses.includes(use)) continue
    const value = values[attribute(o.flag)]
    if (typeof value === "string") given.set(o.key, { text: value, where: o.flag })
  }
  return given
}

/** A scenario's `cluster` arguments, checked against the keys it takes. */
export function givenScenario(kv: Map<string, string>, where: string): Given {
  const known = optionKeys("scenario")
  const given: Given = new Map()
  for (const [key, text] of kv) {
    if (!known.includes(key)) throw new InputError(`unknown key '${key}'; known: ${known.join(", ")}`, where)
    given.set(key, { text, where: `${where}: ${key}` })
  }
  return given
}

/** Every option read so far, by key: the manifest's first, the command's over them. */
class Draft {
  private values = new Map<string, Sourced<unknown>>()
  set(key: string, value: Sourced<unknown>) {
    this.values.set(key, value)
  }
  get<T>(key: string): Sourced<T> | undefined {
    return this.values.get(key) as Sourced<T> | undefined
  }
  entries() {
    return this.values.entries()
  }
}

/** Manifest, then the command's values, then the checks between them: one typed spec. */
export function resolveCluster(sources: ClusterSources): ClusterSpec {
  const rules = USE_RULES[sources.use]
  const draft = new Draft()
  const manifest = sources.manifest ?? null
  if (manifest)
    for (const o of CLUSTER_OPTIONS) {
      const found = o.uses.includes(sources.use) ? o.manifest?.(manifest.manifest) : undefined
      if (found) draft.set(o.key, { value: found.value, where: `${manifest.file}: ${found.path}`, fromManifest: true })
    }
  const given = sources.given
  if (given.has("ids") && (given.has("nodes") || given.has("boards")))
    throw new InputError(`give ${label(sources, given.has("nodes") ? "nodes" : "boards")} or ${label(sources, "ids")}, not both`, sources.where)
  for (const [key, { text, where }] of given) {
    const o = optionNamed(key)
    if (!o.uses.includes(sources.use)) throw new InputError(`not an option of ${sources.use}`, where)
    draft.set(key, { value: o.parse(text, where), where, fromManifest: false })
  }

  const algorithm = draft.get<number>("algorithm")?.value ?? rules.algorithm
  const descriptor = descriptorOf(algorithm)
  const ids = resolveIds(sources, draft)
  const network = draft.get<NetworkName>("network")?.value ?? sources.network ?? "ideal"
  const spec: ClusterSpec = { ...defaultSpec(), algorithm, ids, network, timing: resolveTiming(sources, draft, network) }
  for (const [key, value] of draft.entries()) optionNamed(key).apply?.(spec, value.value)

  const topology = draft.get<string>("topology")
  if (topology) {
    const t = parseTopology(topology.value, topology.where, sources.baseDir)
    // every algorithm runs on the complete graph; only a graph algorithm takes another
    if (!descriptor.usesGraph && t.kind !== "complete")
      throw new InputError(`applies to ${namesWhere((d) => d.usesGraph)} only (${descriptor.name} does not use a graph: ring algorithms follow the order of the ids, the bullies reach everybody)`, topology.where)
    if (descriptor.usesGraph) {
      spec.neighbors = neighborsFor(t, ids, topology.where)
      spec.topology = describeTopology(t)
    }
  }
  const suitability = draft.get<Suitability>("suitability")
  // a manifest's suitability serves the algorithms with bids only; given for another one it is a mistake
  if (suitability && (descriptor.usesSuitability || !suitability.fromManifest)) {
    if (!descriptor.usesSuitability) throw new InputError(`applies to ${namesWhere((d) => d.usesSuitability)} only`, suitability.where)
    const list = suitability.value(ids)
    if (list.length !== ids.length)
      throw new InputError(`${list.length} values for ${ids.length} processes (one per id, in the order of the ids)`, suitability.where)
    spec.suitability = list
  }
  return spec
}

function resolveIds(sources: ClusterSources, draft: Draft): number[] {
  const rules = USE_RULES[sources.use]
  const count = draft.get<number>("nodes") ?? draft.get<number>("boards")
  const listed = draft.get<number[]>("ids")
  let ids: number[]
  let where: string
  if (count) [ids, where] = [Array.from({ length: count.value }, (_, i) => i + 1), count.where]
  else if (listed) [ids, where] = [listed.value, listed.where]
  else if (rules.ids) [ids, where] = [rules.ids, "boards"]
  else throw new InputError(rules.missingIds, sources.use === "node" ? "--ids" : sources.where)
  checkIds(ids, where)
  if (ids.length > rules.maxNodes) throw new InputError(`${rules.tooMany}, got ${ids.length}`, where)
  return ids
}

function resolveTiming(sources: ClusterSources, draft: Draft, network: NetworkName): Timing {
  const rules = USE_RULES[sources.use]
  const withDetector = rules.detector === "always" || (rules.detector === "on request" && !!sources.detector)
  const base = withDetector ? defaultTiming(network) : withoutDetector(defaultTiming(network))
  /** A timing value: given beats the manifest (milliseconds: not for the ideal network's ticks; the detector's only when it runs). */
  const value = <T>(key: string, detectorOnly: boolean): T | undefined => {
    const v = draft.get<T>(key)
    if (!v) return undefined
    if (v.fromManifest && (network === "ideal" || (detectorOnly && !withDetector))) return undefined
    return v.value
  }
  const timing: Timing = {
    answerTimeout: value<number>("answer-timeout", false) ?? base.answerTimeout,
    coordinatorTimeout: value<number>("coordinator-timeout", false) ?? base.coordinatorTimeout,
    heartbeatInterval: value<number>("heartbeat", true) ?? base.heartbeatInterval,
    failureTimeout: value<number>("failure-timeout", true) ?? base.failureTimeout,
  }
  const detector = sources.given.get("failure-detector")
  if (detector && rules.detector === "on request" && !sources.detector)
    throw new InputError("needs --detector (the heartbeat failure detector)", detector.where)
  const detectorName = value<string>("failure-detector", true) ?? (withDetector ? base.failureDetector : undefined)
  if (detectorName !== undefined) timing.failureDetector = detectorName
  // the place: the option given that breaks the rule (either side), else the command
  const where = (key: string, other: string) =>
    sources.use === "scenario" ? sources.where : (sources.given.get(key)?.where ?? sources.given.get(other)?.where ?? sources.where)
  if (timing.heartbeatInterval > 0 && !(timing.failureTimeout > timing.heartbeatInterval))
    throw new InputError(`${label(sources, "failure-timeout")} must be longer than ${label(sources, "heartbeat")}`, where("failure-timeout", "heartbeat"))
  if (!(timing.coordinatorTimeout > timing.answerTimeout))
    throw new InputError(
      `${label(sources, "coordinator-timeout")} must be longer than ${label(sources, "answer-timeout")}`,
      where("coordinator-timeout", "answer-timeout"),
    )
  return timing
}

/** The names of the algorithms a descriptor test picks, "a or b" (help and error texts). */
export function namesWhere(picks: (d: AlgorithmDescriptor) => boolean): string {
  return ALGORITHMS.filter(picks)
    .map((d) => d.name)
    .join(" or ")
}
