// `electlab node`: a host node (or an observer) on a lab's MQTT broker.

import { existsSync, readFileSync } from "node:fs"
import { algorithmName } from "../../src/core/algorithms"
import { type FirmwareConfig, TRANSPORT_MQTT } from "../../src/firmware/config"
import { DEFAULT_TOPIC_PREFIX } from "../../src/firmware/topics"
import { checkMembers, InputError, parseInteger } from "../config/input"
import { givenFlags, resolveCluster } from "../config/cluster-config"
import { readManifest } from "../config/manifest"
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
  suitability?: string
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

function manifestOf(flags: NodeFlags) {
  const file = flags.manifest ?? (existsSync("devicescript.json") ? "devicescript.json" : undefined)
  return file ? { file, manifest: readManifest(file) } : null
}

/** What a host node runs with: its id, and the cluster resolved from the manifest and the flags. */
export function nodeConfig(flags: NodeFlags, broker: string): FirmwareConfig {
  if (flags.id === undefined) throw new InputError("--id N is needed (or --observe)", "--id")
  const id = parseInteger(flags.id, "--id", 0, 0xfffe)
  const spec = resolveCluster({ use: "node", given: givenFlags(flags, "node"), manifest: manifestOf(flags), network: "wifi" })
  checkMembers([id], spec.ids, "--id")
  return {
    nodeId: id,
    ids: spec.ids,
    algorithm: spec.algorithm,
    group: spec.group,
    timing: spec.timing,
    buttonPin: -1,
    suitability: spec.suitability?.[spec.ids.indexOf(id)] ?? 0,
    transport: TRANSPORT_MQTT,
    mqttHost: broker,
    mqttPort: 0,
    topicPrefix: flags.prefix || DEFAULT_TOPIC_PREFIX,
    authKey: flags.keyFile ? readKeyFile(flags.keyFile, "--key-file") : undefined,
    mqttUser: flags.mqttUser,
    mqttPassword: flags.mqttPasswordFile ? readPasswordFile(flags.mqttPasswordFile) : undefined,
  }
}

export async function runNodeCommand(flags: NodeFlags): Promise<void> {
  if (flags.transport !== "mqtt")
    throw new InputError(`a host node joins over mqtt only (the bus needs a Jacdac bridge), got '${flags.transport}'`, "--transport")
  const broker = checkBroker(flags.broker, "--broker")
  if (flags.observe) {
    // the observer needs only the group
    const manifest = manifestOf(flags)
    const group = flags.group !== undefined ? parseInteger(flags.group, "--group", 0, 255) : (manifest?.manifest.group ?? 1)
    const observer = startObserver({
      broker,
      prefix: flags.prefix || DEFAULT_TOPIC_PREFIX,
      group,
      username: flags.mqttUser,
      password: flags.mqttPasswordFile ? readPasswordFile(flags.mqttPasswordFile) : undefined,
    })
    await new Promise<void>((resolve) => {
      const leave = (): void => void observer.stop().then(resolve)
      process.once("SIGINT", leave)
      process.once("SIGTERM", leave)
    })
    process.exit(0)
  }
  const config = nodeConfig(flags, broker)
  const node = await startHostNode({
    broker,
    stdinControl: flags.stdinControl,
    // a person at a terminal reads sentences; the lab, the benchmarks and pipes parse the structured lines
    print:
      flags.stdinControl || !process.stdout.isTTY ? undefined : (line: string) => process.stdout.write(readableLine(line, broker) + "\n"),
    config,
  })
  process.stderr.write(
    `node ${config.nodeId} (${algorithmName(config.algorithm)}) on ${broker}, ids ${config.ids.join(",")}, ` +
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

/** A structured log line ("EL mqtt t=.. n=5 state=error msg=ECONNREFUSED") as a sentence. */
export function readableLine(line: string, broker: string): string {
  const parts = line.split(" ")
  if (parts[0] !== "EL") return line
  const fields: Record<string, string> = {}
  for (const p of parts.slice(2)) {
    const eq = p.indexOf("=")
    if (eq > 0) fields[p.slice(0, eq)] = p.slice(eq + 1)
  }
  const t = `${((Number(fields.t) || 0) / 1000).toFixed(3)}s`
  const event = parts[1]
  if (event === "mqtt" && fields.state === "error") {
    const why = { ECONNREFUSED: "connection refused: is the broker running?", ENOTFOUND: "unknown host", ETIMEDOUT: "no answer" }[fields.msg] ?? fields.msg.replace(/_/g, " ")
    return `${t} cannot reach the broker ${broker}: ${why}`
  }
  if (event === "mqtt") return `${t} broker ${broker}: ${fields.state}`
  if (event === "role") return `${t} node ${fields.n}: ${fields.r}${fields.r === "follower" ? ` of ${fields.c}` : ""} (epoch ${fields.e})`
  if (event === "tx") return `${t} sent ${fields.k} to ${fields.to} (epoch ${fields.e})`
  if (event === "rx") return `${t} got ${fields.k} from ${fields.from} (epoch ${fields.e})`
  if (event === "left") return `${t} node ${fields.peer} dropped off (last will)`
  if (event === "err") return `${t} error in ${fields.where}: ${(fields.msg ?? fields.why ?? "").replace(/_/g, " ")}`
  return `${t} ${line.slice(3)}`
}
