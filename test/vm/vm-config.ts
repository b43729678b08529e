// The firmware configuration the VM tests drive: three boards on the bus, improved Bully,
// timers short enough for a test.

import { Algorithm } from "../../src/core/frame"
import { FirmwareConfig, TRANSPORT_BUS } from "../../src/firmware/config"

export function threeBoardConfig(id: number, authKey?: string): FirmwareConfig {
    const c: FirmwareConfig = {
        nodeId: id,
        ids: [1, 2, 3],
        algorithm: Algorithm.ImprovedBully,
        group: 1,
        timing: { answerTimeout: 60, coordinatorTimeout: 120, heartbeatInterval: 40, failureTimeout: 150 },
        buttonPin: -1,
        suitability: 0,
        transport: TRANSPORT_BUS,
        mqttHost: "",
        mqttPort: 1883,
        topicPrefix: "electlab",
    }
    if (authKey !== undefined) c.authKey = authKey
    return c
}
