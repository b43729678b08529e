// Wires a board together: driver, transport, LED, button.

import * as ds from "@devicescript/core"
import { AlgorithmDescriptor } from "../core/descriptor"
import { BusTransport } from "./bus"
import { startCrashButton } from "./button"
import { configProblems, FirmwareConfig, TRANSPORT_MQTT } from "./config"
import { NodeDriver } from "./driver"
import { StatusLed } from "./led"
import { boardPlatform, log } from "./log"
import { MqttTransport } from "./mqtt"

/** Longest wait at boot for the other boards (bus) or the broker (WiFi). */
export const BOOT_WAIT_MS = 3000

export async function runFirmware(config: FirmwareConfig, algorithm: AlgorithmDescriptor) {
    const driver = new NodeDriver(config, configProblems(config), boardPlatform, algorithm)
    const led = new StatusLed()
    driver.observer = led
    led.start()
    await startNode(driver, function () {
        startCrashButton(driver, config.buttonPin)
    })
    return driver
}

/**
 * Starts a driver on this board: the Jacdac service, the transport, the wait for the peers
 * (or the broker), then the election. `beforeWait` runs once the service is up (the button).
 */
export async function startNode(driver: NodeDriver, beforeWait?: () => void) {
    const config = driver.config
    // The Jacdac service always runs: it shows the board's state and takes the crash
    // action; election frames go over the bus or over MQTT.
    const bus = new BusTransport(driver)
    bus.start(config.transport)
    log("nonce", "n=" + config.nodeId + " v=" + bus.nonce())
    if (beforeWait) beforeWait()
    // Start the election only once the peers (or the broker) can be heard: a failure
    // detector started earlier would suspect a coordinator it simply cannot hear yet.
    const started = ds.millis()
    if (config.transport === TRANSPORT_MQTT) {
        const mqtt = new MqttTransport(driver)
        driver.transport = mqtt
        await mqtt.start()
        while (!mqtt.connected && ds.millis() - started < BOOT_WAIT_MS) await ds.sleep(50)
        log("ready", "n=" + config.nodeId + " transport=mqtt connected=" + (mqtt.connected ? 1 : 0) + " waited=" + (ds.millis() - started))
    } else {
        driver.transport = bus
        while (bus.peerCount() < config.ids.length - 1 && ds.millis() - started < BOOT_WAIT_MS) await ds.sleep(50)
        log("ready", "n=" + config.nodeId + " transport=bus peers=" + bus.peerCount() + " waited=" + (ds.millis() - started))
    }
    await driver.start()
}
