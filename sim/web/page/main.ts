// The web lab's page: live (the virtual lab's boards, fed by the server) or replay (the
// core's engine in the page). The server says which at /api/config.

import { h, replace } from "./dom"
import { startLive } from "./live-view"
import { startBlinking } from "./look"
import { type PageConfig, startReplay } from "./replay-view"

async function main() {
  const root = document.getElementById("app")!
  try {
    const config = (await (await fetch("/api/config")).json()) as PageConfig & { mode: "live" | "replay" }
    document.body.dataset.mode = config.mode
    if (config.mode === "live") startLive(root)
    else startReplay(root, config)
    startBlinking()
    document.body.dataset.ready = "true"
  } catch (e) {
    replace(root, h("pre", { class: "bad" }, `the page failed: ${(e as Error).stack ?? e}`))
  }
}

void main()
