// How soon a killed MQTT client's last will reaches a subscriber, against how soon its parent
// sees the process gone: the floor under a killed leader's failover over MQTT. A SIGKILLed
// process closes its sockets only as the kernel tears it down, so the broker cannot publish
// the will before that.
//   npx tsx sim/bench/will-latency.ts [TRIALS]

import { spawn } from "node:child_process"
import { performance } from "node:perf_hooks"
import { loadavg } from "node:os"
import mqtt from "mqtt"
import { Broker, freePorts } from "../lab/broker"
import { median, nearestRank } from "../lab/stats"

const trials = Number(process.argv[2] ?? 20)
const [port] = await freePorts(1)
const broker = new Broker(port)
await broker.start()
const url = `mqtt://127.0.0.1:${port}`
const sub = await mqtt.connectAsync(url)
await sub.subscribeAsync("will/#")
const exits: number[] = []
const wills: number[] = []
for (let i = 0; i < trials; i++) {
  // the smallest client: connect with a will, then wait to be killed
  const child = spawn(
    process.execPath,
    ["--input-type=module", "-e", `import mqtt from "mqtt"; const c = await mqtt.connectAsync(${JSON.stringify(url)}, { will: { topic: "will/x", payload: "gone", qos: 1 } }); console.log("up")`],
    { stdio: ["ignore", "pipe", "inherit"], cwd: process.cwd() },
  )
  await new Promise((r) => child.stdout.once("data", r))
  await new Promise((r) => setTimeout(r, 200 + Math.random() * 100))
  const t0 = performance.now()
  const exited = new Promise<number>((r) => child.once("exit", () => r(performance.now() - t0)))
  const will = new Promise<number>((r) => sub.once("message", () => r(performance.now() - t0)))
  child.kill("SIGKILL")
  exits.push(await exited)
  wills.push(await will)
}
await sub.endAsync()
await broker.stop()
const row = (name: string, xs: number[]) =>
  `${name.padEnd(26)} min ${Math.min(...xs).toFixed(1)} ms  median ${median(xs)!.toFixed(1)} ms  p90 ${nearestRank([...xs].sort((a, b) => a - b), 0.9)!.toFixed(1)} ms`
console.log(`${trials} SIGKILLs of a Node MQTT client with a last will (load average ${loadavg()[0].toFixed(1)})`)
console.log(row("process gone (exit seen)", exits))
console.log(row("last will received", wills))
