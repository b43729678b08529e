// The early probe: with a key and the adaptive detector, a follower asks its coordinator for a
// proof one heartbeat period before its watch would suspect it. A frozen coordinator is then
// suspected a few measured round trips after the heartbeat it missed, not a period later.
// Lateness is only a hint: a coordinator that proves itself, or is heard meanwhile, is
// watched on as before. Opt-in (`driver.watchArmed = probeLateCoordinator`): host nodes
// install it; on a board it costs about 340 bytes of the image (docs/failure-detector.md).

import { unmeasured } from "../core/auth"
import { Action, NO_NODE, Role, TIMER_WATCH } from "../core/contract"
import { apply, caught, checkHint, NodeDriver } from "./driver"

/** Arms the probe of the watch just armed (generation `gen`, suspicion in `delay` ms). */
export function probeLateCoordinator(driver: NodeDriver, gen: number, delay: number) {
    if (!driver.auth) return
    const node = driver.node
    if (!node.detector.learns()) return
    const heard = node.lastHeardFromCoordinator
    setTimeout(async () => {
        const c = node.coordinator
        // a heartbeat since (the watch armed again), or the watch cancelled
        if (driver.generations[TIMER_WATCH] !== gen) return
        if (c === NO_NODE) return
        try {
            await checkHint(driver, c, "late", async (alive: boolean) => {
                if (alive) return
                // its proof, if it comes, times the pause, not the path
                unmeasured(driver.auth, c)
                if (node.lastHeardFromCoordinator !== heard) return
                if (node.role !== Role.Follower) return
                driver.log("suspect", "peer=" + c + " verdict=silent")
                const out: Action[] = []
                node.suspect(driver.platform.now(), out)
                apply(driver, out)
            })
        } catch (e) {
            caught(driver, "probe", e)
        }
    }, delay - node.timing.heartbeatInterval)
}
