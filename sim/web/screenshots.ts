// `npm run screenshots`: takes the docs' screenshots from the real page with the same headless
// Chromium as the tests, at 1280×720 (a classroom projector), LEDs steady on (`?led=on`):
//   docs/web-replay.png         the replay of Tanenbaum's example
//   docs/web-live-slow.png      the live lab in slow motion, mid-election, with the boards' timers
//   docs/web-failover-zoom.png  that failover's band opened: the election by causal order
// It starts a five-board lab, so it needs the lab's bus port: run it when no other lab runs,
// or in a private network namespace (`unshare -rn sh -c 'ip link set lo up && npm run screenshots'`).

import { join } from "node:path"
import type { Page } from "playwright-core"
import { Algorithm } from "../../src/core/frame"
import { Role } from "../../src/core/contract"
import { defaultTiming } from "../../src/core/timing"
import { ROOT } from "../config/root"
import { Lab } from "../lab/lab"
import { launchChromium } from "./browser"
import { LiveFeed } from "./live"
import { startWebServer } from "./server"

const VIEWPORT = { width: 1280, height: 720 }
const out = (name: string) => join(ROOT, "docs", name)

async function until(page: Page, what: string, ok: () => boolean, timeoutMs = 60_000) {
  const end = Date.now() + timeoutMs
  while (!ok()) {
    if (Date.now() > end) throw new Error(`screenshots: gave up waiting for ${what} after ${timeoutMs} ms`)
    await page.waitForTimeout(50)
  }
}

async function main() {
  const chromium = await launchChromium()
  const page = await chromium.browser.newPage({ viewport: VIEWPORT })
  const replay = await startWebServer({ port: 0 })
  await page.goto(replay.url + "?scenario=tanenbaum-bully&led=on")
  await page.waitForSelector("body[data-ready=true]")
  await page.screenshot({ path: out("web-replay.png") })
  console.log("docs/web-replay.png")
  await replay.close()

  const lab = new Lab({ ids: [1, 2, 3, 4, 5], algorithm: Algorithm.Bully, group: 1, timing: defaultTiming("bus") })
  try {
    await lab.start()
    const live = new LiveFeed(lab)
    await live.start()
    const server = await startWebServer({ port: 0, live })
    await page.goto(server.url + "?led=on")
    await lab.waitForAgreement(60_000)
    await live.act(JSON.stringify({ action: "slow", on: true }))
    await lab.waitForAgreement(90_000)
    await page.selectOption("#window", "12000") // the whole slow failover stays on the diagram
    await page.waitForTimeout(1500)
    const crashAt = lab.now()
    await live.act(JSON.stringify({ action: "crash", node: 5 }))
    await until(page, "an election", () => [...lab.boards.values()].some((b) => b.role === Role.Electing))
    // the OKs are on their way: T' runs on the lower boards
    await until(page, "an OK", () => live.recorded().some((f) => f.kind === "OK" && f.at > crashAt))
    await page.waitForTimeout(600)
    await page.screenshot({ path: out("web-live-slow.png") })
    console.log("docs/web-live-slow.png")

    await lab.waitForAgreement(90_000)
    await lab.waitForQuiet(1000)
    const failover = lab.transitions[lab.transitions.length - 1]
    await page.locator(`rect.failover[data-started="${failover.startedAt}"]`).click({ position: { x: 4, y: 4 } })
    await page.waitForSelector("#zoom:not([hidden])")
    await page.locator("#zoom").scrollIntoViewIfNeeded()
    await page.waitForTimeout(300)
    await page.locator("#zoom").screenshot({ path: out("web-failover-zoom.png") })
    console.log("docs/web-failover-zoom.png")
    await server.close()
  } finally {
    await chromium.close()
    await lab.stop()
  }
}

await main()
