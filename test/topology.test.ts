// --topology and suitability: graphs for echo, bids for bid-ring, and their errors.
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { spawnSync } from "node:child_process"
import { describe, expect, test } from "vitest"
import { simCommands } from "../sim/cli"
import { InputError } from "../sim/config/input"
import { parseScenario, ScenarioRunner } from "../sim/simulator/scenario"
import { neighborsFor, parseTopology } from "../sim/config/topology"
import { clusterOf } from "./commands"

const bin = join(import.meta.dirname, "..", "bin", "electlab.js")
const base = { algorithm: "echo", topology: "complete", network: "ideal", seed: "1", loss: "0", chart: true }

function edgeFile(body: string): string {
  const file = join(mkdtempSync(join(tmpdir(), "electlab-")), "graph.edges")
  writeFileSync(file, body)
  return file
}

function runText(text: string) {
  return new ScenarioRunner("s.txt").run(parseScenario(text, "s.txt"))
}

describe("topologies", () => {
  test("ring: each id's neighbours are the previous and next in the order given", () => {
    expect(neighborsFor(parseTopology("ring", "t"), [3, 1, 2, 5], "t")).toEqual([[1, 5], [2, 3], [1, 5], [2, 3]])
    expect(neighborsFor(parseTopology("ring", "t"), [1, 2], "t")).toEqual([[2], [1]])
  })

  test("grid:RxC fills the rows with the ids in the order given", () => {
    // 1 2 3
    // 4 5 6
    expect(neighborsFor(parseTopology("grid:2x3", "t"), [1, 2, 3, 4, 5, 6], "t")).toEqual([
      [2, 4], [1, 3, 5], [2, 6], [1, 5], [2, 4, 6], [3, 5],
    ])
  })

  test("grid:RxC needs R*C processes", () => {
    expect(() => neighborsFor(parseTopology("grid:3x3", "--topology"), [1, 2, 3], "--topology")).toThrow(
      "--topology: grid:3x3 needs 9 processes, the cluster has 3",
    )
  })

  test("an edge-list file: undirected, repeated edges once, comments and blank lines skipped", () => {
    const file = edgeFile("# a path and a chord\n1 2\n\n2 3   # tail comment\n3 1\n2 1\n")
    expect(neighborsFor(parseTopology(file, "t"), [1, 2, 3], "t")).toEqual([[2, 3], [1, 3], [1, 2]])
  })

  test("a file naming a process outside the cluster: the error names the file and line", () => {
    const file = edgeFile("1 2\n2 7\n")
    expect(() => neighborsFor(parseTopology(file, "t"), [1, 2, 3], "t")).toThrow(`${file}:2: process 7 is not in the cluster (ids 1,2,3)`)
  })

  test("a graph that is not connected is refused", () => {
    const file = edgeFile("1 2\n3 4\n")
    expect(() => neighborsFor(parseTopology(file, "t"), [1, 2, 3, 4], "--topology")).toThrow(
      /--topology: the graph .* is not connected: 3,4 cannot be reached from 1/,
    )
  })

  test("bad lines: a loop, three ids, a word", () => {
    expect(() => parseTopology(edgeFile("1 1\n"), "t")).toThrow(/:1: edge 1-1 is a loop/)
    expect(() => parseTopology(edgeFile("1 2\n1 2 3\n"), "t")).toThrow(/:2: expected two ids per edge, got '1 2 3'/)
    expect(() => parseTopology(edgeFile("1 x\n"), "t")).toThrow(/:1: 'x' is not a number/)
    expect(() => parseTopology(edgeFile("# nothing\n"), "t")).toThrow(/no edges/)
  })
})

describe("sim flags and cluster keys", () => {
  test("--topology reaches the cluster for echo (a file as an absolute path)", () => {
    const grid = clusterOf(simCommands({ ...base, nodes: "9", topology: "grid:3x3" } as never))
    expect(grid.topology).toBe("grid:3x3")
    expect(grid.neighbors![4]).toEqual([2, 4, 6, 8])
    const file = edgeFile("1 2\n2 3\n")
    const fromFile = clusterOf(simCommands({ ...base, nodes: "3", topology: file } as never))
    expect(fromFile.topology).toBe(file)
    expect(fromFile.neighbors).toEqual([[2], [1, 3], [2]])
  })

  test("--topology is refused for the other algorithms, and checked against the cluster", () => {
    expect(() => simCommands({ ...base, algorithm: "ring", nodes: "4", topology: "ring" } as never)).toThrow(
      "--topology: applies to echo only",
    )
    expect(() => simCommands({ ...base, nodes: "8", topology: "grid:3x3" } as never)).toThrow(InputError)
  })

  test("--suitability: one value per id, bid-ring only", () => {
    const bid = { ...base, algorithm: "bid-ring", ids: "1,2,3" }
    expect(clusterOf(simCommands({ ...bid, suitability: "5,0,0" } as never)).suitability).toEqual([5, 0, 0])
    expect(() => simCommands({ ...bid, suitability: "5,0" } as never)).toThrow("--suitability: 2 values for 3 processes")
    expect(() => simCommands({ ...bid, suitability: "5,0,70000" } as never)).toThrow("--suitability: 70000 is out of range 0..65535")
    expect(() => simCommands({ ...base, algorithm: "ring", ids: "1,2,3", suitability: "1,1,1" } as never)).toThrow(
      "--suitability: applies to bid-ring only",
    )
  })

  test("scenario keys: topology= for echo, suitability= for bid-ring, with file:line errors", () => {
    expect(runText("cluster algorithm=echo nodes=4 topology=ring\n")[0]).toEqual(["echo on ideal: ids 1..4 on ring; coordinator 4"])
    expect(runText("cluster algorithm=bid-ring ids=3,2,1 suitability=0,9,0\n")[0]).toEqual([
      "bid-ring on ideal: ids 1,2,3 in ring order 3,2,1, suitability 0,9,0; coordinator 3",
    ])
    expect(() => runText("cluster algorithm=bully nodes=4 topology=ring\n")).toThrow("s.txt:1: topology: applies to echo only")
    expect(() => runText("cluster algorithm=echo nodes=4 topology=grid:2x3\n")).toThrow("s.txt:1: topology: grid:2x3 needs 6 processes")
    expect(() => runText("cluster algorithm=bid-ring nodes=3 suitability=1\n")).toThrow("s.txt:1: suitability: 1 values for 3 processes")
  })

  test("electlab sim --algorithm echo --topology grid:3x3 --json: the wave's exact counts", () => {
    const r = spawnSync(process.execPath, [bin, "sim", "--algorithm", "echo", "--nodes", "9", "--topology", "grid:3x3", "--crash", "9", "--detect", "1", "--json"], { encoding: "utf8" })
    expect(r.status).toBe(0)
    const out = JSON.parse(r.stdout)
    // live grid without its corner: E' = 10, D = 2 edges to 9, m = 8
    expect(out).toMatchObject({
      algorithm: "echo",
      coordinator: 8,
      messages: { total: 36, byKind: { ELECTION: 15, ECHO: 7, COORDINATOR: 7, ACK: 7 } },
      violations: [],
    })
  })
})
