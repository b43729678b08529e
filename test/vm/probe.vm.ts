// The early probe of a late coordinator (src/firmware/probe.ts) inside the DeviceScript VM:
// three drivers with a key and the adaptive detector on a memory bus, the coordinator frozen.
// Its own image: the heap is a board's. `devs run test/vm/probe.vm.ts --test --test-self-exit`.

import * as ds from "@devicescript/core"
import { describe, expect, test } from "@devicescript/test"
import { RTT_SAMPLE_MS } from "../../src/core/auth"
import { Role } from "../../src/core/contract"
import { improvedBullyDescriptor } from "../../src/core/improved-bully"
import { boardMac, boardRandom32 } from "../../src/firmware/crypto"
import { NodeDriver, Platform } from "../../src/firmware/driver"
import { boardPlatform } from "../../src/firmware/log"
import { probeLateCoordinator } from "../../src/firmware/probe"
import { VECTOR_KEY } from "./auth-vectors"
import { settled } from "./settled.vm"
import { threeBoardConfig } from "./vm-config"
import { MemoryBus, MemoryTransport } from "./memory-bus"

describe("the early probe", () => {
    test("a frozen coordinator is challenged one period before the watch would suspect it, and replaced", async () => {
        const bus = new MemoryBus()
        const lines: string[] = []
        for (let id = 1; id <= 3; id++) {
            const config = threeBoardConfig(id, VECTOR_KEY)
            // a period longer than T, the longest a probe waits for its proof: the probe's wait
            // ends before the watch's own delay however slow the VM's round trips (with GC
            // stress, on a busy machine, they made waits of 130 ms, past a 100 ms period)
            config.timing = { answerTimeout: 150, coordinatorTimeout: 300, heartbeatInterval: 200, failureTimeout: 1000, failureDetector: "adaptive" }
            const platform: Platform = {
                now: boardPlatform.now,
                // only the probe's lines: the heap is a board's
                print: (line: string) => {
                    if (line.indexOf("late=") >= 0 || line.indexOf("EL suspect") >= 0) lines.push(line)
                },
                makeMac: boardMac,
                random32: boardRandom32,
            }
            const d = new NodeDriver(config, [], platform, improvedBullyDescriptor)
            d.transport = new MemoryTransport(bus, id)
            d.watchArmed = probeLateCoordinator
            bus.drivers.push(d)
        }
        for (let i = 0; i < 3; i++) await bus.drivers[i].start()
        await settled(() => bus.drivers[0].coordinator() === 3 && bus.drivers[1].coordinator() === 3, 2000)
        // heartbeats for the detector to learn, and one periodic round trip measured
        await ds.sleep(RTT_SAMPLE_MS + 500)
        expect(bus.drivers[1].coordinator()).toBe(3)
        bus.frozen = 3
        // (no lines.length = 0: the VM aborts on it, docs/devicescript.md)
        const from = lines.length
        await settled(() => bus.drivers[0].coordinator() === 2 && bus.drivers[1].role() === Role.Coordinator, 3000)
        expect(bus.drivers[0].coordinator()).toBe(2)
        let probed = 0
        let silent = 0
        for (let i = from; i < lines.length; i++) {
            if (lines[i].indexOf("late=3 check=challenge") >= 0) probed++
            if (lines[i].indexOf("EL suspect") >= 0 && lines[i].indexOf("peer=3 verdict=silent") >= 0) silent++
        }
        expect(probed > 0).toBe(true)
        expect(silent > 0).toBe(true)
        for (let i = 0; i < 3; i++) expect(bus.drivers[i].errors).toBe(0)
        for (let i = 0; i < 3; i++) await bus.drivers[i].setCrashed(true)
    })
})
