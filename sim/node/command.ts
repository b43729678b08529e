// `electlab node`: a host node (or an observer) on a lab's MQTT broker.

import { existsSync, readFileSync } from "node:fs"
import { algorithmName } from "../../src/core/frame"
import { TRANSPORT_MQTT } from "../../src/firmware/config"
import { DEFAULT_TOPIC_PREFIX } from "../../src/firmware/topics"
import { checkIds, checkMembers, InputError, parseAlgorithmName, parseIdList, parseInteger, parseNumber } from "../cluster"
import { parseDetectorName } from "../detector-option"
import { DEFAULT_TIMING, readManifest } from "../manifest"
import { startHostNode } from "./host-node"
import { startObserver } from "./observe"
import { readKeyFile } from "../auth/keys"

export interface NodeFlags {
  transport: string
  broker?: string
  id?: string
  ids?: string
  algorithm?: string
  group?: string
  prefix: string
  manifest?: string
  heartbeat?: string
  failTimeout?: string
  answerTimeout?: string
  coordinatorTimeout?: string
  failureDetector?: string
  observe?: boolean
  stdinControl?: boolean
  keyFile?: string
  mqttUser?: string
  mqttPasswordFile?: string
}

function readPasswordFile(file: string): string {
  try {
    return readFileSync(file, "utf8").trim()
  } catch (e) {
    throw new InputError(`cannot read password file '${file}': ${(e as Error).message}`, "--mqtt-password-file")
  }
}

export function checkBroker(url: string | undefined, where: string): string {
  if (!url) throw new InputError("a broker is needed, e.g. --broker mqtt://127.0.0.1:1883", where)
  if (!/^mqtts?:\/\/[^\s/:]+(:\d+)?\/?$/.test(url)) throw new InputError(`'${url}' is not mqtt://HOST:PORT`, where)
  return url
}

export async function runNodeCommand(flags: NodeFlags): Promise<void> {
  if (flags.transport !== "mqtt")
    throw new InputError(`a host node joins over mqtt only (the bus needs a Jacdac bridge), got '${flags.transport}'`, "--transport")
  const broker = checkBroker(flags.broker, "--broker")
  const manifestFile = flags.manifest ?? (existsSync("devicescript.json") ? "devicescript.json" : undefined)
  const manifest = manifestFile ? readManifest(manifestFile) : null
  const group = flags.group !== undefined ? parseInteger(flags.group, "--group", 0, 255) : (manifest?.group ?? 1)
  const prefix = flags.prefix || DEFAULT_TOPIC_PREFIX
  if (flags.observe) {
    const observer = startObserver({ broker, prefix, group })
    await new Promise<void>((resolve) => {
      const leave = (): void => void observer.stop().then(resolve)
      process.once("SIGINT", leave)
      process.once("SIGTERM", leave)
    })
    process.exit(0)
  }
  if (flags.id === undefined) throw new InputError("--id N is needed (or --observe)", "--id")
  const id = parseInteger(flags.id, "--id", 0, 0xfffe)
  const ids = flags.ids !== undefined ? parseIdList(flags.ids, "--ids") : (manifest?.boards.map((b) => b.nodeId) ?? [])
  if (ids.length === 0) throw new InputError("--ids is needed: every node id of the lab, this one included", "--ids")
  checkIds(ids, "--ids")
  checkMembers([id], ids, "--id")
  const algorithm = parseAlgorithmName(flags.algorithm ?? manifest?.algorithm ?? "improved-bully", flags.algorithm ? "--algorithm" : manifestFile)
  const t = manifest?.timing ?? DEFAULT_TIMING
  const timing = {
    heartbeatInterval: flags.heartbeat ? parseNumber(flags.heartbeat, "--heartbeat", 1, 1e6) : t.heartbeatMs,
    failureTimeout: flags.failTimeout ? parseNumber(flags.failTimeout, "--fail-timeout", 1, 1e6) : t.failureTimeoutMs,
    answerTimeout: flags.answerTimeout ? parseNumber(flags.answerTimeout, "--answer-timeout", 1, 1e6) : t.answerTimeoutMs,
    coordinatorTimeout: flags.coordinatorTimeout
      ? parseNumber(flags.coordinatorTimeout, "--coordinator-timeout", 1, 1e6)
      : t.coordinatorTimeoutMs,
    failureDetector: flags.failureDetector ? parseDetectorName(flags.failureDetector, "--failure-detector") : t.failureDetector,
  }
  const node = await startHostNode({
    broker,
    stdinControl: flags.stdinControl,
    config: {
      nodeId: id,
      ids,
      algorithm,
      group,
      timing,
      buttonPin: -1,
      suitability: 0,
      transport: TRANSPORT_MQTT,
      mqttHost: broker,
      mqttPort: 0,
      topicPrefix: prefix,
      authKey: flags.keyFile ? readKeyFile(flags.keyFile, "--key-file") : undefined,
      mqttUser: flags.mqttUser,
      mqttPassword: flags.mqttPasswordFile ? readPasswordFile(flags.mqttPasswordFile) : undefined,
    },
  })
  process.stderr.write(
    `node ${id} (${algorithmName(algorithm)}) on ${broker}, ids ${ids.join(",")}, ` +
      `${flags.keyFile ? "frames authenticated" : "NO KEY: frames unauthenticated"}; Ctrl-C to leave\n`,
  )
  await new Promise<void>((resolve) => {
    const leave = (): void => void node.stop().then(resolve)
    process.once("SIGINT", leave)
    process.once("SIGTERM", leave)
  })
  // mqtt.js and stdin keep the event loop alive: leave for good
  process.exit(0)
}
