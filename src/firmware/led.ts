// Drives the board's status LED from the node's role (no effect in the VM).

import { setStatusLight } from "@devicescript/runtime"
import { Role } from "../core/contract"
import { DriverObserver } from "./driver"
import { log } from "./log"
import { LED_SLOT_MS, ledColorAt } from "./led-scheme"

export class StatusLed implements DriverObserver {
    private role: Role = Role.Follower
    private slot = 0
    private shown = -1

    start() {
        const self = this
        setInterval(async () => {
            try {
                self.slot = (self.slot + 1) % 8
                const color = ledColorAt(self.role, self.slot)
                if (color !== self.shown) {
                    self.shown = color
                    await setStatusLight(color)
                }
            } catch (e) {
                log("err", "where=led msg=" + e)
            }
        }, LED_SLOT_MS)
    }

    roleChanged(role: Role, coordinator: number, epoch: number) {
        this.role = role
    }
}
