// The check names the core's fields through typed accessors (sim/check/fields.ts), an
// algorithm's own through the hints its module declares (sim/check/hints.ts).
import { readdirSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, test } from "vitest"
import { AckLink } from "../src/core/ack-link"
import { ALGORITHMS, checkHintsOf, createNode } from "../src/core/algorithms"
import type { AlgorithmDescriptor, CheckHints } from "../src/core/descriptor"
import { Algorithm } from "../src/core/frame"
import type { RingBaseNode } from "../src/core/ring-base"
import { idealTiming } from "../src/core/timing"
import { fieldOf, fieldsOf } from "../sim/check/fields"
import { fieldHints, hintsOf } from "../sim/check/hints"

const config = { id: 1, ids: [1, 2, 3], group: 1, timing: idealTiming() }

describe("field names from typed accessors", () => {
  test("the fields an accessor reads, in its order", () => {
    expect(fieldsOf<{ a: number; b: number; c: number }>((o) => [o.c, o.a])).toEqual(["c", "a"])
    expect(fieldOf<{ a: number }>((o) => o.a)).toBe("a")
  })

  test("an accessor that reads no field, or two, is refused", () => {
    expect(() => fieldOf<{ a: number; b: number }>(() => 0)).toThrow(/read 0/)
    expect(() => fieldOf<{ a: number; b: number }>((o) => o.a + o.b)).toThrow(/read 2/)
  })

  test("the names are the keys a real node holds", () => {
    const node = createNode(Algorithm.Ring, config) as RingBaseNode
    const names = fieldsOf<RingBaseNode>((r) => [r.lastSeq, r.link, r.seen, r.downAt, r.claimedUntil, r.restarts])
    for (const name of names) expect(Object.keys(node)).toContain(name)
  })
})

describe("each algorithm's hints to the check", () => {
  test.each(ALGORITHMS.map((d) => [d.name, d] as const))("%s: every hinted field is a key its node holds", (_, d) => {
    const node = createNode(d.algorithm, config)
    const h = hintsOf(d.algorithm)
    const hinted = [...h.skipped, ...h.shared, ...h.instants, ...Object.keys(h.capped), ...h.downSince, ...h.aged, ...h.seqs]
    for (const name of hinted) expect(Object.keys(node), name).toContain(name)
    // the hints the check calls on a node read what it expects
    if (h.seqsOf) {
      const [lastSeq, link, seen] = h.seqsOf(node)
      expect([typeof lastSeq, link instanceof AckLink, Array.isArray(seen)]).toEqual(["number", true, true])
    }
    if (h.downSinceOf) {
      const [since, down] = h.downSinceOf(node)
      expect([since.length, down.length]).toEqual([config.ids.length, config.ids.length])
      expect(h.downCap!(node)).toBeGreaterThan(0)
    }
    if (h.aged.length > 0) expect(h.ageCap!(node)).toBeGreaterThan(0)
  })

  test("what each algorithm hints (the counts of the check rest on them)", () => {
    const ring = { skipped: ["ringPos"], downSince: ["downAt", "down"], seqs: ["lastSeq", "link", "seen"] }
    const hinted = (a: Algorithm) => {
      const h = hintsOf(a)
      return Object.fromEntries(Object.entries(h).filter(([, v]) => Array.isArray(v) && v.length > 0))
    }
    expect(hinted(Algorithm.Bully)).toEqual({})
    expect(hinted(Algorithm.ImprovedBully)).toEqual({ instants: ["wonAt"] })
    expect(hinted(Algorithm.Ring)).toEqual(ring)
    expect(hinted(Algorithm.ActiveListRing)).toEqual(ring)
    expect(hinted(Algorithm.BidRing)).toEqual({ ...ring, skipped: ["ringPos", "suitability", "bid", "waitingSince"] })
    expect(hinted(Algorithm.Echo)).toEqual({ skipped: ["neighbors"], shared: ["neighbors"], aged: ["waveEnteredAt"] })
  })

  test("every algorithm module's hints are the ones the registry gives", async () => {
    const dir = join(import.meta.dirname, "../src/core")
    let modules = 0
    for (const file of readdirSync(dir).filter((f) => f.endsWith(".ts"))) {
      const m = (await import(join(dir, file))) as Record<string, unknown>
      const descriptor = Object.values(m).find((v): v is AlgorithmDescriptor => typeof v === "object" && v !== null && "electionBound" in v && "create" in v)
      const own = Object.entries(m).find(([k, v]) => k.endsWith("CheckHints") && typeof v === "function")
      if (!descriptor || !own) continue
      modules++
      // the names (the hints the check calls are new closures each time)
      const named = (h: CheckHints) => JSON.stringify(fieldHints(h))
      expect(named(checkHintsOf(descriptor.algorithm)), file).toBe(named((own[1] as () => CheckHints)()))
    }
    expect(modules).toBe(5)
  })

  test("a capped hint gives each field then its bound; malformed hints are refused", () => {
    type Counter = { tries: number; rounds: number }
    expect(fieldHints({ capped: (n) => [(n as unknown as Counter).tries, 3, (n as unknown as Counter).rounds, 1] }).capped).toEqual({ tries: 3, rounds: 1 })
    expect(() => fieldHints({ capped: (n) => [(n as unknown as Counter).tries] })).toThrow(/each field then its cap/)
    expect(() => fieldHints({ downSince: (n) => [(n as RingBaseNode).downAt, (n as RingBaseNode).down] })).toThrow(/needs downCap/)
  })
})
