// How late this machine fires timers, for the message of a lab test's timing bound: a bound
// missed on a busy host then says so. A worker thread (spawnSync does not block it) sets a
// 50 ms timer again and again and counts how late each one fires.
import { loadavg } from "node:os"
import { Worker } from "node:worker_threads"

const PERIOD_MS = 50
const PROBE = `
const { workerData } = require("node:worker_threads")
const { performance } = require("node:perf_hooks")
const s = new Int32Array(workerData)
let due = performance.now() + ${PERIOD_MS}
const tick = () => {
  const late = Math.max(0, Math.round(performance.now() - due))
  Atomics.add(s, 0, 1)
  Atomics.add(s, 1, late)
  if (late > Atomics.load(s, 2)) Atomics.store(s, 2, late)
  if (late >= 100) Atomics.add(s, 3, 1)
  due = performance.now() + ${PERIOD_MS}
  setTimeout(tick, ${PERIOD_MS})
}
setTimeout(tick, ${PERIOD_MS})
`

export class HostLateness {
  /** Ticks, their lateness summed, the largest lateness, ticks late by 100 ms or more. */
  private counts = new Int32Array(new SharedArrayBuffer(16))
  private worker = new Worker(PROBE, { eval: true, workerData: this.counts.buffer })

  constructor() {
    this.worker.unref()
  }

  /** Counts from now on. */
  reset() {
    for (let i = 0; i < this.counts.length; i++) Atomics.store(this.counts, i, 0)
  }

  /** Since the last reset: "host: 50 ms timers fired up to 420 ms late (mean 12 ms; 37 of 1200 late by 100 ms or more); load average 7.9". */
  describe(): string {
    const [ticks, sum, max, over] = [0, 1, 2, 3].map((i) => Atomics.load(this.counts, i))
    const mean = ticks ? Math.round(sum / ticks) : 0
    return `host: ${PERIOD_MS} ms timers fired up to ${max} ms late (mean ${mean} ms; ${over} of ${ticks} late by 100 ms or more); load average ${loadavg()[0].toFixed(1)}`
  }

  async stop() {
    await this.worker.terminate()
  }
}
