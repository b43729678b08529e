// The election as a library for a DeviceScript program: start it from the board's settings
// or from a config object, read the role, the coordinator, the epoch and the fencing token,
// subscribe to changes, run work only while coordinator, and exchange application messages
// (orders from the coordinator carry its token; receivers fence them). docs/api.md has a
// walk-through.
//
//     import { startElection } from "./election"
//     const election = await startElection()
//     election.whileCoordinator(async (duty) => { while (duty.active()) { ...; await ds.sleep(1000) } })

import { Election } from "./api/election-api"
import { Timing } from "./core/contract"
import { parseAlgorithm } from "./core/algorithms"
import { configProblems, FirmwareConfig, TRANSPORT_BUS, TRANSPORT_MQTT } from "./firmware/config"
import { NodeDriver } from "./firmware/driver"
import { boardPlatform, log } from "./firmware/log"
import { startNode } from "./firmware/run"
import { readFirmwareConfig } from "./firmware/settings"

export { AppCounters, AppMessage, Duty, Election, ElectionState } from "./api/election-api"
export { compareTokens, FenceGate, FenceToken, formatToken } from "./core/fencing"
export { Role, roleName } from "./core/contract"

/** Settings to use instead of the board's, field by field; absent fields come from the settings. */
export interface ElectionOptions {
    /** This board's process number (setting NODE_ID; default: from the device id). */
    nodeId?: number
    /** Every process number, in ring order (NODE_IDS). */
    ids?: number[]
    /** The algorithm's name, as the lab manifest gives it (ALGORITHM; docs/algorithms.md). */
    algorithm?: string
    /** Election group (GROUP): clusters on one bus or broker keep apart by it. */
    group?: number
    /** "bus" (Jacdac) or "mqtt" (TRANSPORT). */
    transport?: string
    /** Timeouts and the heartbeat, in ms; absent fields keep the transport's defaults. */
    timing?: Timing
    /** bid-ring: this board's suitability (SUITABILITY). */
    suitability?: number
    /** MQTT broker (MQTT_HOST, MQTT_PORT, MQTT_PREFIX). */
    mqttHost?: string
    mqttPort?: number
    topicPrefix?: string
    /** The group key, 64 hex digits (AUTH_KEY): frames authenticated. */
    authKey?: string
    /** BOOT button pin for the crash demo, -1 for none (BUTTON_PIN). */
    buttonPin?: number
}

/** A configuration provided by the environment (the virtual lab compiles one in). */
let provided: FirmwareConfig = null

/** Makes createElection() without arguments use `config` instead of the settings (the virtual lab). */
export function provideConfig(config: FirmwareConfig) {
    provided = config
}

/** The board's configuration: the provided one or the settings, with `options` over it. */
export async function electionConfig(options?: ElectionOptions): Promise<FirmwareConfig> {
    const c = provided ? provided : await readFirmwareConfig()
    if (!options) return c
    // an option given wins, field by field; the rest come from the settings (a loop: the
    // image's code area is nearly full, and a field-by-field copy costs half a kilobyte)
    const merged: any = {}
    const from: any = c
    const given: any = options
    Object.keys(from).forEach((k) => (merged[k] = from[k]))
    Object.keys(given).forEach((k) => {
        if (given[k] !== undefined && given[k] !== null) merged[k] = given[k]
    })
    if (options.algorithm) merged.algorithm = parseAlgorithm(options.algorithm)
    if (options.transport) merged.transport = options.transport === "mqtt" ? TRANSPORT_MQTT : TRANSPORT_BUS
    return merged
}

function spawnFiber(fn: () => Promise<void>) {
    const run = async () => {
        try {
            await fn()
        } catch (e) {
            log("err", "where=app msg=" + e)
        }
    }
    run.start()
}

async function startOnBoard(driver: NodeDriver) {
    await startNode(driver)
}

/**
 * The election on this board, configured but not started: subscribe, then `start()`.
 * Configuration problems (say, a node id missing from `ids`) do not throw: the board then
 * stays "misconfigured" and logs them.
 */
export async function createElection(options?: ElectionOptions): Promise<Election> {
    const config = await electionConfig(options)
    const driver = new NodeDriver(config, configProblems(config), boardPlatform)
    return new Election(driver, spawnFiber, startOnBoard)
}

/** createElection, then start: joins the election and returns once the node runs. */
export async function startElection(options?: ElectionOptions): Promise<Election> {
    const election = await createElection(options)
    await election.start()
    return election
}
