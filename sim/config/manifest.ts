// The lab manifest (devicescript.json): checked against sim/manifest.schema.json, then for
// what a schema cannot say (unique node and device ids, timeouts in the right order).

import { readFileSync } from "node:fs"
import { join } from "node:path"
import { ROOT } from "./root"
import AjvModule from "ajv"
import type { DetectorName } from "../../src/core/failure-detector"
import type { Timing } from "../../src/core/contract"
import { defaultTiming } from "../../src/core/timing"
import { InputError, readInputFile } from "./input"

export interface ManifestBoard {
  name: string
  board?: string
  deviceId?: string
  nodeId: number
  suitability?: number
}

export interface Manifest {
  group: number
  algorithm: string
  transport: "bus" | "mqtt"
  timing: Required<NonNullable<ManifestTiming>>
  mqtt?: { broker: string; topicPrefix?: string }
  boards: ManifestBoard[]
}

interface ManifestTiming {
  heartbeatMs?: number
  failureTimeoutMs?: number
  answerTimeoutMs?: number
  coordinatorTimeoutMs?: number
  failureDetector?: DetectorName
}

/** A manifest's timing when it gives none: the transport's row of the defaults table. */
export function defaultManifestTiming(transport: Manifest["transport"]): Manifest["timing"] {
  const t = defaultTiming(transport)
  return {
    heartbeatMs: t.heartbeatInterval,
    failureTimeoutMs: t.failureTimeout,
    answerTimeoutMs: t.answerTimeout,
    coordinatorTimeoutMs: t.coordinatorTimeout,
    failureDetector: t.failureDetector as DetectorName,
  }
}

const schema = JSON.parse(readFileSync(join(ROOT, "sim", "manifest.schema.json"), "utf8"))
const Ajv = (AjvModule as unknown as { default: typeof AjvModule }).default ?? AjvModule
const validate = new Ajv({ allErrors: true }).compile(schema)

/** Checks a parsed manifest; `file` names it in errors. */
export function checkManifest(data: unknown, file: string): Manifest {
  if (!validate(data)) {
    const problems = (validate.errors ?? []).map((e) => {
      const path = e.instancePath ? e.instancePath.slice(1).replace(/\//g, ".") : "(top)"
      const extra = e.keyword === "additionalProperties" ? ` '${e.params.additionalProperty}'` : ""
      const allowed = e.keyword === "enum" ? ` (${e.params.allowedValues.join(", ")})` : ""
      return `${path}: ${e.message}${extra}${allowed}`
    })
    throw new InputError(problems.join("; "), file)
  }
  const m = data as Omit<Manifest, "timing"> & { timing?: ManifestTiming }
  const timing = { ...defaultManifestTiming(m.transport), ...(m.timing ?? {}) }
  const seenNode = new Map<number, number>()
  const seenDevice = new Map<string, number>()
  m.boards.forEach((b, i) => {
    const other = seenNode.get(b.nodeId)
    if (other !== undefined)
      throw new InputError(`boards.${i}.nodeId: duplicate node id ${b.nodeId} (also boards.${other})`, file)
    seenNode.set(b.nodeId, i)
    if (b.deviceId) {
      const key = b.deviceId.toLowerCase()
      const otherDevice = seenDevice.get(key)
      if (otherDevice !== undefined)
        throw new InputError(`boards.${i}.deviceId: duplicate device id ${b.deviceId} (also boards.${otherDevice})`, file)
      seenDevice.set(key, i)
    }
  })
  if (!(timing.failureTimeoutMs > timing.heartbeatMs))
    throw new InputError("timing.failureTimeoutMs must be longer than timing.heartbeatMs", file)
  if (!(timing.coordinatorTimeoutMs > timing.answerTimeoutMs))
    throw new InputError("timing.coordinatorTimeoutMs must be longer than timing.answerTimeoutMs", file)
  if (m.transport === "mqtt" && !m.mqtt) throw new InputError("transport mqtt needs an mqtt section with a broker", file)
  return { ...m, timing }
}

export function readManifest(file: string): Manifest {
  const text = readInputFile(file, "manifest")
  let data: unknown
  try {
    data = JSON.parse(text)
  } catch (e) {
    throw new InputError(`not valid JSON: ${(e as Error).message}`, file)
  }
  return checkManifest(data, file)
}

/** The core's timing (ms) for a manifest. */
export function manifestTiming(m: Manifest): Timing {
  return {
    answerTimeout: m.timing.answerTimeoutMs,
    coordinatorTimeout: m.timing.coordinatorTimeoutMs,
    heartbeatInterval: m.timing.heartbeatMs,
    failureTimeout: m.timing.failureTimeoutMs,
    failureDetector: m.timing.failureDetector,
  }
}
