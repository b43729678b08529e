// The web lab's HTTP server, loopback only: the page (bundled with esbuild from sim/web/page
// at start, kept in memory; nothing is fetched from the internet), the golden scenarios for
// the replay, and for the live lab a Server-Sent Events stream plus an action endpoint.

import { readdirSync, readFileSync } from "node:fs"
import http from "node:http"
import type { AddressInfo } from "node:net"
import { join } from "node:path"
import { ALGORITHMS } from "../../src/core/algorithms"
import { InputError } from "../config/input"
import { ROOT } from "../config/root"
import type { LiveFeed } from "./live"

export const DEFAULT_WEB_PORT = 8090
const PAGE_DIR = join(ROOT, "sim", "web", "page")
const SCENARIO_DIR = join(ROOT, "test", "scenarios")

export interface WebServer {
  url: string
  port: number
  close(): Promise<void>
}

/** The page's script: sim/web/page/main.ts and what it imports (the core, the engine, the scenario parser). */
export async function bundlePage(): Promise<string> {
  const esbuild = await import("esbuild")
  const shim = join(PAGE_DIR, "node-shim.js")
  const result = await esbuild.build({
    entryPoints: [join(PAGE_DIR, "main.ts")],
    bundle: true,
    format: "esm",
    platform: "browser",
    target: "es2020",
    write: false,
    minify: true,
    sourcemap: false,
    logLevel: "silent",
    plugins: [
      {
        name: "node-shim",
        setup(build) {
          build.onResolve({ filter: /^node:(fs|path)$/ }, () => ({ path: shim }))
        },
      },
    ],
  })
  return result.outputFiles[0].text
}

/** Golden scenarios and the edge lists they name, keyed as the page's file set sees them. */
export function scenarioFiles(): { scenarios: { name: string; file: string }[]; files: Record<string, string> } {
  const files: Record<string, string> = {}
  const scenarios: { name: string; file: string }[] = []
  for (const f of readdirSync(SCENARIO_DIR).sort()) {
    if (!f.endsWith(".txt")) continue
    const file = `scenarios/${f}`
    files[file] = readFileSync(join(SCENARIO_DIR, f), "utf8")
    scenarios.push({ name: f.replace(/\.txt$/, ""), file })
  }
  const graphs = join(SCENARIO_DIR, "graphs")
  for (const f of readdirSync(graphs)) files[`scenarios/graphs/${f}`] = readFileSync(join(graphs, f), "utf8")
  return { scenarios, files }
}

const INDEX = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>ElectLab</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="stylesheet" href="/app.css"></head>
<body><div id="app">loading…</div><script type="module" src="/app.js"></script></body></html>
`

export async function startWebServer(options: { port: number; live?: LiveFeed }): Promise<WebServer> {
  const script = await bundlePage()
  const css = readFileSync(join(PAGE_DIR, "style.css"), "utf8")
  const config = JSON.stringify({
    mode: options.live ? "live" : "replay",
    algorithms: ALGORITHMS.map((d) => d.name),
    ...scenarioFiles(),
  })
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://localhost")
    const send = (status: number, type: string, body: string) => {
      res.writeHead(status, { "content-type": type, "cache-control": "no-store" })
      res.end(body)
    }
    if (req.method === "GET" && url.pathname === "/") return send(200, "text/html; charset=utf-8", INDEX)
    if (req.method === "GET" && url.pathname === "/app.js") return send(200, "text/javascript; charset=utf-8", script)
    if (req.method === "GET" && url.pathname === "/app.css") return send(200, "text/css; charset=utf-8", css)
    if (url.pathname === "/favicon.ico") return send(204, "text/plain", "")
    if (req.method === "GET" && url.pathname === "/api/config") return send(200, "application/json", config)
    if (options.live && req.method === "GET" && url.pathname === "/api/live") return options.live.subscribe(req, res)
    if (options.live && req.method === "POST" && url.pathname === "/api/live/action") {
      let body = ""
      req.on("data", (d: Buffer) => {
        body += d.toString()
        if (body.length > 10_000) req.destroy()
      })
      req.on("end", () => {
        options
          .live!.act(body)
          .then((text) => send(200, "application/json", JSON.stringify({ ok: true, text })))
          .catch((e: Error) => send(400, "application/json", JSON.stringify({ ok: false, error: e.message })))
      })
      return
    }
    send(404, "text/plain", `no such page: ${url.pathname}`)
  })
  await new Promise<void>((resolve, reject) => {
    server.once("error", (e: NodeJS.ErrnoException) =>
      reject(e.code === "EADDRINUSE" ? new Error(`port ${options.port} is in use: give another with --web PORT`) : e),
    )
    server.listen(options.port, "127.0.0.1", () => resolve())
  })
  const port = (server.address() as AddressInfo).port
  return {
    url: `http://127.0.0.1:${port}/`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        options.live?.close()
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

/** `--web PORT`: 0 turns the page off. */
export function parseWebPort(text: string | undefined): number {
  if (text === undefined) return DEFAULT_WEB_PORT
  if (!/^\d+$/.test(text) || Number(text) > 65535) throw new InputError(`'${text}' is not a port (0 turns the page off)`, "--web")
  return Number(text)
}
