// Graph topologies for tree/echo election: ring, complete, grid:RxC, or an edge-list file.
//
// Edge-list file format: one edge per line as two process ids separated by white
// space ("3 7"); '#' starts a comment; blank lines are ignored. Edges are undirected; a
// repeated edge counts once. Every id must belong to the cluster and the graph must be
// connected (errors name the file and line).

import { readFileSync } from "node:fs"
import { isAbsolute, join } from "node:path"
import { MAX_NODE_ID } from "../../src/core/frame"
import { describeIds, InputError, parseInteger } from "./input"

export type Topology =
  | { kind: "ring" }
  | { kind: "complete" }
  | { kind: "grid"; rows: number; cols: number }
  | { kind: "file"; file: string; edges: [number, number][]; lines: number[] }

/** `baseDir`: where a relative FILE is looked for (a scenario file's folder); default the working directory. */
export function parseTopology(text: string, where: string, baseDir?: string): Topology {
  if (text === "ring" || text === "complete") return { kind: text }
  const grid = /^grid:(\d+)x(\d+)$/.exec(text)
  if (grid)
    return {
      kind: "grid",
      rows: parseInteger(grid[1], where, 1, 1000),
      cols: parseInteger(grid[2], where, 1, 1000),
    }
  if (text.startsWith("grid:")) throw new InputError(`'${text}' is not grid:RxC (e.g. grid:3x4)`, where)
  const path = baseDir && !isAbsolute(text) ? join(baseDir, text) : text
  let body: string
  try {
    body = readFileSync(path, "utf8")
  } catch {
    throw new InputError(`'${text}' is not ring, complete, grid:RxC or a readable edge-list file`, where)
  }
  const { edges, lines } = parseEdgeList(body, text)
  return { kind: "file", file: text, edges, lines }
}

export function parseEdgeList(body: string, file: string): { edges: [number, number][]; lines: number[] } {
  const edges: [number, number][] = []
  const lines: number[] = []
  body.split("\n").forEach((raw, i) => {
    const at = `${file}:${i + 1}`
    const line = raw.replace(/#.*/, "").trim()
    if (line === "") return
    const parts = line.split(/\s+/)
    if (parts.length !== 2) throw new InputError(`expected two ids per edge, got '${line}'`, at)
    const a = parseInteger(parts[0], at, 0, MAX_NODE_ID)
    const b = parseInteger(parts[1], at, 0, MAX_NODE_ID)
    if (a === b) throw new InputError(`edge ${a}-${b} is a loop`, at)
    edges.push([a, b])
    lines.push(i + 1)
  })
  if (edges.length === 0) throw new InputError("no edges", file)
  return { edges, lines }
}

export function describeTopology(t: Topology): string {
  switch (t.kind) {
    case "ring":
    case "complete":
      return t.kind
    case "grid":
      return `grid:${t.rows}x${t.cols}`
    case "file":
      return t.file
  }
}

/**
 * Each process's neighbours, aligned with `ids`. ring: the previous and next id in the
 * order given; complete: everybody else; grid:RxC: the ids in the order given fill the
 * rows, each linked to the ones above, below, left and right; file: its edges.
 * Each list is ascending.
 */
export function neighborsFor(t: Topology, ids: number[], where: string): number[][] {
  const n = ids.length
  const nb: number[][] = ids.map((): number[] => [])
  const at = new Map<number, number>()
  ids.forEach((id, i) => at.set(id, i))
  const link = (i: number, j: number) => {
    if (i === j || nb[i].includes(ids[j])) return
    nb[i].push(ids[j])
    nb[j].push(ids[i])
  }
  switch (t.kind) {
    case "complete":
      for (let i = 0; i < n; i++) for (let j = i + 1; j < n; j++) link(i, j)
      break
    case "ring":
      for (let i = 0; i < n; i++) link(i, (i + 1) % n)
      break
    case "grid":
      if (t.rows * t.cols !== n)
        throw new InputError(`grid:${t.rows}x${t.cols} needs ${t.rows * t.cols} processes, the cluster has ${n}`, where)
      for (let r = 0; r < t.rows; r++)
        for (let c = 0; c < t.cols; c++) {
          const i = r * t.cols + c
          if (c + 1 < t.cols) link(i, i + 1)
          if (r + 1 < t.rows) link(i, i + t.cols)
        }
      break
    case "file":
      t.edges.forEach(([a, b], k) => {
        const ia = at.get(a)
        const ib = at.get(b)
        const missing = ia === undefined ? a : ib === undefined ? b : null
        if (missing !== null)
          throw new InputError(`process ${missing} is not in the cluster (${describeIds(ids)})`, `${t.file}:${t.lines[k]}`)
        link(ia!, ib!)
      })
      break
  }
  for (const list of nb) list.sort((a, b) => a - b)
  checkConnected(nb, ids, t, where)
  return nb
}

function checkConnected(nb: number[][], ids: number[], t: Topology, where: string) {
  const index = new Map<number, number>()
  ids.forEach((id, i) => index.set(id, i))
  const seen = new Array<boolean>(ids.length).fill(false)
  const stack = [0]
  seen[0] = true
  while (stack.length) {
    const i = stack.pop()!
    for (const id of nb[i]) {
      const j = index.get(id)!
      if (!seen[j]) {
        seen[j] = true
        stack.push(j)
      }
    }
  }
  const unreached = ids.filter((_, i) => !seen[i])
  if (unreached.length)
    throw new InputError(
      `the graph ${describeTopology(t)} is not connected: ${unreached.slice(0, 10).join(",")}${unreached.length > 10 ? ",..." : ""} cannot be reached from ${ids[0]}`,
      where,
    )
}
