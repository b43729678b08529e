// One resolver for a cluster: the manifest, command-line flags or a scenario's `cluster` line,
// and the defaults (src/core/timing.ts) become one typed ClusterSpec. `sim`, scenario files,
// `lab` and `node` all come through here. An option is one entry of CLUSTER_OPTIONS: its
// scenario key, its flag, where the manifest keeps it, and how its text is read.

import { Option } from "commander"
import { descriptorOf } from "../../src/core/algorithms"
import { algorithmNames } from "../../src/core/frame"
import type { Timing } from "../../src/core/node"
import { defaultTiming, withoutDetector } from "../../src/core/timing"
import { MAX_BOARDS } from "../../src/firmware/bus-limits"
import {
  checkIds,
  type ClusterSpec,
  InputError,
  MAX_NODES,
  MIN_NODES,
  parseAlgorithmName,
  parseIdArgument,
  parseInteger,
  parseNetworkName,
  parseNumber,
  parseNumberList,
} from "../cluster"
import { parseDetectorName } from "../detector-option"
import type { Manifest } from "../manifest"
import { NETWORK_NAMES, type NetworkName } from "../networks"
import { describeTopology, neighborsFor, parseTopology } from "../topology"

/** Who configures a cluster: each takes its own set of options and has its own defaults. */
export type ClusterUse = "sim" | "scenario" | "lab" | "node"

/** An option's value as read, with the place that gave it (flag, scenario file:line: key, manifest path). */
interface Sourced<T> {
  value: T
  where: string
}

/** Every option read so far, typed; `resolveCluster` checks them together. */
interface Draft {
  algorithm?: Sourced<number>
  ids?: Sourced<number[]>
  count?: Sourced<number>
  network?: Sourced<NetworkName>
  seed?: Sourced<number>
  group?: Sourced<number>
  loss?: Sourced<number>
  answerTimeout?: Sourced<number>
  coordinatorTimeout?: Sourced<number>
  heartbeat?: Sourced<number>
  failureTimeout?: Sourced<number>
  detector?: Sourced<string>
  topology?: Sourced<string>
  /** Each process's suitability, once the ids are known. */
  suitability?: Sourced<(ids: number[]) => number[]>
  messageBudget?: Sourced<number>
  instantEvents?: Sourced<number>
}

interface ClusterOption {
  /** The key in a scenario's `cluster` line. */
  key: string
  /** The command-line flag, with its argument's name. */
  flag: string
  arg: string
  help: string
  /** Who may give it. */
  uses: ClusterUse[]
  /** Reads the value from a manifest into the draft; `at(path)` names the place. */
  manifest?: (m: Manifest, draft: Draft, at: (path: string) => string) => void
  /** Reads the value as the command line or a scenario gives it. */
  read: (draft: Draft, text: string, where: string) => void
}

const ALL: ClusterUse[] = ["sim", "scenario", "lab", "node"]
/** A manifest's timing field (already checked by the manifest's schema). */
function fromTiming(field: "heartbeatMs" | "failureTimeoutMs" | "answerTimeoutMs" | "coordinatorTimeoutMs", key: keyof Draft) {
  return (m: Manifest, d: Draft, at: (path: string) => string) => {
    ;(d[key] as Sourced<number>) = { value: m.timing[field], where: at(`timing.${field}`) }
  }
}

export const CLUSTER_OPTIONS: ClusterOption[] = [
  {
    key: "algorithm",
    flag: "--algorithm",
    arg: "name",
    help: `election algorithm: ${algorithmNames().join(", ")} (default: the manifest's; else bully in sim, improved-bully in lab and node)`,
    uses: ALL,
    manifest: (m, d, at) => (d.algorithm = { value: parseAlgorithmName(m.algorithm, at("algorithm")), where: at("algorithm") }),
    read: (d, text, where) => (d.algorithm = { value: parseAlgorithmName(text, where), where }),
  },
  {
    key: "nodes",
    flag: "--nodes",
    arg: "n",
    help: `processes with ids 1..n (${MIN_NODES}..${MAX_NODES})`,
    uses: ["sim", "scenario"],
    read: (d, text, where) => (d.count = { value: parseInteger(text, where, MIN_NODES, MAX_NODES), where }),
  },
  {
    key: "boards",
    flag: "--boards",
    arg: "n",
    help: "number of boards, ids 1..n (default: the manifest's boards, or 5)",
    uses: ["lab"],
    read: (d, text, where) => (d.count = { value: parseInteger(text, where, MIN_NODES, MAX_BOARDS), where }),
  },
  {
    key: "ids",
    flag: "--ids",
    arg: "list",
    help: "explicit ids in ring order, e.g. 3,9,4 or 0..7 (default: the manifest's)",
    uses: ALL,
    manifest: (m, d, at) => (d.ids = { value: m.boards.map((b) => b.nodeId), where: at("boards") }),
    read: (d, text, where) => (d.ids = { value: parseIdArgument(text, where), where }),
  },
  {
    key: "network",
    flag: "--network",
    arg: "name",
    help: `${NETWORK_NAMES.join(" | ")} (default: ideal)`,
    uses: ["sim", "scenario"],
    read: (d, text, where) => (d.network = { value: parseNetworkName(text, where), where }),
  },
  {
    key: "seed",
    flag: "--seed",
    arg: "s",
    help: "seed for the network's random choices (default: 1)",
    uses: ["sim", "scenario"],
    read: (d, text, where) => (d.seed = { value: parseInteger(text, where, 0, 2 ** 32 - 1), where }),
  },
  {
    key: "group",
    flag: "--group",
    arg: "g",
    help: "election group (default: the manifest's, or 1)",
    uses: ["scenario", "lab", "node"],
    manifest: (m, d, at) => (d.group = { value: m.group, where: at("group") }),
    read: (d, text, where) => (d.group = { value: parseInteger(text, where, 0, 255), where }),
  },
  {
    key: "loss",
    flag: "--loss",
    arg: "p",
    help: "probability that a message is lost (0..1, default 0)",
    uses: ["sim", "scenario"],
    read: (d, text, where) => (d.loss = { value: parseNumber(text, where, 0, 1), where }),
  },
  {
    key: "answer-timeout",
    flag: "--answer-timeout",
    arg: "t",
    help: "T: how long to wait for an answer",
    uses: ["scenario", "lab", "node"],
    manifest: fromTiming("answerTimeoutMs", "answerTimeout"),
    read: (d, text, where) => (d.answerTimeout = { value: parseNumber(text, where, 0.001, 1e9), where }),
  },
  {
    key: "coordinator-timeout",
    flag: "--coordinator-timeout",
    arg: "t",
    help: "T': after an answer, how long to wait for COORDINATOR",
    uses: ["scenario", "lab", "node"],
    manifest: fromTiming("coordinatorTimeoutMs", "coordinatorTimeout"),
    read: (d, text, where) => (d.coordinatorTimeout = { value: parseNumber(text, where, 0.001, 1e9), where }),
  },
  {
    key: "heartbeat",
    flag: "--heartbeat",
    arg: "t",
    help: "coordinator heartbeat period",
    uses: ["scenario", "lab", "node"],
    manifest: fromTiming("heartbeatMs", "heartbeat"),
    read: (d, text, where) => (d.heartbeat = { value: parseNumber(text, where, 0, 1e9), where }),
  },
  {
    key: "failure-timeout",
    flag: "--fail-timeout",
    arg: "t",
    help: "silence after which the coordinator is suspected",
    uses: ["scenario", "lab", "node"],
    manifest: fromTiming("failureTimeoutMs", "failureTimeout"),
    read: (d, text, where) => (d.failureTimeout = { value: parseNumber(text, where, 0, 1e9), where }),
  },
  {
    key: "failure-detector",
    flag: "--failure-detector",
    arg: "name",
    help: "fixed (suspect after the failure timeout) or adaptive (learn the heartbeats); default: the manifest's, or fixed",
    uses: ALL,
    manifest: (m, d, at) => (d.detector = { value: m.timing.failureDetector, where: at("timing.failureDetector") }),
    read: (d, text, where) => (d.detector = { value: parseDetectorName(text, where), where }),
  },
  {
    key: "topology",
    flag: "--topology",
    arg: "t",
    help: "echo's graph: ring | complete | grid:RxC | FILE (edge list: one 'a b' pair per line; default complete)",
    uses: ["sim", "scenario"],
    read: (d, text, where) => (d.topology = { value: text, where }),
  },
  {
    key: "suitability",
    flag: "--suitability",
    arg: "list",
    help: "bid-ring: each process's suitability (0..65535), in the order of the ids (default: the manifest's boards', or 0)",
    uses: ["sim", "scenario", "lab", "node"],
    // by node id: it follows the ids whatever gives them
    manifest: (m, d, at) => {
      if (m.boards.some((b) => b.suitability !== undefined))
        d.suitability = { value: (ids) => ids.map((id) => m.boards.find((b) => b.nodeId === id)?.suitability ?? 0), where: at("boards.*.suitability") }
    },
    read: (d, text, where) => {
      const list = parseNumberList(text, where, 0, 65535)
      d.suitability = { value: () => list, where }
    },
  },
  {
    key: "message-budget",
    flag: "--message-budget",
    arg: "n",
    help: "more election messages than this in the run is a storm (a violation)",
    uses: ["scenario"],
    read: (d, text, where) => (d.messageBudget = { value: parseInteger(text, where, 1, 1e12), where }),
  },
  {
    key: "instant-events",
    flag: "--instant-events",
    arg: "n",
    help: "more events than this at one instant stops the run (simulated time stalls)",
    uses: ["scenario"],
    read: (d, text, where) => (d.instantEvents = { value: parseInteger(text, where, 1, 1e12), where }),
  },
]

interface UseRules {
  /** Algorithm when neither the command nor a manifest names one. */
  algorithm: string
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
    algorithm: "bully",
    ids: null,
    missingIds: "give --nodes N or --ids a,b,c (or --scenario FILE)",
    maxNodes: MAX_NODES,
    tooMany: "",
    detector: "on request",
  },
  scenario: { algorithm: "bully", ids: null, missingIds: "cluster needs ids= or nodes=", maxNodes: MAX_NODES, tooMany: "", detector: "when given" },
  lab: {
    algorithm: "improved-bully",
    ids: [1, 2, 3, 4, 5],
    missingIds: "",
    maxNodes: MAX_BOARDS,
    tooMany: `the firmware joins labs of at most ${MAX_BOARDS} boards`,
    detector: "always",
  },
  node: {
    algorithm: "improved-bully",
    ids: null,
    missingIds: "--ids is needed: every node id of the lab, this one included",
    maxNodes: MAX_NODES,
    tooMany: "",
    detector: "always",
  },
}

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

function optionNamed(key: string): ClusterOption {
  const option = CLUSTER_OPTIONS.find((o) => o.key === key)
  if (!option) throw new Error(`no cluster option '${key}'`)
  return option
}

/** The option keys `use` takes. */
export function optionKeys(use: ClusterUse): string[] {
  return CLUSTER_OPTIONS.filter((o) => o.uses.includes(use)).map((o) => o.key)
}

/** A commander Option for a cluster option (the same flag and help on every command). */
export function clusterOption(key: string): Option {
  const o = optionNamed(key)
  return new Option(`${o.flag} <${o.arg}>`, o.help)
}

/** The attribute commander stores a flag's value in: --fail-timeout → failTimeout. */
function attribute(flag: string): string {
  return flag.replace(/^--/, "").replace(/-([a-z])/g, (_, c: string) => c.toUpperCase())
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

/** Manifest, then the command's values, then the checks between them: one typed spec. */
export function resolveCluster(sources: ClusterSources): ClusterSpec {
  const rules = USE_RULES[sources.use]
  const manifest = sources.manifest ?? null
  const draft: Draft = {}
  if (manifest)
    for (const o of CLUSTER_OPTIONS)
      if (o.uses.includes(sources.use)) o.manifest?.(manifest.manifest, draft, (path) => `${manifest.file}: ${path}`)
  const fromManifest = { ...draft }
  const given = sources.given
  if (given.has("ids") && (given.has("nodes") || given.has("boards")))
    throw new InputError(`give ${label(sources, given.has("nodes") ? "nodes" : "boards")} or ${label(sources, "ids")}, not both`, sources.where)
  for (const [key, value] of given) {
    const o = optionNamed(key)
    if (!o.uses.includes(sources.use)) throw new InputError(`not an option of ${sources.use}`, value.where)
    o.read(draft, value.text, value.where)
  }

  const algorithmSource = draft.algorithm ?? { value: parseAlgorithmName(rules.algorithm), where: "" }
  const algorithm = algorithmSource.value
  const descriptor = descriptorOf(algorithm)

  let ids: number[]
  let idsWhere: string
  if (given.has("nodes") || given.has("boards")) {
    ids = Array.from({ length: draft.count!.value }, (_, i) => i + 1)
    idsWhere = draft.count!.where
  } else if (draft.ids) {
    ids = draft.ids.value
    idsWhere = draft.ids.where
  } else if (rules.ids) {
    ids = rules.ids
    idsWhere = "boards"
  } else throw new InputError(rules.missingIds, sources.use === "node" ? "--ids" : sources.where)
  checkIds(ids, idsWhere)
  if (ids.length > rules.maxNodes) throw new InputError(`${rules.tooMany}, got ${ids.length}`, idsWhere)

  const network = draft.network?.value ?? sources.network ?? "ideal"
  const timing = resolveTiming(sources, draft, fromManifest, network)

  const spec: ClusterSpec = {
    algorithm,
    ids,
    network,
    seed: draft.seed?.value ?? 1,
    group: draft.group?.value ?? 1,
    timing,
    loss: draft.loss?.value ?? 0,
    messageBudget: draft.messageBudget?.value ?? 0,
    instantEvents: draft.instantEvents?.value ?? 0,
  }
  const topology = draft.topology
  if (topology) {
    const t = parseTopology(topology.value, topology.where, sources.baseDir)
    // every algorithm runs on the complete graph; only a graph algorithm takes another
    if (!descriptor.usesGraph && t.kind !== "complete")
      throw new InputError(`applies to echo only (${descriptor.name} does not use a graph: ring algorithms follow the order of the ids, the bullies reach everybody)`, topology.where)
    if (descriptor.usesGraph) {
      spec.neighbors = neighborsFor(t, ids, topology.where)
      spec.topology = describeTopology(t)
    }
  }
  const suitability = draft.suitability
  // a manifest's suitability serves bid-ring only; given explicitly for another algorithm it is a mistake
  if (suitability && (descriptor.usesSuitability || suitability !== fromManifest.suitability)) {
    if (!descriptor.usesSuitability) throw new InputError("applies to bid-ring only", suitability.where)
    const list = suitability.value(ids)
    if (list.length !== ids.length)
      throw new InputError(`${list.length} values for ${ids.length} processes (one per id, in the order of the ids)`, suitability.where)
    spec.suitability = list
  }
  return spec
}

function resolveTiming(sources: ClusterSources, draft: Draft, fromManifest: Draft, network: NetworkName): Timing {
  const rules = USE_RULES[sources.use]
  const withDetector = rules.detector === "always" || (rules.detector === "on request" && !!sources.detector)
  const base = withDetector ? defaultTiming(network) : withoutDetector(defaultTiming(network))
  // the manifest's times are milliseconds: the ideal network counts in ticks
  const manifest = network === "ideal" ? {} : fromManifest
  const given = (key: string, field: keyof Draft): number | undefined =>
    sources.given.has(key) ? (draft[field] as Sourced<number>).value : undefined
  const fromFile = (field: keyof Draft): number | undefined => (manifest[field] as Sourced<number> | undefined)?.value
  const timing: Timing = {
    answerTimeout: given("answer-timeout", "answerTimeout") ?? fromFile("answerTimeout") ?? base.answerTimeout,
    coordinatorTimeout: given("coordinator-timeout", "coordinatorTimeout") ?? fromFile("coordinatorTimeout") ?? base.coordinatorTimeout,
    heartbeatInterval: given("heartbeat", "heartbeat") ?? (withDetector ? fromFile("heartbeat") : undefined) ?? base.heartbeatInterval,
    failureTimeout: given("failure-timeout", "failureTimeout") ?? (withDetector ? fromFile("failureTimeout") : undefined) ?? base.failureTimeout,
  }
  const detector = sources.given.get("failure-detector")
  if (detector && rules.detector === "on request" && !sources.detector)
    throw new InputError("needs --detector (the heartbeat failure detector)", detector.where)
  const detectorName = detector ? draft.detector!.value : withDetector ? (manifest.detector?.value ?? base.failureDetector) : undefined
  if (detectorName !== undefined) timing.failureDetector = detectorName
  // the place: the option given that breaks the rule (either side), else the command
  const where = (key: string, other: string) => sources.given.get(key)?.where ?? sources.given.get(other)?.where ?? sources.where
  if (timing.heartbeatInterval > 0 && !(timing.failureTimeout > timing.heartbeatInterval))
    throw new InputError(
      `${label(sources, "failure-timeout")} must be longer than ${label(sources, "heartbeat")}`,
      sources.use === "scenario" ? sources.where : where("failure-timeout", "heartbeat"),
    )
  if (!(timing.coordinatorTimeout > timing.answerTimeout))
    throw new InputError(
      `${label(sources, "coordinator-timeout")} must be longer than ${label(sources, "answer-timeout")}`,
      sources.use === "scenario" ? sources.where : where("coordinator-timeout", "answer-timeout"),
    )
  return timing
}
