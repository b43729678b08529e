// Exports of a run the web view showed (replayed or live): a scenario file the simulator
// runs again, and a ShiViz log (https://bestchai.bitbucket.io/shiviz/) with vector clocks.
// Pure: used by the page and by the tests.

import { parseScenario } from "../simulator/scenario"
import type { ReplayRun, ReplaySource } from "./replay"
import { type Intervention } from "./replay"

/** One happening on one process, in the order they happened. */
export interface LogEvent {
  node: number
  type: "local" | "send" | "receive"
  /** Which message a send or receive belongs to (any key unique within the run); -1 for local events. */
  message: number
  text: string
}

/**
 * ShiViz's default format: the event line, then "host {vector clock}". A send ticks the
 * sender's clock and stamps the message; a receipt merges the stamp and ticks.
 * Parse it in ShiViz with the default regular expression
 * `(?<event>.*)\n(?<host>\S*) (?<clock>{.*})`.
 */
export function shivizLog(events: LogEvent[]): string {
  const clocks = new Map<number, Map<string, number>>()
  const stamps = new Map<number, Map<string, number>>()
  const clockOf = (node: number) => {
    let c = clocks.get(node)
    if (!c) clocks.set(node, (c = new Map()))
    return c
  }
  const lines: string[] = []
  for (const e of events) {
    const host = `P${e.node}`
    const clock = clockOf(e.node)
    if (e.type === "receive") {
      const stamp = stamps.get(e.message)
      if (stamp) for (const [h, v] of stamp) clock.set(h, Math.max(clock.get(h) ?? 0, v))
    }
    clock.set(host, (clock.get(host) ?? 0) + 1)
    if (e.type === "send") stamps.set(e.message, new Map(clock))
    const json = JSON.stringify(Object.fromEntries([...clock].sort(([a], [b]) => a.localeCompare(b))))
    lines.push(e.text.replace(/\n/g, " "), `${host} ${json}`)
  }
  return lines.join("\n") + "\n"
}

/** The ShiViz log of a replayed run up to `step`. */
export function replayShiviz(run: ReplayRun, step: number): string {
  return shivizLog(run.events.filter((e) => e.step <= step))
}

/**
 * A replayed run as a scenario file: the source's commands, with the clicked crashes and
 * recoveries as `at TIME` commands after `cluster` (same time; within one tick the engine
 * may order them differently) and the dropped messages as comments (the scenario language
 * has no per-message drop).
 */
export function replayScenario(source: ReplaySource, run: ReplayRun, interventions: Intervention[]): string {
  const blocks = parseScenario(source.text, source.name)
  const out = [`# exported from the ElectLab web view: ${source.name}`]
  for (const s of run.summaries) out.push(`# this run: ${s.actual}`)
  for (const b of blocks) {
    out.push(b.command)
    if (!b.command.startsWith("cluster")) continue
    for (const i of interventions) {
      const at = run.steps[Math.min(i.atStep, run.steps.length - 1)]?.time ?? 0
      if (i.kind === "drop") {
        const m = run.messages[i.message]
        if (m) out.push(`# dropped by hand at t=${m.sentAt}: ${m.src} -> ${m.dst} ${m.kind}`)
      } else out.push(`at ${at} ${i.kind} ${i.node}`)
    }
  }
  return out.join("\n") + "\n"
}

export interface LiveAction {
  /** ms since the lab was ready */
  at: number
  action: "crash" | "recover" | "kill" | "restart"
  node: number
}

export interface LiveSetup {
  algorithm: string
  ids: number[]
  transport: "bus" | "mqtt"
  timing: { answerTimeout: number; coordinatorTimeout: number; heartbeatInterval: number; failureTimeout: number; failureDetector?: string }
  /** bid-ring: each board's suitability, aligned with `ids`. */
  suitability?: number[]
}

/**
 * A live run as a scenario for the simulator's bus or WiFi model: the same cluster and
 * timing, and the clicks at the times they happened (power off counts as a crash, power on
 * as a recovery), run until the page's last moment or long enough after the last click for the
 * election to end. The simulator re-runs the election; its frames are modelled, not replayed.
 */
export function liveScenario(setup: LiveSetup, actions: LiveAction[], endMs: number): string {
  const t = setup.timing
  const network = setup.transport === "mqtt" ? "wifi" : "bus"
  const out = [
    `# exported from the ElectLab live view (${setup.transport}); times in ms since the boards first agreed`,
    `cluster algorithm=${setup.algorithm} ids=${setup.ids.join(",")} network=${network} answer-timeout=${t.answerTimeout} ` +
      `coordinator-timeout=${t.coordinatorTimeout} heartbeat=${t.heartbeatInterval} failure-timeout=${t.failureTimeout}` +
      (t.failureDetector ? ` failure-detector=${t.failureDetector}` : "") +
      (setup.suitability ? ` suitability=${setup.suitability.join(",")}` : ""),
  ]
  for (const a of actions) {
    if (a.at < 0) continue
    const verb = a.action === "kill" ? "crash" : a.action === "restart" ? "recover" : a.action
    out.push(`at ${Math.round(a.at)} ${verb} ${a.node}${a.action === verb ? "" : `  # ${a.action}`}`)
  }
  // long enough after the last click for the simulator to notice and finish the election
  const lastAt = actions.reduce((m, a) => Math.max(m, a.at), 0)
  const until = Math.max(endMs, lastAt + 2 * (t.failureTimeout + t.coordinatorTimeout + t.answerTimeout))
  out.push(`run until=${Math.max(0, Math.round(until))}`, "summary", "status")
  // comments after a command would be read as part of it: keep them on their own lines
  return out.map((l) => (l.includes("  # ") ? `# ${l.split("  # ")[1]}\n${l.split("  # ")[0]}` : l)).join("\n") + "\n"
}
