// The firmware's own program on the election API. The LED shows the role (solid when
// coordinator, see src/firmware/led-scheme.ts); the BOOT button crashes the node and,
// pressed again, recovers it.
import { AlgorithmDescriptor } from "./core/descriptor"
import { createElection } from "./election"
import { bootButton } from "./firmware/button"
import { StatusLed } from "./firmware/led"
import { log } from "./firmware/log"

/** Runs the demo with `algorithm` (absent: the one the image's entry or the lab provides). */
export async function runDemo(algorithm?: AlgorithmDescriptor) {
    const election = await createElection(algorithm ? { algorithm: algorithm } : undefined)
    const led = new StatusLed()
    led.start()
    election.onChange((state) => {
        led.roleChanged(state.role, state.coordinator, state.epoch)
    })
    const button = bootButton(election.driver.config.buttonPin, election.id)
    if (button) {
        button.down.subscribe(async () => {
            try {
                await election.setCrashed(!election.crashed())
            } catch (e) {
                log("err", "where=button msg=" + e)
            }
        })
    }
    await election.start()
}
