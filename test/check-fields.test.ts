// The check names the core's fields through typed accessors (sim/check/fields.ts).
import { describe, expect, test } from "vitest"
import { createNode } from "../src/core/algorithms"
import { Algorithm } from "../src/core/frame"
import type { RingBaseNode } from "../src/core/ring-base"
import { idealTiming } from "../src/core/timing"
import { fieldOf, fieldsOf } from "../sim/check/fields"

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
    const node = createNode(Algorithm.Ring, { id: 1, ids: [1, 2, 3], group: 1, timing: idealTiming() }) as RingBaseNode
    const names = fieldsOf<RingBaseNode>((r) => [r.lastSeq, r.link, r.seen, r.downAt, r.claimedUntil, r.restarts])
    for (const name of names) expect(Object.keys(node)).toContain(name)
  })
})
