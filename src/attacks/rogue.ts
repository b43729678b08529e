// A rogue board for the lab's attack tests (never part of the real firmware): it holds a
// wrong key and, forever, claims to be the biggest guy in town: ELECTION, COORDINATOR and
// heartbeats from its own id and from the members' highest id, sealed with its key and also
// unsigned, broadcast and sent to every member. Nothing of it may be acted on.

import * as ds from "@devicescript/core"
import { sealCopy } from "../core/auth"
import { encodeFrame } from "../core/codec"
import { BROADCAST, Kind, makeFrame } from "../core/frame"
import { NodeDriver } from "../firmware/driver"
import { log } from "../firmware/log"

const FORGE_PERIOD_MS = 300
const KINDS = [Kind.ELECTION, Kind.COORDINATOR, Kind.HEARTBEAT]

export async function forgeForever(driver: NodeDriver, members: number[]) {
    const c = driver.config
    let highest = members[0]
    for (let i = 1; i < members.length; i++) if (members[i] > highest) highest = members[i]
    const claims = [c.nodeId, highest]
    let epoch = 1000000
    for (;;) {
        for (let k = 0; k < KINDS.length; k++) {
            for (let s = 0; s < claims.length; s++) {
                const f = makeFrame(KINDS[k], c.algorithm, c.group, epoch++, claims[s], BROADCAST)
                f.initiator = claims[s]
                f.bid = 4294967295
                const plain = encodeFrame(f).bytes
                const sealed = driver.auth ? sealCopy(driver.auth, plain, ds.millis()) : plain
                try {
                    await driver.transport.broadcast(Buffer.from(sealed))
                    await driver.transport.broadcast(Buffer.from(plain))
                    for (let m = 0; m < members.length; m++) {
                        f.dst = members[m]
                        const one = encodeFrame(f).bytes
                        await driver.transport.unicast(members[m], Buffer.from(driver.auth ? sealCopy(driver.auth, one, ds.millis()) : one))
                    }
                } catch (e) {
                    log("err", "where=forge msg=" + e)
                }
                log("forged", "n=" + c.nodeId + " k=" + KINDS[k] + " as=" + claims[s])
            }
        }
        await ds.sleep(FORGE_PERIOD_MS)
    }
}
