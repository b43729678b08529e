// A board's log line as a typed event: parsed once, where the line enters the lab
// (role as the core's Role, numbers as numbers, the board's own clock kept), so that the
// lab, the dashboard and the web view never look at strings again.

import type { Role } from "../../src/core/contract"
import { type HeapKinds, parseRole } from "./board-state"

/** A structured log line as read, its fields still strings (sim/lab/board-vm.ts parseLogLine). */
export interface LogEvent {
  /** Node id of the board that logged it. */
  node: number
  /** boot, ready, role, tx, rx, drop, err, config, peer, action; panic (the VM's own line). */
  event: string
  fields: Record<string, string>
  /** Host time (performance.now()) when the line arrived. */
  at: number
}

interface Common {
  node: number
  /** Host time (performance.now()) when the line arrived. */
  at: number
  /** The board's own clock when it logged the line (ms since its boot), or null when absent. */
  t: number | null
  /** The line's key=value fields as logged (for tools that want one the union does not name). */
  fields: Record<string, string>
}

export type BoardEvent = Common &
  (
    | { event: "boot" }
    | { event: "nonce"; nonce: number }
    /** role null: a name the core does not have */
    | { event: "role"; role: Role | null; coordinator: number; epoch: number }
    | { event: "tx"; kind: string }
    | { event: "rx"; kind: string }
    | { event: "drop" }
    | { event: "refused"; why: string; count: number }
    | { event: "err"; where: string; message: string }
    | { event: "config"; problem: string }
    /** The VM stopped the program (code 60004: out of memory) and restarts it: no role until the next boot. */
    | { event: "panic"; code: number }
    /** The program's heap after the last collection and the most after any, in bytes (sim/lab/vm-heap.cjs). */
    | { event: "heap"; live: number; peak: number }
    /** What was live at the collection that left the most, by the runtime's kind of block. */
    | { event: "heapkinds"; peak: number; kinds: HeapKinds }
    /** Out of heap: the bytes that were free and the largest free block (sim/lab/vm-runner.cjs). */
    | { event: "oom"; free: number; largest: number; asked: number; kinds: HeapKinds }
    /** The board's process did not run for `ms` until the line was written (sim/lab/stall-probe.cjs). */
    | { event: "stall"; ms: number }
    /** any other line (ready, peer, lost, mqtt, auth, left, action, ...) */
    | { event: "other"; name: string }
  )

function num(s: string | undefined, fallback: number): number {
  const n = Number(s)
  return s !== undefined && s !== "" && Number.isFinite(n) ? n : fallback
}

/** A parsed log line → its typed event. */
export function toBoardEvent(e: LogEvent): BoardEvent {
  const f = e.fields
  const common: Common = { node: e.node, at: e.at, t: f.t === undefined ? null : num(f.t, 0), fields: f }
  switch (e.event) {
    case "boot":
    case "drop":
      return { ...common, event: e.event }
    case "nonce":
      return { ...common, event: "nonce", nonce: num(f.v, 0) }
    case "role":
      return { ...common, event: "role", role: parseRole(f.r), coordinator: num(f.c, -1), epoch: num(f.e, 0) }
    case "tx":
    case "rx":
      return { ...common, event: e.event, kind: f.k ?? "" }
    case "refused":
      // one line stands for `count` refusals of one reason (the firmware summarises a flood)
      return { ...common, event: "refused", why: f.why ?? "", count: Math.max(1, Number(f.count ?? 1) || 1) }
    case "err":
      return { ...common, event: "err", where: f.where ?? "", message: f.msg ?? "" }
    case "config":
      return { ...common, event: "config", problem: f.problem ?? "" }
    case "panic":
      return { ...common, event: "panic", code: num(f.code, 0) }
    case "stall":
      return { ...common, event: "stall", ms: num(f.ms, 0) }
    case "heap":
      return { ...common, event: "heap", live: num(f.live, 0), peak: num(f.peak, 0) }
    case "oom":
      return { ...common, event: "oom", free: num(f.free, 0), largest: num(f.largest, 0), asked: num(f.asked, 0), kinds: heapKinds(f) }
    case "heapkinds":
      return { ...common, event: "heapkinds", peak: num(f.peak, 0), kinds: heapKinds(f) }
    default:
      return { ...common, event: "other", name: e.event }
  }
}

/** The fields "array=12/480": blocks/bytes of each kind of heap block. */
function heapKinds(f: Record<string, string>): HeapKinds {
  const kinds: HeapKinds = {}
  for (const [name, value] of Object.entries(f)) {
    const m = /^(\d+)\/(\d+)$/.exec(value)
    if (m) kinds[name] = { blocks: Number(m[1]), bytes: Number(m[2]) }
  }
  return kinds
}
