// `npm run bench:web`: how long an election frame takes from the tap (the hub relaying it, or
// the broker delivering it to the tap's subscriber) to the live page in headless Chromium.
// Both ends read Date.now() on the same machine. Crashes and recovers the coordinator
// `rounds` times so that every kind of election frame passes.

import { Algorithm } from "../../src/core/frame"
import { Lab } from "../lab/lab"
import { launchChromium } from "./browser"
import { LiveFeed } from "./live"
import { startWebServer } from "./server"
import { defaultTiming } from "../../src/core/timing"

async function main() {
  const transport = (process.argv[2] ?? "bus") as "bus" | "mqtt"
  const rounds = Number(process.argv[3] ?? 10)
  const timing = defaultTiming(transport === "mqtt" ? "wifi" : "bus")
  const lab = new Lab({ ids: [1, 2, 3, 4, 5], algorithm: Algorithm.Bully, group: 1, timing, transport })
  const chromium = await launchChromium()
  try {
    await lab.start()
    const live = new LiveFeed(lab)
    await live.start()
    const server = await startWebServer({ port: 0, live })
    const page = await chromium.browser.newPage()
    // collect every frame's delay in the page, as the page computes it
    await page.addInitScript(`
      window.delays = []
      const Original = window.EventSource
      window.EventSource = class extends Original {
        constructor(url, init) {
          super(url, init)
          this.addEventListener("frame", (e) => window.delays.push(Date.now() - JSON.parse(e.data).wall))
        }
      }
    `)
    await page.goto(server.url)
    await lab.waitForAgreement(60_000)
    for (let i = 0; i < rounds; i++) {
      await lab.crash(5)
      await lab.waitForAgreement(30_000)
      await lab.recover(5)
      await lab.waitForAgreement(30_000)
    }
    await page.waitForTimeout(500)
    const delays = ((await page.evaluate("window.delays")) as number[]).sort((a, b) => a - b)
    const at = (q: number) => delays[Math.min(delays.length - 1, Math.floor(q * delays.length))]
    process.stdout.write(
      JSON.stringify({ transport, rounds, frames: delays.length, medianMs: at(0.5), p90Ms: at(0.9), p99Ms: at(0.99), maxMs: delays[delays.length - 1] }) + "\n",
    )
    await server.close()
  } finally {
    await chromium.close()
    await lab.stop()
  }
}

await main()
