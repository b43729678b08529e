// What a board needs to know to take part: its node id, the membership, the algorithm,
// the group and the timing. Boards read it from settings (see `electlab settings`);
// the virtual lab compiles it into a generated entry file.

import { Timing } from "../core/contract"
import { parseDigits, parseHex } from "../core/codec"
import { Algorithm } from "../core/frame"

export interface FirmwareConfig {
    /** This board's process number; -1: derive it from the device id. */
    nodeId: number
    /** Every process number, in ring order. */
    ids: number[]
    algorithm: Algorithm
    group: number
    timing: Timing
    /** GPIO of the BOOT button; -1 for none (the VM). */
    buttonPin: number
    /** bid-ring suitability (0..65535). */
    suitability: number
    /** How frames travel: TRANSPORT_BUS or TRANSPORT_MQTT. */
    transport: number
    /** MQTT broker (transport mqtt). */
    mqttHost: string
    mqttPort: number
    topicPrefix: string
    /** Group key, 64 hex digits: frames are authenticated when set (see src/core/auth.ts). */
    authKey?: string
    /** Broker credentials, when the broker checks them (secrets: .env.local). */
    mqttUser?: string
    mqttPassword?: string
    /**
     * Lab build: the service's set_crashed command (a demo and test tool) takes effect. The
     * virtual lab's image sets it; a board's image (settings) never does, and ignores and
     * counts the command.
     */
    labTools?: boolean
    /** Lab only: KB of heap held from boot on (src/firmware/ballast.ts), to measure headroom. */
    ballastKb?: number
}

export const TRANSPORT_BUS = 0
export const TRANSPORT_MQTT = 1

/** Device ids the virtual lab hands out: this prefix, then the node id in hex. */
export const LAB_DEVICE_PREFIX = "e1ec7ab0"

/**
 * A node id from a 16-hex-digit device id: its last four digits. The virtual lab
 * chooses device ids so that this is the node id it wants; on a real board it is a
 * fallback when the NODE_ID setting is missing (duplicates are flagged on the bus).
 */
export function nodeIdFromDeviceId(deviceId: string): number {
    const v = parseHex(deviceId.slice(deviceId.length - 4))
    if (v < 0) return 0
    return v > 0xfffe ? 0xfffe : v
}

/** "250" → 250; -1 when the text is not a whole number (settings arrive as text). */
export function parseWholeNumber(text: string): number {
    return parseDigits(text.trim(), 10)
}

/** A setting's or a frame's id list, "1,2,3" → [1, 2, 3]: entries that are not ids are dropped (the host's strict reader is sim/config/input.ts parseIdArgument). */
export function parseIdList(text: string): number[] {
    const out: number[] = []
    // split by hand: String.prototype.split is 340 bytes of a board image, used nowhere else
    let start = 0
    for (let i = 0; i <= text.length; i++) {
        if (i < text.length) {
            if (text.charAt(i) !== ",") continue
        }
        const v = parseWholeNumber(text.slice(start, i))
        if (v >= 0) {
            if (v <= 0xfffe) {
                if (out.indexOf(v) < 0) out.push(v)
            }
        }
        start = i + 1
    }
    return out
}

/** Problems that make the board refuse to run (shown as "misconfigured" on the LED). */
export function configProblems(config: FirmwareConfig): string[] {
    const problems: string[] = []
    if (config.ids.length < 2) problems.push("NODE_IDS lists fewer than two processes")
    if (config.ids.indexOf(config.nodeId) < 0)
        problems.push("node " + config.nodeId + " is not in NODE_IDS")
    if (!(config.timing.answerTimeout > 0)) problems.push("ANSWER_MS must be positive")
    if (!(config.timing.coordinatorTimeout > config.timing.answerTimeout))
        problems.push("COORD_MS must exceed ANSWER_MS")
    if (config.timing.heartbeatInterval > 0) {
        if (!(config.timing.failureTimeout > config.timing.heartbeatInterval)) problems.push("FAIL_MS must exceed HEARTBEAT_MS")
    }
    const detector = config.timing.failureDetector
    if (detector !== undefined) {
        if (detector !== "fixed") {
            if (detector !== "adaptive") problems.push("FAIL_DETECTOR must be fixed or adaptive")
        }
    }
    if (config.transport === TRANSPORT_MQTT) {
        if (config.mqttHost.length === 0) problems.push("MQTT_HOST is not set")
    }
    return problems
}
