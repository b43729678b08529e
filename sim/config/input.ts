// Input from a user (flags, scenario, script and manifest files): parsed, with errors that
// name the problem and the place.

import { readFileSync } from "node:fs"
import { ALGORITHMS, descriptorNamed } from "../../src/core/algorithms"
import { DETECTOR_NAMES, type DetectorName } from "../../src/core/failure-detector"
import { MAX_NODE_ID } from "../../src/core/frame"

/** Bad input from a user: the message names the problem, `where` names the place. */
export class InputError extends Error {
  constructor(
    message: string,
    public where?: string,
  ) {
    super(where ? `${where}: ${message}` : message)
    this.name = "InputError"
  }
}

/** A text file the user named; a missing or unreadable one is an InputError naming it. */
export function readInputFile(file: string, what: string): string {
  try {
    return readFileSync(file, "utf8")
  } catch (e) {
    throw new InputError(`cannot read the ${what}: ${(e as Error).message}`, file)
  }
}

export const MIN_NODES = 2
export const MAX_NODES = 10000

export function parseAlgorithmName(name: string, where?: string): number {
  const d = descriptorNamed(name)
  if (!d) throw new InputError(`unknown algorithm '${name}'; known: ${ALGORITHMS.map((a) => a.name).join(", ")}`, where)
  return d.algorithm
}

/** The simulator's network models (sim/simulator/networks.ts makes them). */
export const NETWORK_NAMES = ["ideal", "bus", "wifi"] as const
export type NetworkName = (typeof NETWORK_NAMES)[number]

export function parseNetworkName(name: string, where?: string): NetworkName {
  if ((NETWORK_NAMES as readonly string[]).includes(name)) return name as NetworkName
  throw new InputError(`unknown network '${name}'; known: ${NETWORK_NAMES.join(", ")}`, where)
}

/** The failure-detector option shared by `sim`, `lab`, `node` and the scenario `cluster` line. */
export function parseDetectorName(text: string, where: string): DetectorName {
  if ((DETECTOR_NAMES as string[]).includes(text)) return text as DetectorName
  throw new InputError(`unknown failure detector '${text}'; known: ${DETECTOR_NAMES.join(", ")}`, where)
}

/** How a frame for several processes travels in the simulator (EngineOptions.sharedMedium). */
export const DELIVERIES = ["destinations", "shared"] as const
export type Delivery = (typeof DELIVERIES)[number]

export function parseDelivery(text: string, where: string): Delivery {
  if ((DELIVERIES as readonly string[]).includes(text)) return text as Delivery
  throw new InputError(`unknown delivery '${text}'; known: ${DELIVERIES.join(", ")}`, where)
}

export function parseNumber(text: string, where: string, min: number, max: number): number {
  if (!/^-?\d+(\.\d+)?$/.test(text.trim()))
    throw new InputError(`'${text}' is not a number`, where)
  const n = Number(text)
  if (n < min || n > max) throw new InputError(`${n} is out of range ${min}..${max}`, where)
  return n
}

export function parseInteger(text: string, where: string, min: number, max: number): number {
  const n = parseNumber(text, where, min, max)
  if (!Number.isInteger(n)) throw new InputError(`'${text}' is not a whole number`, where)
  return n
}

/** "5,0,0": one whole number per process, in the order of the ids. */
export function parseNumberList(text: string, where: string, min: number, max: number): number[] {
  return text.split(",").map((part) => {
    if (part.trim() === "") throw new InputError(`empty entry in list '${text}'`, where)
    return parseInteger(part, where, min, max)
  })
}

/**
 * An id list as a user gives it (flag, scenario): "1,2,5", "0..7" or "1..3,9", in the order
 * given; anything else is an error naming `where`. (A board's settings are read leniently by
 * src/firmware/config.ts parseIdList.)
 */
export function parseIdArgument(text: string, where: string): number[] {
  const ids: number[] = []
  for (const part of text.split(",")) {
    const item = part.trim()
    if (item === "") throw new InputError(`empty entry in id list '${text}'`, where)
    const range = /^(\d+)\.\.(\d+)$/.exec(item)
    if (range) {
      const lo = parseInteger(range[1], where, 0, MAX_NODE_ID)
      const hi = parseInteger(range[2], where, 0, MAX_NODE_ID)
      if (hi < lo) throw new InputError(`range ${item} runs backwards`, where)
      if (hi - lo + 1 > MAX_NODES) throw new InputError(`range ${item} is too large`, where)
      for (let id = lo; id <= hi; id++) ids.push(id)
    } else {
      if (!/^\d+$/.test(item))
        throw new InputError(`'${item}' is not a process id (0..${MAX_NODE_ID})`, where)
      ids.push(parseInteger(item, where, 0, MAX_NODE_ID))
    }
  }
  return ids
}

export function checkIds(ids: number[], where: string): void {
  if (ids.length < MIN_NODES || ids.length > MAX_NODES)
    throw new InputError(
      `a cluster needs ${MIN_NODES}..${MAX_NODES} processes, got ${ids.length}`,
      where,
    )
  const seen = new Set<number>()
  for (const id of ids) {
    if (seen.has(id)) throw new InputError(`duplicate process id ${id}`, where)
    seen.add(id)
  }
}

/** Ids named by a flag must belong to the cluster. */
export function checkMembers(named: number[], ids: number[], where: string): void {
  const members = new Set(ids)
  for (const id of named)
    if (!members.has(id))
      throw new InputError(`process ${id} is not in the cluster (${describeIds(ids)})`, where)
}

export function describeIds(ids: number[]): string {
  const sorted = [...ids].sort((a, b) => a - b)
  const contiguous = sorted.every((id, i) => i === 0 || id === sorted[i - 1] + 1)
  if (contiguous && sorted.length > 3) return `ids ${sorted[0]}..${sorted[sorted.length - 1]}`
  return `ids ${sorted.join(",")}`
}

/** `key=value` arguments in order; a malformed or repeated key names the problem and the place. */
export function keyValues(args: string[], where: string): Map<string, string> {
  const kv = new Map<string, string>()
  for (const arg of args) {
    const eq = arg.indexOf("=")
    if (eq <= 0) throw new InputError(`expected key=value, got '${arg}'`, where)
    const key = arg.slice(0, eq)
    if (kv.has(key)) throw new InputError(`'${key}' given twice`, where)
    kv.set(key, arg.slice(eq + 1))
  }
  return kv
}
