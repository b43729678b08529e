// The ring election with bids of seed 003: bids, concurrent elections, lost notices,
// voter timeouts, and the literature's figures for every process initiating at once.
// Formulas in docs/algorithms.md, next to this file's name. Ideal network, T = 3.
// Processes 1..n in ascending ring order unless said otherwise; the coordinator n is
// crashed; k = n - 1 live processes. "i notices": process i detects the failure at t=0.
import { describe, expect, test } from "vitest"
import { bidId, BidRingNode, makeBid } from "../src/core/bid-ring"
import { Algorithm, Kind } from "../src/core/frame"
import { type Action } from "../src/core/contract"
import { describe as show, frameFrom, range, runElection } from "./helpers"
import { counts, engine, node, sent, sizes, T_REINITIATE, T_RESULT } from "./ring-helpers"

describe("bid-ring rules (seed 003)", () => {
  const B = Algorithm.BidRing
  test("bids: suitability prefix, then the id", () => {
    expect(makeBid(5, 1)).toBe(5 * 65536 + 1)
    expect(bidId(makeBid(65535, 65534))).toBe(65534)
    const n = node(B, 2, [1, 2, 3], 7) as BidRingNode
    expect(n.rank()).toBe(7 * 65536 + 2)
  })

  test("the initiator sends its notice with its bid, and waits R = n(T+1) for it to come back", () => {
    const n = node(B, 1, [1, 2, 3, 4])
    const out: Action[] = []
    n.suspect(0, out)
    expect(sent(out)).toEqual(["ELECTION ->2 i=1 bid=1"])
    expect(show(out)).toContain(`set ${T_REINITIATE} +16`)
  })

  test("a losing bid in the message is replaced; a winning one goes on as it is", () => {
    const n = node(B, 3, [1, 2, 3, 4, 5])
    const lose: Action[] = []
    n.receive(frameFrom(B, Kind.ELECTION, 2, 3, { initiator: 1, bid: 2 }), 1, lose)
    expect(sent(lose)).toEqual(["ACK ->2", "ELECTION ->4 i=1 bid=3"])
    const m = node(B, 3, [1, 2, 3, 4, 5])
    const win: Action[] = []
    m.receive(frameFrom(B, Kind.ELECTION, 2, 3, { initiator: 1, bid: makeBid(1, 2) }), 1, win)
    expect(sent(win)).toEqual(["ACK ->2", `ELECTION ->4 i=1 bid=${makeBid(1, 2)}`])
  })

  test("a station waiting for a larger initiator's result discards a smaller initiator's notice", () => {
    const n = node(B, 3, [1, 2, 3, 4, 5])
    n.receive(frameFrom(B, Kind.ELECTION, 2, 3, { initiator: 4, bid: 4 }), 1, [])
    const out: Action[] = []
    n.receive(frameFrom(B, Kind.ELECTION, 2, 3, { initiator: 2, bid: 2 }), 2, out)
    expect(sent(out)).toEqual(["ACK ->2"])
    expect([(n as BidRingNode).waiting, (n as BidRingNode).waitingFor]).toEqual([true, 4])
  })

  test("a larger initiator's notice cancels the station's own election and is forwarded", () => {
    const n = node(B, 3, [1, 2, 3, 4, 5])
    n.suspect(0, [])
    const out: Action[] = []
    n.receive(frameFrom(B, Kind.ELECTION, 2, 3, { initiator: 4, bid: 4 }), 1, out)
    expect(sent(out)).toEqual(["ACK ->2", "ELECTION ->4 i=4 bid=4"])
    expect(show(out)).toContain(`cancel ${T_REINITIATE}`)
    // our own notice, should it come back, is dropped
    const back: Action[] = []
    n.receive(frameFrom(B, Kind.ELECTION, 2, 3, { initiator: 3, bid: 3 }), 6, back)
    expect(sent(back)).toEqual(["ACK ->2"])
  })

  test("the notice back at its initiator: COORDINATOR with the winning bid, once round", () => {
    const n = node(B, 2, [1, 2, 3, 4, 5])
    n.suspect(0, [])
    const out: Action[] = []
    n.receive(frameFrom(B, Kind.ELECTION, 1, 2, { initiator: 2, bid: 4 }), 5, out)
    expect(sent(out)).toEqual(["ACK ->1", "COORDINATOR ->3 i=2 bid=4 c=4"])
    expect(n.coordinator).toBe(4)
  })

  test("a lost notice: the initiator re-initiates after R", () => {
    const n = node(B, 2, [1, 2, 3, 4, 5])
    n.suspect(0, [])
    n.receive(frameFrom(B, Kind.ACK, 3, 2), 1, [])
    const out: Action[] = []
    n.timer(T_REINITIATE, 20, out)
    expect(sent(out)).toEqual(["ELECTION ->3 i=2 bid=2"])
  })

  test("a voter that hears no result within 2R starts its own election", () => {
    const n = node(B, 3, [1, 2, 3, 4, 5])
    const out: Action[] = []
    n.receive(frameFrom(B, Kind.ELECTION, 2, 3, { initiator: 1, bid: 2 }), 1, out)
    expect(show(out)).toContain(`set ${T_RESULT} +40`)
    const later: Action[] = []
    n.timer(T_RESULT, 41, later)
    expect(sent(later)).toEqual(["ELECTION ->4 i=3 bid=3"])
  })
})


describe("bid-ring closed forms", () => {
  /** k live processes in ring order `order` (the crashed old coordinator after them), all noticing. */
  function everyoneInitiates(order: number[]) {
    const top = Math.max(...order) + 1
    const e = engine(Algorithm.BidRing, [...order, top])
    e.crash(top)
    for (const id of order) e.detect(id)
    expect(e.settle(1e6)).toBe(true)
    return counts(e)
  }

  // k, the dead coordinator's predecessor, sends its notice to it first and skips it only
  // when no ACK comes (a suspicion marks nobody down): one ELECTION more than 2k-1.
  test("every process initiating, ids increasing along the ring: 2k ELECTION, the winner told once (k COORDINATOR)", () => {
    for (const k of [2, 3, 4, 5, 8, 13, 20, 50, 100]) {
      const c = everyoneInitiates(range(1, k))
      expect(c.violations).toEqual([])
      expect(c.coordinator).toBe(k)
      expect(c.ELECTION).toBe(2 * k)
      expect(c.COORDINATOR).toBe(k)
      expect(c.ACK).toBe(3 * k - 1)
    }
  })

  // Every notice that reaches the dead coordinator's predecessor before its first ACK wait
  // runs out (T = 3 time units) is sent to the dead one too: min(k, T) more.
  test("every process initiating, ids decreasing along the ring: k(k+1)/2 + min(k, T) ELECTION, k COORDINATOR", () => {
    for (const k of [2, 3, 4, 5, 8, 13, 20, 50, 100]) {
      const c = everyoneInitiates(range(1, k).reverse())
      expect(c.violations).toEqual([])
      expect(c.coordinator).toBe(k)
      expect(c.ELECTION).toBe((k * (k + 1)) / 2 + Math.min(k, 3))
      expect(c.COORDINATOR).toBe(k)
      expect(c.ACK).toBe((k * (k + 1)) / 2 + k)
    }
  })

  test("one initiator: like ring, ELECTION n (one send to the dead coordinator), COORDINATOR n-1, ACK 2(n-1)", () => {
    for (const n of sizes) {
      const r = runElection(Algorithm.BidRing, range(1, n), [n], [1])
      expect(r.violations).toEqual([])
      expect(r.byKind[Kind.ELECTION]).toBe(n)
      expect(r.byKind[Kind.COORDINATOR]).toBe(n - 1)
      expect(r.byKind[Kind.ACK]).toBe(2 * (n - 1))
      // the coordinator's predecessor waits for its ACK like anybody: the same count
      const best = runElection(Algorithm.BidRing, range(1, n), [n], [n - 1])
      expect(best.byKind[Kind.ELECTION]).toBe(n)
    }
  })

  test("suitability decides, ids break ties", () => {
    const e = engine(Algorithm.BidRing, [1, 2, 3, 4, 5, 6], [0, 9, 9, 0, 3, 0])
    e.crash(6)
    e.detect(1)
    e.settle(1e6)
    const c = counts(e)
    expect(c.coordinator).toBe(3)
    expect(c.violations).toEqual([])
  })

  test("a notice lost with the process that held it: the initiator re-initiates and the election completes", () => {
    const e = engine(Algorithm.BidRing, range(1, 6))
    e.crash(6)
    e.detect(1)
    e.scheduleCrash(3, 4) // before the notice from 3 arrives
    e.scheduleCrash(4, 3) // before 3 gives up on 4: the notice is gone
    expect(e.settle(1e6)).toBe(true)
    const c = counts(e)
    expect(c.coordinator).toBe(5)
    expect(c.violations).toEqual([])
  })

  test("the initiator crashes after its notice left: the voters' timeouts start a new election", () => {
    const e = engine(Algorithm.BidRing, range(1, 6))
    e.crash(6)
    e.detect(1)
    e.scheduleCrash(2, 1)
    expect(e.settle(1e6)).toBe(true)
    const c = counts(e)
    expect(c.coordinator).toBe(5)
    expect(c.violations).toEqual([])
  })
})
