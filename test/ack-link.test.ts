// The acknowledged link (src/core/ack-link.ts) that the ring family and echo own.
import { describe, expect, test } from "vitest"
import { AckLink, adaptWait, removeMessages } from "../src/core/ack-link"
import { Algorithm, Kind, makeFrame } from "../src/core/frame"
import { type Action, ActionType } from "../src/core/contract"
import { createNode } from "../src/core/algorithms"
import type { RingBaseNode } from "../src/core/ring-base"

const frame = (dst: number, seq: number) => {
  const f = makeFrame(Kind.ELECTION, Algorithm.Ring, 1, 1, 9, dst)
  f.seq = seq
  return f
}
const timers = (out: Action[]) =>
  out.map((a) => (a.type === ActionType.SetTimer ? `set ${a.delay}` : a.type === ActionType.CancelTimer ? "cancel" : "other"))

describe("AckLink", () => {
  test("the first waiting message arms the timer; the last ACK cancels it", () => {
    const link = new AckLink(2, 300, 0)
    const out: Action[] = []
    link.expect(4, 11, frame(4, 11), 1000, out)
    link.expect(4, 12, frame(4, 12), 1100, out)
    expect(timers(out)).toEqual(["set 300"])
    out.length = 0
    // an ACK must name the message: a wrong tag or another sender acknowledges nothing
    expect(link.acknowledge(4, 13)).toBe(-1)
    expect(link.acknowledge(5, 11)).toBe(-1)
    // the oldest acknowledged: re-armed, the timer moves to the next one's deadline (1400)
    expect(link.acknowledge(4, 11)).toBe(0)
    link.rearm(1150, out)
    expect(timers(out)).toEqual(["set 250"])
    out.length = 0
    expect(link.acknowledge(4, 12)).toBe(0)
    link.rearm(1200, out)
    expect(timers(out)).toEqual(["cancel"])
    expect(link.dsts.length).toBe(0)
    // late: nothing waits for it
    expect(link.acknowledge(4, 12)).toBe(-1)
  })

  test("messages sent together (echo's multicast): one timer; tag 0 takes any ACK from a destination", () => {
    const link = new AckLink(2, 3, 0)
    const out: Action[] = []
    for (const dst of [1, 2, 3]) link.expect(dst, 0, null, 10, out)
    expect(timers(out)).toEqual(["set 3"])
    expect(link.acknowledge(2, 0)).toBe(1)
    expect(link.acknowledge(2, 0)).toBe(-1)
    expect(link.dsts.length).toBe(2)
    expect([link.dsts[0], link.dsts[1]]).toEqual([1, 3])
  })

  test("a missing ACK: every message waiting on that destination comes back, oldest first", () => {
    const link = new AckLink(2, 300, 0)
    const out: Action[] = []
    link.expect(4, 1, frame(4, 1), 0, out)
    link.expect(5, 2, frame(5, 2), 10, out)
    link.expect(4, 3, frame(4, 3), 20, out)
    const again = removeMessages(link, -1, 4)
    expect(again.map((f) => f.seq)).toEqual([1, 3])
    expect(link.dsts.length).toBe(1)
    expect(link.dsts[0]).toBe(5)
    out.length = 0
    // a deadline already reached fires as soon as the clock moves, never at once
    link.rearm(400, out)
    expect(timers(out)).toEqual(["set 0.3"])
  })

  test("the ring's wait under load: 4 times longer after a late ACK, up to its longest (here 8 T); halved after a timely one or none", () => {
    const link = new AckLink(2, 40, 320)
    const out: Action[] = []
    const waits: number[] = []
    for (const late of [true, true, false, true, true, false, false, false, false]) {
      adaptWait(link, late, 0)
      waits.push(link.wait)
    }
    // 4 T, then 16 T would pass the longest: it stays; from 2 T, 8 T; never below T
    expect(waits).toEqual([160, 160, 80, 320, 320, 160, 80, 40, 40])
    adaptWait(link, true, 900)
    link.expect(4, 1, frame(4, 1), 1000, out)
    expect(timers(out)).toEqual(["set 160"])
    expect(link.deadlines).toEqual([1160])
  })

  test("a grown wait falls back to T once no late ACK has come for 8 T", () => {
    const link = new AckLink(2, 40, 320)
    const out: Action[] = []
    adaptWait(link, true, 1000)
    adaptWait(link, false, 1010)
    adaptWait(link, true, 1020) // 8 T from here: 1340
    expect(link.wait).toBe(320)
    link.expect(4, 1, frame(4, 1), 1339, out)
    expect(link.deadlines).toEqual([1339 + 320])
    link.clear()
    link.expect(4, 2, frame(4, 2), 1340, out)
    expect(link.deadlines).toEqual([1340 + 40])
    expect(link.wait).toBe(40)
  })

  test("the ring family's longest wait is 3 F: 16 T at the bus timing (T 40, F 250), 8 T at WiFi's (T 300, F 800)", () => {
    const cases: [number, number, number[]][] = [
      [40, 250, [160, 640, 320, 320, 320]],
      [300, 800, [1200, 1200, 600, 2400, 2400]],
    ]
    for (const [T, F, expected] of cases) {
      const timing = { answerTimeout: T, coordinatorTimeout: 2 * T, heartbeatInterval: F / 4, failureTimeout: F }
      for (const algorithm of [Algorithm.Ring, Algorithm.ActiveListRing, Algorithm.BidRing]) {
        const link = (createNode(algorithm, { id: 1, ids: [1, 2, 3], group: 1, timing }) as RingBaseNode).link
        const waits: number[] = []
        for (const late of [true, true, false, true, true]) {
          adaptWait(link, late, 0)
          waits.push(link.wait)
        }
        expect(waits, `${algorithm}, T ${T}`).toEqual(expected)
      }
    }
  })
})
