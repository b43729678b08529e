// `electlab compare`: every algorithm on the same clusters and failure scenarios, side by
// side, so that the seeds' claims can be read off one table (and one chart).
//
// Cluster: processes 1..n, ring order ascending, ideal network (every message takes 1,
// T = 3, T' = 5); the coordinator n is crashed at time 0. Families:
//   best   the process just below the crashed coordinator (n-1) notices
//   worst  the lowest process (1) notices
//   all    every live process notices at once (in ascending order within the instant)
// echo runs on --topology (default complete). Counting as in docs/algorithms.md: every send is a
// message (ACKs too, shown apart), a multicast is one frame.

import { algorithmName, ALGORITHMS, createCluster, descriptorOf } from "../../src/core/algorithms"
import { Engine, IdealNetwork } from "../../src/core/engine"
import { Algorithm, Kind, MAX_LIST_LENGTH } from "../../src/core/frame"
import { NO_NODE } from "../../src/core/contract"
import { idealTiming } from "../../src/core/timing"
import { InputError } from "../config/input"
import { describeTopology, neighborsFor, type Topology } from "../config/topology"
import { summarize } from "../../src/core/summary"

export const FAMILIES = ["best", "worst", "all"] as const
export type Family = (typeof FAMILIES)[number]

export const DEFAULT_SIZES = [4, 8, 16, 32, 64, 128, 256]

export interface CompareOptions {
  algorithms: number[]
  sizes: number[]
  families: Family[]
  topology: Topology
}

export interface CompareRow {
  algorithm: string
  n: number
  family: Family
  messages: number
  /** Messages other than ACK. */
  withoutAck: number
  byKind: Record<string, number>
  frames: number
  electionTime: number
  coordinator: number | null
  violations: string[]
  /** Messages whose frame would not fit one Jacdac packet (lists past 108 ids). */
  oversize: number
}

export function allAlgorithms(): number[] {
  return ALGORITHMS.map((d) => d.algorithm)
}

export function detectors(family: Family, n: number): number[] {
  if (family === "best") return [n - 1]
  if (family === "worst") return [1]
  return Array.from({ length: n - 1 }, (_, i) => i + 1)
}

export function runOne(algorithm: number, n: number, family: Family, topology: Topology): CompareRow {
  const ids = Array.from({ length: n }, (_, i) => i + 1)
  const neighbors = descriptorOf(algorithm).usesGraph ? neighborsFor(topology, ids, "--topology") : undefined
  const options = { algorithm, ids, group: 1, timing: idealTiming(), network: new IdealNetwork(), neighbors }
  const engine = new Engine(options, createCluster(options))
  engine.digesting = false
  engine.start()
  engine.crash(n)
  for (const id of detectors(family, n)) engine.detect(id)
  const quiet = engine.settle(Number.MAX_SAFE_INTEGER)
  const s = summarize(engine)
  const byKind: Record<string, number> = {}
  s.byKind.forEach((count, k) => {
    if (count > 0) byKind[Kind[k]] = count
  })
  const violations = [...s.violations]
  if (!quiet) violations.push("did not settle")
  return {
    algorithm: algorithmName(algorithm),
    n,
    family,
    messages: s.messages,
    withoutAck: s.messages - s.byKind[Kind.ACK],
    byKind,
    frames: s.frames,
    electionTime: s.electionTime,
    coordinator: s.coordinator === NO_NODE ? null : s.coordinator,
    violations,
    oversize: s.oversize,
  }
}

export function runCompare(options: CompareOptions): CompareRow[] {
  const rows: CompareRow[] = []
  for (const algorithm of options.algorithms)
    for (const family of options.families)
      for (const n of options.sizes) rows.push(runOne(algorithm, n, family, options.topology))
  return rows
}

export function parseFamilies(text: string): Family[] {
  const list = text.split(",").map((f) => f.trim())
  for (const f of list)
    if (!(FAMILIES as readonly string[]).includes(f))
      throw new InputError(`unknown family '${f}'; known: ${FAMILIES.join(", ")}`, "--families")
  return list as Family[]
}

/** The note for a row: what a reader must know besides the numbers. */
export function note(row: CompareRow): string {
  if (row.oversize > 0) return `${row.oversize} msgs past one frame (lists > ${MAX_LIST_LENGTH} ids)`
  return ""
}

function otherViolations(row: CompareRow): string[] {
  return row.violations.filter((v) => !v.includes("exceed the 236-byte frame"))
}

const COLUMNS = ["algorithm", "n", "family", "messages", "no ACK", "frames", "time", "coordinator", "violations", "note"]

export function formatTable(rows: CompareRow[], topology: Topology): string {
  const body = rows.map((r) => [
    r.algorithm,
    String(r.n),
    r.family,
    String(r.messages),
    String(r.withoutAck),
    String(r.frames),
    String(r.electionTime),
    r.coordinator === null ? "none" : String(r.coordinator),
    otherViolations(r).length ? otherViolations(r).join("; ") : "none",
    note(r),
  ])
  const widths = COLUMNS.map((c, i) => Math.max(c.length, ...body.map((row) => row[i].length)))
  const numeric = [false, true, false, true, true, true, true, true, false, false]
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => (numeric[i] ? cell.padStart(widths[i]) : cell.padEnd(widths[i])))
      .join("  ")
      .trimEnd()
  const out = [
    `processes 1..n, ring order ascending, coordinator n crashed at 0, ideal network (T=3); echo on ${describeTopology(topology)}`,
    line(COLUMNS),
    line(widths.map((w) => "-".repeat(w))),
  ]
  let previous = ""
  for (let i = 0; i < body.length; i++) {
    const group = `${rows[i].algorithm}/${rows[i].family}`
    if (previous && group !== previous) out.push("")
    previous = group
    out.push(line(body[i]))
  }
  return out.join("\n") + "\n"
}

function csvCell(text: string): string {
  return /[",\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text
}

export function formatCsv(rows: CompareRow[]): string {
  const header = [
    "algorithm",
    "n",
    "family",
    "messages",
    "messages_without_ack",
    "election",
    "ok",
    "coordinator_msgs",
    "ack",
    "echo",
    "inquiry",
    "frames",
    "election_time",
    "coordinator",
    "oversize",
    "violations",
  ]
  const lines = [header.join(",")]
  for (const r of rows)
    lines.push(
      [
        r.algorithm,
        r.n,
        r.family,
        r.messages,
        r.withoutAck,
        r.byKind.ELECTION ?? 0,
        r.byKind.OK ?? 0,
        r.byKind.COORDINATOR ?? 0,
        r.byKind.ACK ?? 0,
        r.byKind.ECHO ?? 0,
        r.byKind.INQUIRY ?? 0,
        r.frames,
        r.electionTime,
        r.coordinator ?? "",
        r.oversize,
        csvCell(r.violations.join("; ")),
      ].join(","),
    )
  return lines.join("\n") + "\n"
}

// ---- the chart: messages against n, log-log, one panel per family ----

const COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2"]
/** Dashes tell apart series that coincide (ring and bid-ring with one initiator). */
const DASHES = ["", "", "7 4", "", "2 3", "9 3 2 3", "4 2"]

function esc(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;")
}

/** A hand-written SVG: log2 n across, log10 messages up, shared scale across panels. */
export function formatSvg(rows: CompareRow[], topology: Topology): string {
  const families = FAMILIES.filter((f) => rows.some((r) => r.family === f))
  const algorithms = [...new Set(rows.map((r) => r.algorithm))]
  const sizes = [...new Set(rows.map((r) => r.n))].sort((a, b) => a - b)
  const values = rows.map((r) => r.messages).filter((m) => m > 0)
  const yMin = Math.pow(10, Math.floor(Math.log10(Math.min(...values))))
  const yMax = Math.pow(10, Math.ceil(Math.log10(Math.max(...values))))
  const panelW = 280
  const panelH = 240
  const left = 62
  const top = 56
  const gap = 30
  const width = left + families.length * panelW + (families.length - 1) * gap + 20
  const legendRows = Math.ceil(algorithms.length / 3)
  const height = top + panelH + 50 + legendRows * 18 + 24
  const xMin = Math.log2(sizes[0])
  const xMax = Math.log2(sizes[sizes.length - 1])
  const px = (panel: number, n: number) =>
    left + panel * (panelW + gap) + ((Math.log2(n) - xMin) / Math.max(1e-9, xMax - xMin)) * panelW
  const py = (m: number) => top + panelH - ((Math.log10(m) - Math.log10(yMin)) / (Math.log10(yMax) - Math.log10(yMin))) * panelH
  const f = (x: number) => x.toFixed(1)
  const out: string[] = []
  out.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="11">`,
  )
  out.push(`<rect width="${width}" height="${height}" fill="white"/>`)
  out.push(
    `<text x="${left}" y="16" font-size="13" font-weight="bold">Messages per election against n (log-log): coordinator n crashed, ideal network</text>`,
  )
  out.push(
    `<text x="${left}" y="32" fill="#555">all sends counted, ACKs included; ring order ascending; echo on ${esc(describeTopology(topology))}</text>`,
  )
  families.forEach((family, p) => {
    const x0 = left + p * (panelW + gap)
    out.push(`<g>`)
    out.push(`<rect x="${x0}" y="${top}" width="${panelW}" height="${panelH}" fill="none" stroke="#999"/>`)
    const label =
      family === "best" ? "best: n-1 notices" : family === "worst" ? "worst: process 1 notices" : "all live processes notice"
    out.push(`<text x="${f(x0 + panelW / 2)}" y="${top - 4}" text-anchor="middle" font-weight="bold">${label}</text>`)
    for (let e = Math.log10(yMin); e <= Math.log10(yMax); e++) {
      const y = py(Math.pow(10, e))
      out.push(`<line x1="${x0}" x2="${x0 + panelW}" y1="${f(y)}" y2="${f(y)}" stroke="#eee"/>`)
      if (p === 0) out.push(`<text x="${x0 - 6}" y="${f(y + 4)}" text-anchor="end">1e${e}</text>`)
    }
    for (const n of sizes) {
      const x = px(p, n)
      out.push(`<line x1="${f(x)}" x2="${f(x)}" y1="${top}" y2="${top + panelH}" stroke="#eee"/>`)
      out.push(`<text x="${f(x)}" y="${top + panelH + 14}" text-anchor="middle">${n}</text>`)
    }
    out.push(`<text x="${f(x0 + panelW / 2)}" y="${top + panelH + 30}" text-anchor="middle" fill="#555">n (processes)</text>`)
    // guides: n and n^2
    const n0 = sizes[0]
    const n1 = sizes[sizes.length - 1]
    for (const [label, g] of [["n", (n: number) => n], ["n²", (n: number) => n * n]] as [string, (n: number) => number][]) {
      if (g(n1) < yMin || g(n0) > yMax) continue
      out.push(
        `<line x1="${f(px(p, n0))}" y1="${f(py(g(n0)))}" x2="${f(px(p, n1))}" y2="${f(py(g(n1)))}" stroke="#bbb" stroke-dasharray="1 3"/>`,
      )
      out.push(`<text x="${f(px(p, n1) - 3)}" y="${f(py(g(n1)) - 4)}" text-anchor="end" fill="#999">${label}</text>`)
    }
    const series = algorithms.map((a) =>
      rows.filter((r) => r.algorithm === a && r.family === family && r.messages > 0).sort((r1, r2) => r1.n - r2.n),
    )
    series.forEach((pts, k) => {
      if (pts.length === 0) return
      const d = pts.map((r, i) => `${i ? "L" : "M"}${f(px(p, r.n))},${f(py(r.messages))}`).join(" ")
      const dash = DASHES[k % DASHES.length] ? ` stroke-dasharray="${DASHES[k % DASHES.length]}"` : ""
      out.push(`<path d="${d}" fill="none" stroke="${COLORS[k % COLORS.length]}" stroke-width="1.8"${dash}/>`)
    })
    // markers after every line; the ones flagging too-long frames last, on top
    for (const oversize of [false, true])
      series.forEach((pts, k) => {
        const color = COLORS[k % COLORS.length]
        for (const r of pts) {
          if (r.oversize > 0 !== oversize) continue
          out.push(
            `<circle cx="${f(px(p, r.n))}" cy="${f(py(r.messages))}" r="${oversize ? 3.5 : 2.5}" fill="${oversize ? "white" : color}" stroke="${color}" stroke-width="${oversize ? 1.6 : 1}"><title>${esc(
              `${algorithms[k]}, ${family}, n=${r.n}: ${r.messages} messages${oversize ? " (frames too long)" : ""}`,
            )}</title></circle>`,
          )
        }
      })
    out.push(`</g>`)
  })
  out.push(
    `<text x="14" y="${f(top + panelH / 2)}" transform="rotate(-90 14 ${f(top + panelH / 2)})" text-anchor="middle" fill="#555">messages</text>`,
  )
  const legendTop = top + panelH + 46
  algorithms.forEach((a, k) => {
    const x = left + (k % 3) * 200
    const y = legendTop + Math.floor(k / 3) * 18
    const color = COLORS[k % COLORS.length]
    const dash = DASHES[k % DASHES.length] ? ` stroke-dasharray="${DASHES[k % DASHES.length]}"` : ""
    out.push(`<line x1="${x}" x2="${x + 22}" y1="${y - 4}" y2="${y - 4}" stroke="${color}" stroke-width="2"${dash}/>`)
    out.push(`<text x="${x + 28}" y="${y}">${esc(a)}</text>`)
  })
  out.push(
    `<text x="${left}" y="${legendTop + legendRows * 18 + 6}" fill="#555">hollow marker: some frames would not fit one 236-byte Jacdac packet (a list past ${MAX_LIST_LENGTH} ids)</text>`,
  )
  out.push(`</svg>`)
  return out.join("\n") + "\n"
}
