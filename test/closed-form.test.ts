// Message counts with a closed form, over a range of cluster sizes and initiators.
// Processes 1..n, the coordinator n crashed, one process i notices (ideal network).
//   bully:           ELECTION (n-i) + (n-i-1)(n-i)/2, OK (n-i-1)(n-i)/2, COORDINATOR n-2
//                    total (n-i)^2 + n - 2; with i = 1, n^2 - n - 1 (quadratic)
//   improved bully:  i < n-1: ELECTION 1, OK 1, COORDINATOR n-2 = n (the paper's 2 + (n-2))
//                    i = n-1: COORDINATOR n-2 only (best case)
//                    k top processes crashed, i < n-k: ELECTION k, OK 1, COORDINATOR n-k-1 = n
//   improved bully recovery of process 1 (coordinator alive): 2 + (n-1)
import { describe, expect, test } from "vitest"
import { Algorithm, Kind } from "../src/core/frame"
import { range, runElection, startEngine } from "./helpers"
import { summarize } from "../src/core/summary"

const sizes = [3, 4, 5, 8, 13, 21, 34, 50]

describe("bully closed forms", () => {
  for (const n of sizes)
    test(`n=${n}, every initiator`, () => {
      for (let i = 1; i <= n - 1; i++) {
        const r = runElection(Algorithm.Bully, range(1, n), [n], [i])
        const m = n - i
        expect(r.coordinator).toBe(n - 1)
        expect(r.violations).toEqual([])
        expect(r.byKind[Kind.ELECTION]).toBe(m + ((m - 1) * m) / 2)
        expect(r.byKind[Kind.OK]).toBe(((m - 1) * m) / 2)
        expect(r.byKind[Kind.COORDINATOR]).toBe(n - 2)
        expect(r.messages).toBe(m * m + n - 2)
      }
    })

  test("lowest initiator is quadratic: n^2 - n - 1", () => {
    for (const n of [10, 100, 300]) {
      const r = runElection(Algorithm.Bully, range(1, n), [n], [1])
      expect(r.messages).toBe(n * n - n - 1)
    }
  })

  test("election time in the ideal network (T = 3): T + 2, or T + 1 when the highest live process notices", () => {
    for (const n of [4, 10, 40])
      for (const i of [1, n - 2, n - 1])
        expect(runElection(Algorithm.Bully, range(1, n), [n], [i]).electionTime).toBe(i === n - 1 ? 4 : 5)
  })
})

describe("improved bully closed forms", () => {
  for (const n of sizes)
    test(`n=${n}, every initiator`, () => {
      for (let i = 1; i <= n - 1; i++) {
        const r = runElection(Algorithm.ImprovedBully, range(1, n), [n], [i])
        expect(r.coordinator).toBe(n - 1)
        expect(r.violations).toEqual([])
        if (i === n - 1) {
          expect(r.messages).toBe(n - 2)
          expect(r.byKind[Kind.COORDINATOR]).toBe(n - 2)
        } else {
          expect(r.byKind[Kind.ELECTION]).toBe(1)
          expect(r.byKind[Kind.OK]).toBe(1)
          expect(r.byKind[Kind.COORDINATOR]).toBe(n - 2)
          expect(r.messages).toBe(2 + (n - 2))
        }
      }
    })

  test("k crashed at the top: the cascade costs one ELECTION per crashed candidate", () => {
    for (const n of [6, 10, 30])
      for (let k = 1; k <= n - 2; k++) {
        const crashed = range(n - k + 1, n)
        const r = runElection(Algorithm.ImprovedBully, range(1, n), crashed, [1])
        expect(r.coordinator).toBe(n - k)
        if (n - k === 1) continue
        expect(r.byKind[Kind.ELECTION]).toBe(k)
        expect(r.byKind[Kind.OK]).toBe(1)
        expect(r.byKind[Kind.COORDINATOR]).toBe(n - k - 1)
        expect(r.messages).toBe(n)
      }
  })

  test("recovery of the lowest process costs 2 + (n-1)", () => {
    for (const n of [3, 10, 64]) {
      const engine = startEngine(Algorithm.ImprovedBully, range(1, n))
      engine.crash(1)
      engine.resetStats()
      engine.recover(1)
      expect(engine.settle(1e6)).toBe(true)
      const s = summarize(engine)
      expect(s.byKind[Kind.REQUEST]).toBe(1)
      expect(s.byKind[Kind.TABLE]).toBe(1)
      expect(s.byKind[Kind.UPDATE]).toBe(n - 1)
      expect(s.messages).toBe(2 + (n - 1))
      expect(s.coordinator).toBe(n)
    }
  })

  test("improved bully beats bully from the lowest initiator by a growing factor", () => {
    const n = 100
    const bully = runElection(Algorithm.Bully, range(1, n), [n], [1]).messages
    const improved = runElection(Algorithm.ImprovedBully, range(1, n), [n], [1]).messages
    expect(bully).toBe(9899)
    expect(improved).toBe(100)
  })
})
