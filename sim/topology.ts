// Graph topologies for tree/echo election: ring, complete, grid:RxC, or an edge-list file.
//
// Edge-list file format: one edge per line as two process ids separated by white
// space ("3 7"); '#' starts a comment; blank lines are ignored.

import { readFileSync } from "node:fs"
import { MAX_NODE_ID } from "../src/core/frame"
import { InputError, parseInteger } from "./cluster"

export type Topology =
  | { kind: "ring" }
  | { kind: "complete" }
  | { kind: "grid"; rows: number; cols: number }
  | { kind: "file"; file: string; edges: [number, number][] }

export function parseTopology(text: string, where: string): Topology {
  if (text === "ring" || text === "complete") return { kind: text }
  const grid = /^grid:(\d+)x(\d+)$/.exec(text)
  if (grid)
    return {
      kind: "grid",
      rows: parseInteger(grid[1], where, 1, 1000),
      cols: parseInteger(grid[2], where, 1, 1000),
    }
  if (text.startsWith("grid:")) throw new InputError(`'${text}' is not grid:RxC (e.g. grid:3x4)`, where)
  let body: string
  try {
    body = readFileSync(text, "utf8")
  } catch {
    throw new InputError(`'${text}' is not ring, complete, grid:RxC or a readable edge-list file`, where)
  }
  return { kind: "file", file: text, edges: parseEdgeList(body, text) }
}

export function parseEdgeList(body: string, file: string): [number, number][] {
  const edges: [number, number][] = []
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
  })
  if (edges.length === 0) throw new InputError("no edges", file)
  return edges
}
