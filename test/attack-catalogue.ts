// The attack catalogue run against every algorithm at a given cluster size, shared by
// test/attacks.test.ts (3 boards) and test/ci/attacks-12.test.ts (12, the firmware's largest
// cluster). Each attack runs twice from the same seed, without and with the attacker; the
// property: no node names a coordinator or takes a role the run without the attacker did
// not, and all end naming the same coordinator, the highest id (for denial attacks: within
// the attack's recovery bound); and what an attack checks itself (ctx.problems) holds in both runs.
import { afterEach, beforeEach, describe, expect, test, vi } from "vitest"
import { Algorithm } from "../src/core/frame"
import { algorithmName } from "../src/core/algorithms"
import { Role, roleName } from "../src/core/contract"
import { type Attack, type AttackContext, catalogue } from "../sim/attacks/attacks"
import { ATTACK_KEY, Cluster, type WireFrame } from "../sim/attacks/cluster"

export const ALGORITHMS = [Algorithm.Bully, Algorithm.ImprovedBully, Algorithm.Ring, Algorithm.ActiveListRing, Algorithm.BidRing, Algorithm.Echo]
/** Boot and first election settle well within this (answer timeout 200 ms, heartbeats 250 ms). */
export const SETTLE_MS = 3000

/** Fake timers for every test of the calling file. */
export function useFakeTimers() {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval", "Date"] })
  })
  afterEach(() => {
    vi.useRealTimers()
  })
}

export const advance = async (ms: number) => {
  await vi.advanceTimersByTimeAsync(ms)
}

export function idsUpTo(n: number): number[] {
  return Array.from({ length: n }, (_, i) => i + 1)
}

export async function settled(algorithm: Algorithm, seed: number, ids = idsUpTo(3), detector: Detector = "fixed"): Promise<Cluster> {
  const c = new Cluster({ algorithm, key: ATTACK_KEY, seed, ids, detector })
  await c.bootAll()
  await advance(SETTLE_MS)
  return c
}

interface Outcome {
  /** What the attack's own measurements found wrong. */
  problems: string[]
  /** What it measured (printed beside the control run's). */
  notes: string[]
  /** Per node, the "role:coordinator" pairs it reported after the cluster settled. */
  named: Set<string>[]
  final: number[]
  misconfigured: boolean[]
}

type Detector = "fixed" | "adaptive"

/**
 * Every attack of the catalogue against every algorithm, on `ids`, with `detector` (the
 * adaptive one brings the early probe of a late coordinator: the host drivers install it).
 */
export function attackSuite(ids: number[], detector: Detector = "fixed") {
  const previous = new Map<Algorithm, WireFrame[]>()
  const previousSession = async (algorithm: Algorithm): Promise<WireFrame[]> => {
    if (!previous.has(algorithm)) previous.set(algorithm, (await settled(algorithm, 99, ids, detector)).recorded.slice())
    return previous.get(algorithm)!
  }
  const top = ids[ids.length - 1]
  const everyone = (x: number | boolean) => ids.map(() => x)

  async function outcome(algorithm: Algorithm, attack: Attack, attacking: boolean): Promise<Outcome> {
    const c = await settled(algorithm, 1, ids, detector)
    expect(c.coordinators()).toEqual(everyone(top))
    c.watch()
    const ctx: AttackContext = { cluster: c, advance, previousSession: await previousSession(algorithm), problems: [], notes: [] }
    await attack.run(ctx, attacking)
    await advance(attack.recoverMs ?? 0)
    return {
      problems: ctx.problems!,
      notes: ctx.notes!,
      named: c.boards.map((b) => new Set(b.reports.map((r) => `${roleName(r.role)}:${r.coordinator}`))),
      final: c.coordinators(),
      misconfigured: c.boards.map((b) => b.driver.role() === Role.Misconfigured),
    }
  }

  describe.each(ALGORITHMS.map((a) => [algorithmName(a), a] as const))(`%s, ${ids.length} boards${detector === "fixed" ? "" : `, ${detector} detector`}`, (_name, algorithm) => {
    test.each(catalogue().map((a) => [a.name, a] as const))("%s", async (_attack, attack) => {
      const control = await outcome(algorithm, attack, false)
      const attacked = await outcome(algorithm, attack, true)
      if (attacked.notes.length) console.log(`${algorithmName(algorithm)}, ${ids.length} boards, ${attack.key}: ${attacked.notes.join("; ")} (without the attacker: ${control.notes.join("; ")})`)
      expect(control.problems, "without the attacker").toEqual([])
      expect(attacked.problems).toEqual([])
      expect(attacked.misconfigured).toEqual(everyone(false))
      expect(attacked.final).toEqual(control.final)
      expect(control.final).toEqual(attack.final ? attack.final(ids) : everyone(top))
      if (attack.property === "safety")
        attacked.named.forEach((names, i) => expect([...names].filter((n) => !control.named[i].has(n)), `node ${i + 1}`).toEqual([]))
    })
  })
}
