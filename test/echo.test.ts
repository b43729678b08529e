// Echo (tree) election: rules on single nodes, closed-form counts on many graphs, several
// initiators, crashed nodes routed around. Formulas in docs/algorithms.md, next to this
// file's name. Graph: n processes, |E| edges, one initiator, all alive:
//   ELECTION 2|E| - (n-1), ECHO n-1 (together 2|E|), COORDINATOR n-1, ACK n-1 (an ELECTION
//   that crossed the receiver's own is answered by it).
// With crashed processes: m live processes, E' edges among them, D edges from a live
// process to a crashed one (the live graph connected):
//   ELECTION 2E' - (m-1) + D, ECHO m-1, COORDINATOR m-1, ACK m-1.
import { describe, expect, test } from "vitest"
import { createNode } from "../src/core/algorithms"
import { EchoNode } from "../src/core/echo"
import { Algorithm, Kind } from "../src/core/frame"
import { type Action, Role, TIMER_ALGORITHM, TIMER_DEADLINE } from "../src/core/contract"
import { idealTiming } from "../src/core/timing"
import { Rng } from "../sim/simulator/rng"
import { neighborsFor, parseTopology } from "../sim/config/topology"
import { describe as show, frameFrom, range, sendActions, sends, startEngine } from "./helpers"
import { summarize } from "../src/core/summary"

const E = Algorithm.Echo
const T_ACK = TIMER_ALGORITHM

function node(id: number, neighbors: number[], ids = range(1, 6)) {
  const n = createNode(E, { id, ids, group: 1, timing: idealTiming(), neighbors }) as EchoNode
  n.start(0, [])
  return n
}

/** A frame of wave (epoch, initiator); an ACK answers, by default, an ELECTION of that epoch. */
function wave(kind: Kind, src: number, dst: number, initiator: number, epoch = 1, bid = 0, seq = kind === Kind.ACK ? epoch : 0) {
  return frameFrom(E, kind, src, dst, { initiator, epoch, bid, seq })
}

type Graph = number[][]

function edges(g: Graph): number {
  return g.reduce((s, nb) => s + nb.length, 0) / 2
}

function run(ids: number[], g: Graph, crashed: number[], detect: number[]) {
  const e = startEngine(E, ids, { neighbors: g })
  for (const id of crashed) e.crash(id)
  for (const id of detect) e.detect(id)
  expect(e.settle(1e7)).toBe(true)
  const s = summarize(e)
  return { s, e, k: (kind: Kind) => s.byKind[kind] }
}

/** A random connected graph: a random spanning tree plus `extra` random edges. */
function randomGraph(n: number, extra: number, seed: number): Graph {
  const rng = new Rng(seed)
  const g: Graph = range(1, n).map((): number[] => [])
  const add = (a: number, b: number) => {
    if (a === b || g[a - 1].includes(b)) return
    g[a - 1].push(b)
    g[b - 1].push(a)
  }
  for (let v = 2; v <= n; v++) add(v, 1 + Math.floor(rng.next() * (v - 1)))
  for (let x = 0; x < extra; x++) add(1 + Math.floor(rng.next() * n), 1 + Math.floor(rng.next() * n))
  return g
}

function topology(text: string, ids: number[]): Graph {
  return neighborsFor(parseTopology(text, "test"), ids, "test")
}

describe("echo rules", () => {
  test("the initiator sends ELECTION to every neighbour and waits T for their ACKs", () => {
    const n = node(1, [2, 3])
    const out: Action[] = []
    n.suspect(0, out)
    // the election deadline: n(T + 1) + 2T' = 34 for n = 6, plus up to half of it
    expect(show(out)).toEqual([
      "role electing 6",
      expect.stringMatching(new RegExp(`^set ${TIMER_DEADLINE} \\+(3[4-9]|4\\d|5[01])$`)),
      "send ELECTION 2,3 (broadcast)",
      `set ${T_ACK} +3`,
    ])
  })

  test("the first ELECTION of a wave: ACK, the sender becomes the parent, ELECTION to the others", () => {
    const n = node(2, [1, 3, 4])
    const out: Action[] = []
    n.receive(wave(Kind.ELECTION, 1, 2, 1), 1, out)
    expect(show(out).filter((s) => s.startsWith("send"))).toEqual(["send ACK 1", "send ELECTION 3,4 (broadcast)"])
    expect(n.treeParent()).toBe(1)
  })

  test("a leaf echoes its own id at once", () => {
    const n = node(2, [1])
    const out: Action[] = []
    n.receive(wave(Kind.ELECTION, 1, 2, 1), 1, out)
    // the ACK says the wave goes on here, and which ELECTION it answers (its epoch)
    expect(sendActions(out).map((a) => [Kind[a.frame.kind], a.to.join(","), a.frame.bid, a.frame.seq])).toEqual([
      ["ACK", "1", 1, 1],
      ["ECHO", "1", 2, 0],
    ])
  })

  test("an ELECTION from a non-parent neighbour counts as its reply; ECHOs carry the subtree's best", () => {
    const n = node(2, [1, 3, 4])
    n.receive(wave(Kind.ELECTION, 1, 2, 1), 1, [])
    n.receive(wave(Kind.ACK, 3, 2, 1), 2, [])
    n.receive(wave(Kind.ACK, 4, 2, 1), 2, [])
    expect(n.receive(wave(Kind.ELECTION, 3, 2, 1), 2, [])).toBe(true) // 3 reached by another path
    const out: Action[] = []
    n.receive(wave(Kind.ECHO, 4, 2, 1, 1, 5), 3, out)
    expect(sendActions(out).map((a) => [Kind[a.frame.kind], a.to.join(","), a.frame.bid])).toEqual([
      ["ECHO", "1", 5],
    ])
  })

  test("an ELECTION of our wave from a neighbour we sent ours: no ACK, it answers ours; from our parent again: ACK", () => {
    const n = node(2, [1, 3, 4])
    n.receive(wave(Kind.ELECTION, 1, 2, 1), 1, [])
    const crossed: Action[] = []
    n.receive(wave(Kind.ELECTION, 3, 2, 1, 1, 1), 2, crossed)
    expect(sends(crossed)).toEqual([])
    const last: Action[] = []
    n.receive(wave(Kind.ELECTION, 4, 2, 1, 1, 1), 2, last)
    // 3 and 4 answered and heard from: the ACK timer goes, and the ECHO to the parent
    expect(show(last)).toEqual([`cancel ${T_ACK}`, "send ECHO 1"])
    const again: Action[] = []
    n.receive(wave(Kind.ELECTION, 1, 2, 1, 1, 1), 3, again)
    expect(sends(again)).toEqual(["send ACK 1"])
  })

  test("an ACK from a newer wave under way draws the process into it, its sender the parent", () => {
    const n = node(2, [1, 3, 4])
    n.suspect(0, []) // wave 2 of epoch 1
    const out: Action[] = []
    // 3 answers our ELECTION from the wave of 4, epoch 1, which goes on: its ELECTION to us is
    // on its way or lost, and starting a newer wave would make every process flood again
    expect(n.receive(wave(Kind.ACK, 3, 2, 4, 1, 1), 1, out)).toBe(true)
    expect([n.currentWave(), n.treeParent(), n.epoch]).toEqual([4, 3, 1])
    expect(sendActions(out).map((a) => [Kind[a.frame.kind], a.to.join(","), a.frame.initiator, a.frame.bid])).toEqual([
      ["ACK", "3", 4, 1],
      ["ELECTION", "1,4", 4, 3],
    ])
  })

  test("an ACK from a newer wave that is over: a wave newer still", () => {
    const n = node(2, [1, 3, 4])
    n.suspect(0, [])
    const out: Action[] = []
    expect(n.receive(wave(Kind.ACK, 3, 2, 4, 1, 0), 1, out)).toBe(true)
    expect(n.currentWave()).toBe(2)
    expect(sendActions(out).map((a) => [Kind[a.frame.kind], a.to.join(","), a.frame.epoch, a.frame.initiator])).toEqual([
      ["ELECTION", "1,3,4", 2, 2],
    ])
  })

  test("a late ACK to the ELECTION of an older wave answers none of a newer one", () => {
    const n = node(2, [1, 3, 4])
    n.suspect(0, []) // ELECTION of epoch 1 to 1, 3 and 4
    n.receive(wave(Kind.ELECTION, 1, 2, 5, 2), 1, []) // joins 5's wave of epoch 2: ELECTION to 3 and 4
    expect(n.link.dsts).toEqual([3, 4])
    // 3, now in 5's wave too, answers our first ELECTION: we still wait for its answer to the second
    expect(n.receive(wave(Kind.ACK, 3, 2, 5, 2, 1, 1), 2, [])).toBe(false)
    expect(n.link.dsts).toEqual([3, 4])
    expect(n.receive(wave(Kind.ACK, 3, 2, 5, 2, 1, 2), 2, [])).toBe(true)
    expect(n.link.dsts).toEqual([4])
  })

  test("the ELECTION of a child, which a shared medium brings to its parent too, is not for it", () => {
    const n = node(1, [2, 3])
    n.suspect(0, [])
    const out: Action[] = []
    expect(n.receive(wave(Kind.ELECTION, 2, 1, 1, 1, 1), 1, out)).toBe(false)
    expect(out).toEqual([])
    const echo: Action[] = []
    n.receive(wave(Kind.ECHO, 2, 1, 1, 1, 6), 2, echo)
    expect(n.role).toBe(Role.Electing) // 3 not heard from yet
  })

  test("no ACK within T: the neighbour is taken as down and not waited for", () => {
    const n = node(2, [1, 3])
    n.receive(wave(Kind.ELECTION, 1, 2, 1), 1, [])
    const out: Action[] = []
    n.timer(T_ACK, 4, out)
    expect(sendActions(out).map((a) => Kind[a.frame.kind])).toEqual(["ECHO"])
  })

  test("a higher wave is joined, a lower one acknowledged and ignored", () => {
    const n = node(3, [1, 2, 4])
    n.receive(wave(Kind.ELECTION, 1, 3, 1), 1, [])
    const higher: Action[] = []
    n.receive(wave(Kind.ELECTION, 4, 3, 4), 1, higher)
    expect(n.currentWave()).toBe(4)
    expect(n.treeParent()).toBe(4)
    expect(show(higher).filter((s) => s.startsWith("send"))).toEqual(["send ACK 4", "send ELECTION 1,2 (broadcast)"])
    const lower: Action[] = []
    n.receive(wave(Kind.ELECTION, 2, 3, 2), 2, lower)
    expect(show(lower)).toEqual(["send ACK 2"])
    expect(n.currentWave()).toBe(4)
  })

  test("the initiator, having heard from all: COORDINATOR to its children only", () => {
    const n = node(1, [2, 3])
    n.suspect(0, [])
    n.receive(wave(Kind.ECHO, 2, 1, 1, 1, 6), 2, [])
    const out: Action[] = []
    n.receive(wave(Kind.ELECTION, 3, 1, 1), 2, out) // 3 joined through 2: not a child
    expect(show(out).filter((s) => s.startsWith("send"))).toEqual(["send COORDINATOR 2"])
    expect(n.coordinator).toBe(6)
    expect(n.role).toBe(Role.Follower)
  })
})

describe("echo closed forms", () => {
  const families: [string, (n: number) => Graph][] = [
    ["complete", (n) => topology("complete", range(1, n))],
    ["ring", (n) => topology("ring", range(1, n))],
    ["random sparse", (n) => randomGraph(n, Math.floor(n / 2), n)],
    ["random dense", (n) => randomGraph(n, 3 * n, 7 * n)],
  ]
  for (const [name, make] of families)
    test(`${name}, all alive, one initiator: 2|E| for the wave, n-1 for the result, ACK n-1`, () => {
      for (const n of [2, 3, 4, 5, 8, 13, 21, 34]) {
        const g = make(n)
        const m = edges(g)
        for (const i of [1, Math.ceil(n / 2), n]) {
          const { s, k } = run(range(1, n), g, [], [i === n ? 1 : i])
          expect(s.violations).toEqual([])
          expect(s.coordinator).toBe(n)
          expect(k(Kind.ELECTION) + k(Kind.ECHO)).toBe(2 * m)
          expect(k(Kind.ELECTION)).toBe(2 * m - (n - 1))
          expect(k(Kind.ECHO)).toBe(n - 1)
          expect(k(Kind.COORDINATOR)).toBe(n - 1)
          expect(k(Kind.ACK)).toBe(n - 1)
        }
      }
    })

  test("grids R x C: |E| = R(C-1) + C(R-1)", () => {
    for (const [r, c] of [[1, 2], [2, 2], [3, 3], [3, 5], [6, 6], [8, 12]]) {
      const n = r * c
      const g = topology(`grid:${r}x${c}`, range(1, n))
      expect(edges(g)).toBe(r * (c - 1) + c * (r - 1))
      const { s, k } = run(range(1, n), g, [], [1])
      expect(s.coordinator).toBe(n)
      expect(k(Kind.ELECTION) + k(Kind.ECHO)).toBe(2 * edges(g))
      expect(k(Kind.COORDINATOR)).toBe(n - 1)
    }
  })

  test("crashed processes are routed around: ELECTION 2E'-(m-1)+D, ACK m-1, ECHO and COORDINATOR m-1", () => {
    const cases: [string, number, number[]][] = [
      ["complete", 10, [10]],
      ["complete", 10, [10, 3, 7]],
      ["grid:4x4", 16, [16]],
      ["grid:4x4", 16, [6, 16]], // an inner node: the wave goes round it
      ["grid:3x5", 15, [8, 15]],
      ["ring", 9, [9]], // a ring with one node down is a path
    ]
    for (const [t, n, crashed] of cases) {
      const ids = range(1, n)
      const g = topology(t, ids)
      const live = ids.filter((id) => !crashed.includes(id))
      let inner = 0
      let toDead = 0
      for (const a of live)
        for (const b of g[a - 1]) {
          if (crashed.includes(b)) toDead++
          else inner++
        }
      const e2 = inner // counts each live edge twice: 2E'
      const mm = live.length
      const { s, k } = run(ids, g, crashed, [live[0]])
      expect(s.violations).toEqual([])
      expect(s.coordinator).toBe(Math.max(...live))
      expect(k(Kind.ELECTION)).toBe(e2 - (mm - 1) + toDead)
      expect(k(Kind.ACK)).toBe(mm - 1)
      expect(k(Kind.ECHO)).toBe(mm - 1)
      expect(k(Kind.COORDINATOR)).toBe(mm - 1)
    }
  })

  test("several initiators at once: one winner, the highest live; only the highest wave completes (COORDINATOR m-1)", () => {
    for (const [t, n] of [["complete", 8], ["ring", 9], ["grid:3x4", 12], ["grid:5x5", 25]] as [string, number][]) {
      const ids = range(1, n)
      const g = topology(t, ids)
      for (const detect of [range(1, n - 1), [1, n - 1], [2, 3]]) {
        const { s, k } = run(ids, g, [n], detect)
        expect(s.violations).toEqual([])
        expect(s.coordinator).toBe(n - 1)
        expect(k(Kind.COORDINATOR)).toBe(n - 2)
        expect(k(Kind.ECHO)).toBeGreaterThanOrEqual(n - 2)
      }
    }
  })

  test("random graphs, random crashes (live part connected), random initiators: always the highest live", () => {
    const rng = new Rng(42)
    let checked = 0
    for (let trial = 0; trial < 150; trial++) {
      const n = 3 + Math.floor(rng.next() * 20)
      const g = randomGraph(n, Math.floor(rng.next() * 2 * n), trial + 1)
      const crashed = range(1, n).filter(() => rng.next() < 0.25)
      const live = range(1, n).filter((id) => !crashed.includes(id))
      if (live.length === 0 || !connectedAmong(g, live)) continue
      const detect = live.filter(() => rng.next() < 0.3)
      if (detect.length === 0) detect.push(live[0])
      const { s } = run(range(1, n), g, crashed, detect)
      expect(s.violations).toEqual([])
      expect(s.coordinator).toBe(Math.max(...live))
      checked++
    }
    expect(checked).toBeGreaterThan(50)
  })

  test("a recovered process with a stale epoch learns the newer wave from the ACKs and elects again", () => {
    const ids = range(1, 9)
    const g = topology("grid:3x3", ids)
    const e = startEngine(E, ids, { neighbors: g })
    e.crash(9)
    e.crash(1)
    e.detect(5)
    e.settle(1e6)
    expect(summarize(e).coordinator).toBe(8)
    for (const id of [5, 2]) expect(e.node(id)!.epoch).toBe(1)
    e.resetStats()
    e.recover(9)
    expect(e.settle(1e6)).toBe(true)
    const s = summarize(e)
    expect(s.violations).toEqual([])
    expect(s.coordinator).toBe(9)
    e.resetStats()
    e.recover(1) // epoch 0: its first wave (1/1) is older than everybody's
    expect(e.settle(1e6)).toBe(true)
    const t = summarize(e)
    expect(t.violations).toEqual([])
    expect(t.coordinator).toBe(9)
  })
})

function connectedAmong(g: Graph, live: number[]): boolean {
  const seen = new Set([live[0]])
  const stack = [live[0]]
  while (stack.length) {
    const v = stack.pop()!
    for (const w of g[v - 1]) if (live.includes(w) && !seen.has(w)) (seen.add(w), stack.push(w))
  }
  return seen.size === live.length
}
