// A board powered on again claims the role from the coordinator elected while it was off.
// With a key, that coordinator holds the claimer's first frames until it has proven the new
// boot (0.5-0.7 s in the lab), and the claimer hears the coordinator's heartbeats meanwhile.
// The claim must not end while that coordinator is heard and has not resigned: it once ended
// T after the first heartbeat, and two boards led together until the held claim came through.
// Real drivers with their FrameAuth, on the attack cluster's wire (sim/attacks/cluster.ts).
import { describe, expect, test } from "vitest"
import { algorithmName } from "../src/core/algorithms"
import { Role } from "../src/core/contract"
import { ATTACK_KEY, Cluster, type WireFrame } from "../sim/attacks/cluster"
import { CoordinatorReigns } from "../sim/lab/reigns"
import { advance, ALGORITHMS, SETTLE_MS, useFakeTimers } from "./attack-catalogue"

useFakeTimers()

const isControl = (f: WireFrame) => ["challenge", "proof"].includes(Cluster.kindOf(f.bytes))

/** 3 is off long enough for 2 to lead, then powers on with `slow` deciding how late its frames arrive. */
async function rebootTop(algorithm: number, slow: (f: WireFrame, sinceBoot: number) => number | "pass") {
  const c = new Cluster({ algorithm, key: ATTACK_KEY, seed: 1 })
  await c.bootAll()
  await advance(SETTLE_MS)
  c.powerOff(3)
  await advance(3000)
  expect(c.coordinators()).toEqual([2, 2, -1])
  c.watch()
  const t0 = c.now()
  c.intercept = (f) => slow(f, c.now() - t0)
  await c.boot(3)
  await advance(5000)
  // who led when, as the lab judges it: 2 from the start, then every board's reports
  const reigns = new CoordinatorReigns()
  reigns.roleAt(2, true, t0)
  for (const b of c.boards) for (const r of b.reports) reigns.roleAt(b.id, r.role === Role.Coordinator, r.at)
  return { overlapMs: reigns.overlapBetween(t0, c.now()), reigns: reigns.describeBetween(t0, c.now(), t0), final: c.coordinators() }
}

describe.each(ALGORITHMS.map((a) => [algorithmName(a), a] as const))("%s: a rebooted top board never leads beside the sitting one", (_name, algorithm) => {
  test.each([250, 700])("its election frames reach the coordinator %i ms after the boot (held for its proof)", async (held) => {
    const r = await rebootTop(algorithm, (f, since) => (f.from === 3 && f.to === 2 && !isControl(f) && since < held ? held - since : "pass"))
    expect(r.overlapMs, r.reigns).toBe(0)
    expect(r.final).toEqual([3, 3, 3])
  })

  test("every challenge and proof of its handshakes takes 300 ms more each way", async () => {
    const r = await rebootTop(algorithm, (f) => (isControl(f) && (f.from === 3 || f.to === 3) ? 300 : "pass"))
    expect(r.overlapMs, r.reigns).toBe(0)
    expect(r.final).toEqual([3, 3, 3])
  })
})
