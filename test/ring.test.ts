// The shared ACK mechanism of the ring algorithms (ring-base.ts) and the ring algorithm of
// seeds 001 and 002: rules on single nodes and closed-form counts over a range of n.
// Formulas in docs/algorithms.md, next to this file's name. Ideal network, T = 3.
// Processes 1..n in ascending ring order unless said otherwise; the coordinator n is
// crashed; k = n - 1 live processes. "i notices": process i detects the failure at t=0.
import { describe, expect, test } from "vitest"
import { Algorithm, type Frame, Kind } from "../src/core/frame"
import { type Action, ActionType, Role, type SendAction } from "../src/core/contract"
import { RingBaseNode } from "../src/core/ring-base"
import { describe as show, frameFrom, range, runElection } from "./helpers"
import { counts, engine, node, sent, sizes, T_ACK } from "./ring-helpers"
import { summarize } from "../src/core/summary"

/** True when `n` believes `id` is down. */
function isDown(n: RingBaseNode, id: number): boolean {
  return n.down[n.ids.indexOf(id)] === true
}

describe("shared ring mechanism (ring-base.ts)", () => {
  test("every ring message is acknowledged to its sender", () => {
    const n = node(Algorithm.Ring, 3, [1, 2, 3, 4, 5])
    const out: Action[] = []
    n.receive(frameFrom(Algorithm.Ring, Kind.ELECTION, 2, 3, { initiator: 2, list: [2] }), 1, out)
    expect(sent(out)).toEqual(["ACK ->2", "ELECTION ->4 [2,3]"])
    expect(show(out)).toContain(`set ${T_ACK} +3`)
  })

  test("no ACK within T: the successor is marked down and the message goes to the next one", () => {
    const n = node(Algorithm.Ring, 3, [1, 2, 3, 4, 5]) as RingBaseNode
    n.receive(frameFrom(Algorithm.Ring, Kind.ELECTION, 2, 3, { initiator: 2, list: [2] }), 1, [])
    const out: Action[] = []
    n.timer(T_ACK, 4, out)
    expect(sent(out)).toEqual(["ELECTION ->5 [2,3]"])
    expect(isDown(n, 4)).toBe(true)
    // the next message skips 4 at once
    const next: Action[] = []
    n.receive(frameFrom(Algorithm.Ring, Kind.ELECTION, 2, 3, { initiator: 1, list: [1, 2] }), 5, next)
    expect(sent(next)).toEqual(["ACK ->2", "ELECTION ->5 [1,2,3]"])
  })

  test("an ACK clears the wait only when it names the message (seq, kind, initiator)", () => {
    const n = node(Algorithm.Ring, 3, [1, 2, 3, 4, 5]) as RingBaseNode
    const first: Action[] = []
    n.receive(frameFrom(Algorithm.Ring, Kind.ELECTION, 2, 3, { initiator: 2, list: [2] }), 1, first)
    const forwarded = (first.find((a) => a.type === ActionType.Send && a.frame.kind === Kind.ELECTION) as SendAction).frame
    expect(forwarded.seq).toBeGreaterThan(0)
    const ack = (patch: Partial<Frame>) =>
      frameFrom(Algorithm.Ring, Kind.ACK, 4, 3, { seq: forwarded.seq, bid: Kind.ELECTION, initiator: 2, ...patch })
    // another message's ACK (a late one, a duplicate) does not clear this wait
    expect(n.receive(ack({ seq: forwarded.seq === 1 ? 2 : 1 }), 2, [])).toBe(false)
    expect(n.receive(ack({ bid: Kind.COORDINATOR }), 2, [])).toBe(false)
    expect(n.receive(ack({ initiator: 1 }), 2, [])).toBe(false)
    expect(n.link.dsts.length).toBe(1)
    const out: Action[] = []
    expect(n.receive(ack({}), 2, out)).toBe(true)
    expect(show(out)).toEqual([`cancel ${T_ACK}`])
    expect(n.link.dsts.length).toBe(0)
    // a late ACK from someone we do not wait for is ignored
    expect(n.receive(frameFrom(Algorithm.Ring, Kind.ACK, 5, 3), 3, [])).toBe(false)
  })

  test("everything waiting on a dead successor is resent in the order first sent", () => {
    const n = node(Algorithm.Ring, 4, [1, 2, 3, 4, 5])
    const out: Action[] = []
    n.receive(frameFrom(Algorithm.Ring, Kind.ELECTION, 3, 4, { initiator: 2, list: [2, 3] }), 1, out)
    n.receive(frameFrom(Algorithm.Ring, Kind.ELECTION, 3, 4, { initiator: 1, list: [1, 2, 3] }), 2, out)
    expect(sent(out)).toEqual(["ACK ->3", "ELECTION ->5 [2,3,4]", "ACK ->3", "ELECTION ->5 [1,2,3,4]"])
    // the first wait runs out at 4: both messages go to 1, oldest first
    const again: Action[] = []
    n.timer(T_ACK, 4, again)
    expect(sent(again)).toEqual(["ELECTION ->1 [2,3,4]", "ELECTION ->1 [1,2,3,4]"])
    expect(show(again)).toContain(`set ${T_ACK} +3`)
  })

  test("a process alone: its message has gone round at once", () => {
    const n = node(Algorithm.Ring, 1, [1, 2, 3])
    n.suspect(0, [])
    const out: Action[] = []
    n.timer(T_ACK, 3, out) // 2 silent
    n.timer(T_ACK, 6, out) // 3 silent
    expect(n.role).toBe(Role.Coordinator)
    expect(n.coordinator).toBe(1)
  })
})


describe("ring rules (seeds 001, 002)", () => {
  test("the process that notices sends ELECTION [i] to its successor, even the coordinator it suspects: only a missing ACK skips it", () => {
    const n = node(Algorithm.Ring, 4, [1, 2, 3, 4, 5]) as RingBaseNode
    const out: Action[] = []
    n.suspect(0, out)
    expect(sent(out)).toEqual(["ELECTION ->5 [4]"])
    expect(n.role).toBe(Role.Electing)
    expect(isDown(n, 5)).toBe(false)
    const later: Action[] = []
    n.timer(T_ACK, 3, later)
    expect(sent(later)).toEqual(["ELECTION ->1 [4]"])
    expect(isDown(n, 5)).toBe(true)
  })

  test("a copy of a message already handled is acknowledged and dropped (network duplicates, resends)", () => {
    const n = node(Algorithm.Ring, 2, [1, 2, 3, 4, 5])
    const f = frameFrom(Algorithm.Ring, Kind.ELECTION, 1, 2, { initiator: 4, list: [4, 1], seq: 77 })
    const out: Action[] = []
    n.receive(f, 1, out)
    expect(sent(out)).toEqual(["ACK ->1", "ELECTION ->3 [4,1,2]"])
    const again: Action[] = []
    n.receive({ ...f }, 2, again)
    expect(sent(again)).toEqual(["ACK ->1"])
  })

  test("a lower process's heartbeat: a follower of a higher coordinator leaves it to that coordinator", () => {
    const n = node(Algorithm.Ring, 4, [1, 2, 3, 4, 5]) as RingBaseNode
    const out: Action[] = []
    n.receive(frameFrom(Algorithm.Ring, Kind.HEARTBEAT, 2, 4, { bid: 2 }), 1, out)
    expect(sent(out)).toEqual([])
    expect(n.coordinator).toBe(5)
  })


  test("a receiver appends its number and forwards", () => {
    const n = node(Algorithm.Ring, 2, [1, 2, 3, 4, 5])
    const out: Action[] = []
    n.receive(frameFrom(Algorithm.Ring, Kind.ELECTION, 1, 2, { initiator: 4, list: [4, 1] }), 1, out)
    expect(sent(out)).toEqual(["ACK ->1", "ELECTION ->3 [4,1,2]"])
  })

  test("back at the initiator: COORDINATOR (highest number, member list)", () => {
    const n = node(Algorithm.Ring, 2, [1, 2, 3, 4, 5])
    n.suspect(0, [])
    const out: Action[] = []
    n.receive(frameFrom(Algorithm.Ring, Kind.ELECTION, 1, 2, { initiator: 2, list: [2, 3, 4, 1] }), 5, out)
    expect(sent(out)).toEqual(["ACK ->1", "COORDINATOR ->3 [2,3,4,1] c=4"])
    expect(n.coordinator).toBe(4)
    // it is removed when it comes back
    const back: Action[] = []
    n.receive(frameFrom(Algorithm.Ring, Kind.COORDINATOR, 1, 2, { initiator: 2, bid: 4, list: [2, 3, 4, 1], epoch: 1 }), 9, back)
    expect(sent(back)).toEqual(["ACK ->1"])
  })

  test("a non-member is marked down by COORDINATOR; a duplicate COORDINATOR is not forwarded", () => {
    const n = node(Algorithm.Ring, 3, [1, 2, 3, 4, 5]) as RingBaseNode
    const c = frameFrom(Algorithm.Ring, Kind.COORDINATOR, 2, 3, { initiator: 1, bid: 4, list: [1, 2, 3, 4], epoch: 1 })
    const out: Action[] = []
    n.receive(c, 5, out)
    expect(sent(out)).toEqual(["ACK ->2", "COORDINATOR ->4 [1,2,3,4] c=4"])
    expect(isDown(n, 5)).toBe(true)
    const dup: Action[] = []
    n.receive({ ...c, initiator: 2 }, 6, dup)
    expect(sent(dup)).toEqual(["ACK ->2"])
  })

  test("the initiator crashed: its successor finds its own number in the list and converts", () => {
    const e = engine(Algorithm.Ring, range(1, 6))
    e.crash(6)
    e.detect(2)
    e.runUntil(1) // 2's ELECTION is on its way to 3
    e.crash(2)
    expect(e.settle(1e6)).toBe(true)
    const s = summarize(e)
    expect(s.coordinator).toBe(5)
    expect(s.violations).toEqual([])
  })
})


describe("ring closed forms", () => {
  test("one process i < n-1 notices: ELECTION n, COORDINATOR n-1, ACK 2(n-1), total 4n-3, time 2n", () => {
    for (const n of sizes)
      for (const i of [1, Math.max(1, n - 2)]) {
        const r = runElection(Algorithm.Ring, range(1, n), [n], [i])
        expect(r.violations).toEqual([])
        expect(r.coordinator).toBe(n - 1)
        expect(r.byKind[Kind.ELECTION]).toBe(n)
        expect(r.byKind[Kind.COORDINATOR]).toBe(n - 1)
        expect(r.byKind[Kind.ACK]).toBe(2 * (n - 1))
        expect(r.messages).toBe(4 * n - 3)
        expect(r.electionTime).toBe(2 * n)
      }
  })

  test("the coordinator's predecessor notices: it waits for the dead one's ACK like anybody, ELECTION n, total 4n-3, time 2n", () => {
    for (const n of sizes) {
      const r = runElection(Algorithm.Ring, range(1, n), [n], [n - 1])
      expect(r.byKind[Kind.ELECTION]).toBe(n)
      expect(r.byKind[Kind.COORDINATOR]).toBe(n - 1)
      expect(r.messages).toBe(4 * n - 3)
      expect(r.electionTime).toBe(2 * n)
    }
  })

  test("every live process notices: each ELECTION goes round, ELECTION k² + min(k, T), COORDINATOR k, ACK k² + k", () => {
    for (const n of sizes) {
      const k = n - 1
      const r = runElection(Algorithm.Ring, range(1, n), [n], range(1, k))
      expect(r.violations).toEqual([])
      // the ELECTIONs the dead coordinator's predecessor passes on before its ACK wait ends go to the dead one too
      expect(r.byKind[Kind.ELECTION]).toBe(k * k + Math.min(k, 3))
      expect(r.byKind[Kind.COORDINATOR]).toBe(k)
      expect(r.byKind[Kind.ACK]).toBe(k * k + k)
    }
  })

  test("a recovered process holds an election with everybody alive: ELECTION n, COORDINATOR n, ACK 2n", () => {
    for (const n of sizes)
      for (const r of [1, n]) {
        const e = engine(Algorithm.Ring, range(1, n))
        e.crash(r)
        e.resetStats()
        e.recover(r)
        expect(e.settle(1e6)).toBe(true)
        const c = counts(e)
        expect(c).toMatchObject({ ELECTION: n, COORDINATOR: n, ACK: 2 * n, coordinator: n, violations: [] })
      }
  })

  test("ring order is the order of the ids: 5,1,4,2,3 elects 4 when 5 is down", () => {
    const r = runElection(Algorithm.Ring, [5, 1, 4, 2, 3], [5], [3])
    expect(r.coordinator).toBe(4)
    // 3's successor is 5: one send to it, skipped when its ACK does not come
    expect(r.byKind[Kind.ELECTION]).toBe(5)
  })

  test("lists past 107 ids do not fit one frame: reported as a violation", () => {
    const r = runElection(Algorithm.Ring, range(1, 120), [120], [1])
    expect(r.coordinator).toBe(119)
    expect(r.violations.length).toBe(1)
    expect(r.violations[0]).toMatch(/messages exceed the 236-byte frame/)
  })
})
