// Board configuration from DeviceScript settings (keys of at most 13 characters),
// written by `electlab settings` from the lab manifest.

import * as ds from "@devicescript/core"
import { readSetting } from "@devicescript/settings"
import { AlgorithmDescriptor } from "../core/descriptor"
import { defaultTiming } from "../core/timing"
import { FirmwareConfig, nodeIdFromDeviceId, parseIdList, parseWholeNumber, TRANSPORT_BUS, TRANSPORT_MQTT } from "./config"
import { DEFAULT_TOPIC_PREFIX } from "./topics"

async function numberSetting(key: string, fallback: number): Promise<number> {
    const v = await readSetting<number | string>(key, fallback)
    const n = typeof v === "number" ? v : parseWholeNumber("" + v)
    return n < 0 ? fallback : n
}

/**
 * The board's settings, for an image that runs `image` (null: none). An ALGORITHM setting
 * that names another algorithm is a problem in `problems`: the board refuses to run.
 */
export async function readFirmwareConfig(image: AlgorithmDescriptor, problems: string[]): Promise<FirmwareConfig> {
    const nodeSetting = await numberSetting("NODE_ID", -1)
    const nodeId = nodeSetting >= 0 ? nodeSetting : nodeIdFromDeviceId(ds.deviceIdentifier("self"))
    const ids = parseIdList("" + (await readSetting<string>("NODE_IDS", "")))
    // the image decides the algorithm; the setting only says which one the lab expects
    const named = "" + (await readSetting<string>("ALGORITHM", ""))
    if (image) {
        if (named !== "") {
            if (named !== image.name) problems.push("ALGORITHM is " + named + " but this image runs " + image.name + ": flash the image for " + named)
        }
    }
    const transport = ("" + (await readSetting<string>("TRANSPORT", "bus"))) === "mqtt" ? TRANSPORT_MQTT : TRANSPORT_BUS
    const defaults = defaultTiming(transport === TRANSPORT_MQTT ? "wifi" : "bus")
    return {
        nodeId: nodeId,
        ids: ids,
        algorithm: image ? image.algorithm : 0,
        group: await numberSetting("GROUP", 1),
        timing: {
            answerTimeout: await numberSetting("ANSWER_MS", defaults.answerTimeout),
            coordinatorTimeout: await numberSetting("COORD_MS", defaults.coordinatorTimeout),
            heartbeatInterval: await numberSetting("HEARTBEAT_MS", defaults.heartbeatInterval),
            failureTimeout: await numberSetting("FAIL_MS", defaults.failureTimeout),
            failureDetector: "" + (await readSetting<string>("FAIL_DETECTOR", defaults.failureDetector)),
        },
        buttonPin: await numberSetting("BUTTON_PIN", -1),
        suitability: await numberSetting("SUITABILITY", 0),
        transport: transport,
        mqttHost: "" + (await readSetting<string>("MQTT_HOST", "")),
        mqttPort: await numberSetting("MQTT_PORT", 1883),
        topicPrefix: "" + (await readSetting<string>("MQTT_PREFIX", DEFAULT_TOPIC_PREFIX)),
        // a secret: in .env.local only, never readable over Jacdac
        authKey: "" + (await readSetting<string>("AUTH_KEY", "")),
        mqttUser: "" + (await readSetting<string>("MQTT_USER", "")),
        mqttPassword: "" + (await readSetting<string>("MQTT_PASS", "")),
    }
}
