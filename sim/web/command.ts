// `electlab view` (the replay page without VMs) and the live page beside `electlab lab`.

import type { Lab } from "../lab/lab"
import { LiveFeed } from "./live"
import { parseWebPort, startWebServer, type WebServer } from "./server"

/** Serves the replay page until Ctrl-C. */
export async function runViewCommand(flags: { web?: string }): Promise<number> {
  const port = parseWebPort(flags.web)
  const server = await startWebServer({ port: port === 0 ? 0 : port })
  process.stdout.write(`ElectLab replay: open ${server.url}  (e.g. ${server.url}?scenario=tanenbaum-bully; Ctrl-C stops)\n`)
  await new Promise<void>((resolve) => process.once("SIGINT", () => resolve()))
  await server.close()
  return 0
}

/** The live page for a running lab, or null with `--web 0`. */
export async function startLiveWeb(lab: Lab, webFlag: string | undefined): Promise<WebServer | null> {
  const port = parseWebPort(webFlag)
  if (port === 0) return null
  const live = new LiveFeed(lab)
  await live.start()
  const server = await startWebServer({ port, live })
  lab.note(`web view: ${server.url}`)
  return server
}
