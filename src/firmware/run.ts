// Wires a board together: driver, transport, LED, button.

import * as ds from "@devicescript/core"
import { BusTransport } from "./bus"
import { startCrashButton } from "./button"
import { configProblems, FirmwareConfig } from "./config"
import { NodeDriver } from "./driver"
import { boardPlatform, log } from "./log"
import { StatusLed } from "./led"

/** Longest wait at boot for the other boards to appear on the bus. */
export const BOOT_WAIT_MS = 3000

export async function runFirmware(config: FirmwareConfig) {
    const driver = new NodeDriver(config, configProblems(config), boardPlatform)
    const led = new StatusLed()
    driver.observer = led
    led.start()
    const bus = new BusTransport(driver)
    driver.transport = bus
    bus.start()
    startCrashButton(driver, config.buttonPin)
    // Start the election only once the peers are bound (or the wait is over): a failure
    // detector started earlier would suspect a coordinator it simply cannot hear yet.
    const started = ds.millis()
    while (bus.peerCount() < config.ids.length - 1 && ds.millis() - started < BOOT_WAIT_MS) await ds.sleep(50)
    log("ready", "n=" + config.nodeId + " peers=" + bus.peerCount() + " waited=" + (ds.millis() - started))
    await driver.start()
    return driver
}
