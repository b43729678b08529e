// Sensor summary, an application on the election API. Every board reads a (simulated)
// sensor and sends its reading to the coordinator; the coordinator publishes the cluster's
// summary twice a second, as an order carrying its fencing token; every board shows the latest
// summary and counts the orders its fence refused. Run it in the virtual lab, from this
// repository: npx electlab lab --program examples/sensor-summary/src/main.ts
// or in a copy of this folder: npm install && npx electlab init && npx electlab lab
import * as ds from "@devicescript/core"
import { createElection, formatToken } from "electlab"

const READ_MS = 500
// short enough that a coordinator that leads for only a second publishes at least once
const PUBLISH_MS = 500

const election = await createElection()
const me = election.id
/** Readings the coordinator has gathered in this period, by board ("3": 215). */
let readings: Record<string, number> = {}
let step = 0

/** A made-up temperature in tenths of a degree: each board a little warmer, with a slow wave. */
function readSensor(): number {
    step++
    return 200 + me * 5 + (step % 8)
}

// The coordinator gathers the readings; every board shows the coordinator's summaries.
election.onMessage((m) => {
    const text = m.data.toString()
    if (m.order) {
        const s = JSON.parse(text)
        const c = election.counters()
        election.log("summary", "tok=" + formatToken(m.token) + " boards=" + s.boards + " min=" + s.min + " max=" + s.max + " avg=" + s.avg + " refused=" + c.refused)
    } else if (election.isCoordinator()) {
        readings["" + m.from] = JSON.parse(text).r
    }
})

election.onBecomeCoordinator((token) => {
    readings = {}
    election.log("summary", "leads tok=" + formatToken(token))
})

// Only while coordinator: publish what the period gathered, then start a new period.
election.whileCoordinator(async (duty) => {
    while (duty.active()) {
        await ds.sleep(PUBLISH_MS)
        const values = Object.values(readings)
        readings = {}
        if (values.length === 0 || !duty.active()) continue
        let min = values[0]
        let max = values[0]
        let sum = 0
        for (const v of values) {
            min = Math.min(min, v)
            max = Math.max(max, v)
            sum += v
        }
        const summary = { boards: values.length, min: min, max: max, avg: Math.round(sum / values.length) }
        if (await election.broadcast(Buffer.from(JSON.stringify(summary))))
            election.log("summary", "published tok=" + formatToken(duty.token) + " boards=" + summary.boards + " avg=" + summary.avg)
    }
})

await election.start()

// Every board, the coordinator too (it hands its reading to itself), reports its reading.
setInterval(async () => {
    try {
        await election.sendToCoordinator(Buffer.from(JSON.stringify({ r: readSensor() })))
    } catch (e) {
        election.log("err", "where=sensor msg=" + e)
    }
}, READ_MS)
