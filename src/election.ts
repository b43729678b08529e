// The election as a library for a DeviceScript program: start it from the board's settings
// or from a config object, read the role, the coordinator, the epoch and the fencing token,
// subscribe to changes, run work only while coordinator, and exchange application messages
// (orders from the coordinator carry its token; receivers fence them). docs/api.md has a
// walk-through.
//
//     import { startElection } from "./election"
//     import { bullyDescriptor } from "./core/bully"
//     const election = await startElection({ algorithm: bullyDescriptor })
//     election.whileCoordinator(async (duty) => { while (duty.active()) { ...; await ds.sleep(1000) } })

import { Election } from "./api/election-api"
import { Timing } from "./core/contract"
import { AlgorithmDescriptor } from "./core/descriptor"
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
    /**
     * The algorithm this program runs: its module's descriptor, e.g. `bullyDescriptor` from
     * "./core/bully". Only the algorithm named here goes into the image; the board refuses to
     * run when its ALGORITHM setting names another.
     */
    algorithm?: AlgorithmDescriptor
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

/** A configuration and an algorithm provided by the environment (the virtual lab compiles them in). */
let provided: FirmwareConfig = null
let providedAlgorithm: AlgorithmDescriptor = null

/**
 * Makes createElection() use `config` instead of the settings, and `algorithm` when the
 * program names none (the virtual lab; a board image's entry, src/images/).
 */
export function provideConfig(config: FirmwareConfig, algorithm?: AlgorithmDescriptor) {
    provided = config
    if (algorithm) providedAlgorithm = algorithm
}

/** Makes createElection() run `algorithm` when the program names none (a board image's entry). */
export function provideAlgorithm(algorithm: AlgorithmDescriptor) {
    providedAlgorithm = algorithm
}

/** The board's configuration: the provided one or the settings, with `options` over it. */
export async function electionConfig(options?: ElectionOptions, problems?: string[]): Promise<FirmwareConfig> {
    const image = imageAlgorithm(options)
    const c = provided ? provided : await readFirmwareConfig(image, problems ? problems : [])
    if (!options) return c
    // an option given wins, field by field; the rest come from the settings (loops: a
    // field-by-field copy costs half a kilobyte of the image's code, and forEach with its
    // closures a few hundred bytes more)
    const merged: any = {}
    const from: any = c
    const given: any = options
    const fields = Object.keys(from)
    for (let i = 0; i < fields.length; i++) merged[fields[i]] = from[fields[i]]
    const givenKeys = Object.keys(given)
    for (let i = 0; i < givenKeys.length; i++) {
        const k = givenKeys[i]
        if (k !== "algorithm") {
            if (given[k] !== undefined) {
                if (given[k] !== null) merged[k] = given[k]
            }
        }
    }
    if (options.transport) merged.transport = options.transport === "mqtt" ? TRANSPORT_MQTT : TRANSPORT_BUS
    return merged
}

/** The algorithm this image runs: the program's choice, else the one its entry provides. */
function imageAlgorithm(options?: ElectionOptions): AlgorithmDescriptor {
    return options && options.algorithm ? options.algorithm : providedAlgorithm
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

/**
 * The election on this board, configured but not started: subscribe, then `start()`.
 * Configuration problems (say, a node id missing from `ids`) do not throw: the board then
 * stays "misconfigured" and logs them.
 */
export async function createElection(options?: ElectionOptions): Promise<Election> {
    const fromSettings: string[] = []
    const config = await electionConfig(options, fromSettings)
    const problems = configProblems(config)
    for (let i = 0; i < fromSettings.length; i++) problems.push(fromSettings[i])
    const driver = new NodeDriver(config, problems, boardPlatform, imageAlgorithm(options))
    return new Election(driver, spawnFiber, startNode)
}

/** createElection, then start: joins the election and returns once the node runs. */
export async function startElection(options?: ElectionOptions): Promise<Election> {
    const election = await createElection(options)
    await election.start()
    return election
}
