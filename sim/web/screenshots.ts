// Takes the README's and the lab guide's screenshots with the same headless Chromium as the
// tests: docs/web-replay.png (Tanenbaum's example) and docs/web-live-slow.png (the live view
// in slow motion, mid-election), LEDs steady on (`?led=on`). Needs the lab's bus port: run it in a private
// network namespace when other labs run (`unshare -n sh -c 'ip link set lo up && npx tsx sim/web/screenshots.ts'`).

import { join } from "node:path"
import { Algorithm } from "../../src/core/frame"
import { Role } from "../../src/core/node"
import { ROOT } from "../lab/firmware-image"
import { Lab } from "../lab/lab"
import { launchChromium } from "./browser"
import { LiveFeed } from "./live"
import { startWebServer } from "./server"
import { defaultTiming } from "../../src/core/timing"

async function main() {
  const chromium = await launchChromium()
  const page = await chromium.browser.newPage({ viewport: { width: 1280, height: 1000 } })
  const replay = await startWebServer({ port: 0 })
  await page.goto(replay.url + "?scenario=tanenbaum-bully&led=on")
  await page.waitForSelector("body[data-ready=true]")
  await page.screenshot({ path: join(ROOT, "docs", "web-replay.png"), fullPage: true })
  await replay.close()

  const timing = defaultTiming("bus")
  const lab = new Lab({ ids: [1, 2, 3, 4, 5], algorithm: Algorithm.Bully, group: 1, timing })
  try {
    await lab.start()
    const live = new LiveFeed(lab)
    await live.start()
    const server = await startWebServer({ port: 0, live })
    await page.goto(server.url + "?led=on")
    await lab.waitForAgreement(60_000)
    await live.act(JSON.stringify({ action: "slow", on: true }))
    await lab.waitForAgreement(90_000)
    await page.waitForTimeout(1500)
    await live.act(JSON.stringify({ action: "crash", node: 5 }))
    while (![...lab.boards.values()].some((b) => b.role === Role.Electing)) await page.waitForTimeout(50)
    await page.waitForTimeout(400)
    await page.screenshot({ path: join(ROOT, "docs", "web-live-slow.png") })
    await server.close()
  } finally {
    await chromium.close()
    await lab.stop()
  }
}

await main()
