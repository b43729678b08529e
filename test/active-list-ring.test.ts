// The ring algorithm with active lists of seed 000: rules (a), (b), (c), recovery by
// inquiry, and closed-form counts over a range of n.
// Formulas in docs/algorithms.md, next to this file's name. Ideal network, T = 3.
// Processes 1..n in ascending ring order unless said otherwise; the coordinator n is
// crashed; k = n - 1 live processes. "i notices": process i detects the failure at t=0.
import { describe, expect, test } from "vitest"
import { Algorithm, Kind } from "../src/core/frame"
import { type Action, Role } from "../src/core/contract"
import { frameFrom, range, runElection } from "./helpers"
import { counts, engine, node, sent, sizes } from "./ring-helpers"

describe("active-list-ring rules (seed 000)", () => {
  const A = Algorithm.ActiveListRing
  test("rule 1: a new active list {i}, elect(i) to the right", () => {
    const n = node(A, 2, [1, 2, 3, 4, 5])
    const out: Action[] = []
    n.suspect(0, out)
    expect(sent(out)).toEqual(["ELECTION ->3 i=2"])
  })

  test("rule a: the first elect seen: active list {i, j}, elect(i) then elect(j)", () => {
    const n = node(A, 3, [1, 2, 3, 4, 5])
    const out: Action[] = []
    n.receive(frameFrom(A, Kind.ELECTION, 2, 3, { initiator: 2 }), 1, out)
    expect(sent(out)).toEqual(["ACK ->2", "ELECTION ->4 i=3", "ELECTION ->4 i=2"])
    expect((n as any).activeList()).toEqual([3, 2])
  })

  test("rule b: a later elect(j): j joins the active list and the message goes on", () => {
    const n = node(A, 3, [1, 2, 3, 4, 5])
    n.receive(frameFrom(A, Kind.ELECTION, 2, 3, { initiator: 2 }), 1, [])
    const out: Action[] = []
    n.receive(frameFrom(A, Kind.ELECTION, 2, 3, { initiator: 1 }), 2, out)
    expect(sent(out)).toEqual(["ACK ->2", "ELECTION ->4 i=1"])
    expect((n as any).activeList()).toEqual([3, 2, 1])
  })

  test("rule c: its own elect back: the coordinator is the largest in the active list", () => {
    const n = node(A, 2, [1, 2, 3, 4, 5])
    n.suspect(0, [])
    // elect messages of the election 2 started (its epoch 1)
    for (const j of [4, 3, 1]) n.receive(frameFrom(A, Kind.ELECTION, 1, 2, { initiator: j, epoch: 1 }), 1, [])
    const out: Action[] = []
    n.receive(frameFrom(A, Kind.ELECTION, 1, 2, { initiator: 2, epoch: 1 }), 5, out)
    expect(sent(out)).toEqual(["ACK ->1"])
    expect(n.coordinator).toBe(4)
    expect(n.role).toBe(Role.Follower)
  })

  test("an elect of an older election dies; one of a newer election starts this one afresh", () => {
    const n = node(A, 2, [1, 2, 3, 4, 5])
    n.suspect(0, []) // election in epoch 1
    n.receive(frameFrom(A, Kind.ELECTION, 1, 2, { initiator: 4, epoch: 1 }), 1, [])
    const stale: Action[] = []
    n.receive(frameFrom(A, Kind.ELECTION, 1, 2, { initiator: 3, epoch: 0, seq: 9 }), 2, stale)
    expect(sent(stale)).toEqual(["ACK ->1"])
    const newer: Action[] = []
    n.receive(frameFrom(A, Kind.ELECTION, 1, 2, { initiator: 1, epoch: 2, seq: 10 }), 3, newer)
    // rule a in epoch 2: elect(2), then elect(1)
    expect(sent(newer)).toEqual(["ACK ->1", "ELECTION ->3 i=2", "ELECTION ->3 i=1"])
    expect((n as unknown as { activeList(): number[] }).activeList()).toEqual([2, 1])
  })

  test("recovery: INQUIRY round the ring; the coordinator answers with its number", () => {
    const c = node(A, 4, [1, 2, 3, 4])
    const out: Action[] = []
    c.receive(frameFrom(A, Kind.INQUIRY, 3, 4, { initiator: 1 }), 1, out)
    expect(sent(out)).toEqual(["ACK ->3", "COORDINATOR ->1 i=0 c=4"])
    const other = node(A, 2, [1, 2, 3, 4])
    const fwd: Action[] = []
    other.receive(frameFrom(A, Kind.INQUIRY, 1, 2, { initiator: 1 }), 1, fwd)
    expect(sent(fwd)).toEqual(["ACK ->1", "INQUIRY ->3 i=1"])
  })

  test("a recovered process that outranks the coordinator named in the reply starts an election", () => {
    const n = node(A, 4, [1, 2, 3, 4])
    n.crash(0, [])
    const out: Action[] = []
    n.recover(1, out)
    expect(sent(out)).toEqual(["INQUIRY ->1 i=4"])
    const reply: Action[] = []
    n.receive(frameFrom(A, Kind.COORDINATOR, 3, 4, { bid: 3 }), 5, reply)
    expect(sent(reply)).toEqual(["ELECTION ->1 i=4"])
  })
})


describe("active-list-ring closed forms", () => {
  test("one process i < n-1 notices: ELECTION k² + (n-i), ACK k²", () => {
    for (const n of sizes)
      for (let i = 1; i <= n - 2; i += Math.max(1, Math.floor(n / 4))) {
        const k = n - 1
        const r = runElection(Algorithm.ActiveListRing, range(1, n), [n], [i])
        expect(r.violations).toEqual([])
        expect(r.coordinator).toBe(n - 1)
        // each elect(x) goes round once; n-1 sends the n-i messages it holds to dead n once
        expect(r.byKind[Kind.ELECTION]).toBe(k * k + (n - i))
        expect(r.byKind[Kind.ACK]).toBe(k * k)
        expect(r.byKind[Kind.COORDINATOR]).toBe(0)
      }
  })

  // k² ELECTION delivered, plus the ones the dead coordinator's predecessor sends it before
  // its first ACK wait runs out (T = 3): 1 when it alone notices, min(k, T) when all do.
  test("the coordinator's predecessor notices, or every live process does: ELECTION k² + sends to the dead one, ACK k²", () => {
    for (const n of sizes) {
      const k = n - 1
      for (const [detect, toDead] of [[[n - 1], 1], [range(1, k), Math.min(k, 3)]] as [number[], number][]) {
        const r = runElection(Algorithm.ActiveListRing, range(1, n), [n], detect)
        expect(r.violations).toEqual([])
        expect(r.byKind[Kind.ELECTION]).toBe(k * k + toDead)
        expect(r.byKind[Kind.ACK]).toBe(k * k)
      }
    }
  })

  test("recovery of r below the live coordinator n: INQUIRY n-r, ACK n-r, COORDINATOR 1", () => {
    for (const n of sizes)
      for (const r of [1, n - 1]) {
        const e = engine(Algorithm.ActiveListRing, range(1, n))
        e.crash(r)
        e.resetStats()
        e.recover(r)
        expect(e.settle(1e6)).toBe(true)
        expect(counts(e)).toMatchObject({ INQUIRY: n - r, ACK: n - r, COORDINATOR: 1, total: 2 * (n - r) + 1, coordinator: n })
      }
  })

  test("the recovered highest process takes over: inquiry, then an election of its own", () => {
    for (const n of [4, 7, 12]) {
      const e = engine(Algorithm.ActiveListRing, range(1, n))
      e.crash(n)
      e.detect(1)
      e.settle(1e6)
      e.resetStats()
      e.recover(n)
      expect(e.settle(1e6)).toBe(true)
      const c = counts(e)
      expect(c.coordinator).toBe(n)
      expect(c.violations).toEqual([])
      expect(c.INQUIRY).toBe(n - 1)
      expect(c.ELECTION).toBe(n * n)
    }
  })
})
