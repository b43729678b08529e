// The BOOT button crashes the node and, pressed again, recovers it: the lab demo.

import * as ds from "@devicescript/core"
import { startButton } from "@devicescript/servers"
import { NodeDriver } from "./driver"
import { log } from "./log"

/** The BOOT button's pin on the supported boards: 9 on the ESP32-C3, 0 on the ESP32 and ESP32-S3. */
function buttonOnPin(pin: number): ds.Button {
    // startButton() wants a literal configuration: one call per supported pin.
    if (pin === 9) return startButton({ pin: ds.gpio(9) })
    if (pin === 0) return startButton({ pin: ds.gpio(0) })
    return null
}

/** The BOOT button on `pin`, or null (no pin: -1, or one no supported board has, logged). */
export function bootButton(pin: number, nodeId: number): ds.Button {
    if (pin < 0) return null
    try {
        const button = buttonOnPin(pin)
        if (!button) log("config", "n=" + nodeId + " problem=unsupported-button-pin pin=" + pin)
        return button
    } catch (e) {
        log("err", "where=button-start pin=" + pin + " msg=" + e)
        return null
    }
}

export function startCrashButton(driver: NodeDriver, pin: number) {
    const button = bootButton(pin, driver.config.nodeId)
    if (!button) return
    button.down.subscribe(async () => {
        try {
            await driver.toggleCrashed()
        } catch (e) {
            log("err", "where=button msg=" + e)
        }
    })
}
