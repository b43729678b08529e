// The election API on a host: `import { joinElection } from "electlab"`. A laptop or a
// Raspberry Pi takes part in the boards' election over MQTT, as `electlab node` does, with
// the same events, fencing tokens and application messages as a program on a board
// (src/election.ts); both run the same class (src/api/election-api.ts) on the same driver.

import { Election } from "../../src/api/election-api"
import { parseKeyHex } from "../../src/core/auth"
import { parseAlgorithm } from "../../src/core/algorithms"
import { Algorithm } from "../../src/core/frame"
import type { Timing } from "../../src/core/contract"
import { defaultTiming } from "../../src/core/timing"
import { configProblems, type FirmwareConfig, TRANSPORT_MQTT } from "../../src/firmware/config"
import type { NodeDriver } from "../../src/firmware/driver"
import { DEFAULT_TOPIC_PREFIX } from "../../src/firmware/topics"
import { readKeyFile } from "../auth/keys"
import { checkBroker } from "./command"
import { type HostNode, hostDriver, hostPlatform, startHostNode } from "./host-node"

export { Duty, Election } from "../../src/api/election-api"
export type { AppCounters, AppMessage, ElectionState } from "../../src/api/election-api"
export { compareTokens, FenceGate, formatToken, type FenceToken } from "../../src/core/fencing"
export { Role, roleName } from "../../src/core/contract"

export interface JoinOptions {
  /** The boards' broker, mqtt://HOST:PORT. */
  broker: string
  /** This process's number: a member of `ids`, not used by a board. */
  id: number
  /** Every process number, in ring order, as the boards have it. */
  ids: number[]
  /** The boards' algorithm (default improved-bully, as on the boards). */
  algorithm?: string
  /** The boards' group (default 1). */
  group?: number
  /** The boards' timing, ms (default the WiFi row: answer 200, coordinator 400, heartbeat 250, failure 800). */
  timing?: Timing
  /** bid-ring: this process's suitability. */
  suitability?: number
  /** The boards' topic prefix (default "electlab"). */
  prefix?: string
  /** The group key, 64 hex digits, or a key file (`electlab keygen`): frames are authenticated. */
  key?: string
  keyFile?: string
  /** Broker credentials, when it checks them. */
  mqttUser?: string
  mqttPassword?: string
  /** Where the structured log lines go ("EL role t=.. n=.."); default nowhere. */
  print?: (line: string) => void
  /** How long start() waits for the broker before it fails, ms (default 10000). */
  connectTimeoutMs?: number
}

/** The election on this host: the board API, plus leave(). */
export class HostElection extends Election {
  /** The MQTT connection, once started. */
  host: HostNode | null = null

  /** Leaves the election: stops taking part (as a crash) and closes the connection. */
  async leave() {
    await this.driver.setCrashed(true)
    if (this.host) await this.host.stop()
  }
}

function fail(what: string): never {
  throw new Error(`joinElection: ${what}`)
}

/** The driver's configuration from the options; an Error naming the option when one is wrong. */
export function hostConfig(o: JoinOptions): FirmwareConfig {
  const broker = (() => {
    try {
      return checkBroker(o.broker, "broker")
    } catch (e) {
      return fail((e as Error).message)
    }
  })()
  // absent, or null from a JavaScript caller: the default
  const algorithm = o.algorithm === undefined || o.algorithm === null ? Algorithm.ImprovedBully : parseAlgorithm(o.algorithm)
  if (!algorithm) fail(`algorithm: unknown '${o.algorithm}'`)
  if (o.key !== undefined && o.keyFile !== undefined) fail("give key or keyFile, not both")
  if (o.key !== undefined && !parseKeyHex(o.key)) fail("key: not 64 hex digits")
  const config: FirmwareConfig = {
    nodeId: o.id,
    ids: o.ids,
    algorithm,
    group: o.group ?? 1,
    timing: o.timing ?? defaultTiming("wifi"),
    buttonPin: -1,
    suitability: o.suitability ?? 0,
    transport: TRANSPORT_MQTT,
    mqttHost: broker,
    mqttPort: 0,
    topicPrefix: o.prefix ?? DEFAULT_TOPIC_PREFIX,
    authKey: o.keyFile !== undefined ? readKeyFile(o.keyFile, "keyFile") : o.key,
    mqttUser: o.mqttUser,
    mqttPassword: o.mqttPassword,
  }
  const problems = configProblems(config)
  if (problems.length) fail(problems.join("; "))
  return config
}

/** The election on this host, configured but not started: subscribe, then `await start()`. */
export function createElection(options: JoinOptions): HostElection {
  const config = hostConfig(options)
  const print = options.print ?? (() => {})
  const driver = hostDriver(config, hostPlatform(print))
  const spawn = (fn: () => Promise<void>): void =>
    void fn().catch((e: unknown) => driver.log("err", `where=app msg=${String(e).replace(/\s+/g, "_")}`))
  let election: HostElection
  const start = async (d: NodeDriver) => {
    const host = await startHostNode({ config, broker: options.broker, print, driver: d })
    election.host = host
    const wait = options.connectTimeoutMs ?? 10_000
    let timer: NodeJS.Timeout | undefined
    const timeout = new Promise<"timeout">((resolve) => (timer = setTimeout(() => resolve("timeout"), wait)))
    const outcome = await Promise.race([host.ready.then(() => "ready" as const), timeout])
    clearTimeout(timer)
    if (outcome === "timeout") {
      await host.stop()
      fail(`no answer from the broker ${options.broker} within ${wait} ms`)
    }
  }
  election = new HostElection(driver, spawn, start)
  return election
}

/** Joins the boards' election over MQTT; resolves once the node runs. */
export async function joinElection(options: JoinOptions): Promise<HostElection> {
  const election = createElection(options)
  await election.start()
  return election
}
