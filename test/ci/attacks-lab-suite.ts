// The attack catalogue (sim/attacks/attacks.ts) in the virtual lab with a group key, by an
// attacker who holds no key (sim/attacks/lab-attacks.ts): every attack on three boards running
// the firmware, one lab per transport (attacks-lab-bus.test.ts, attacks-lab-mqtt.test.ts, which
// can run side by side). After each: the catalogue's property (nobody's coordinator changes,
// watched at every event of the lab; for denial attacks, every board follows the highest again
// within the attack's bound), no board restarted, and the refusals that show the attack
// reached the boards and was refused for the right reason.
import { performance } from "node:perf_hooks"
import { afterAll, beforeAll, expect, test } from "vitest"
import type { Timing } from "../../src/core/contract"
import { type Attack, catalogue } from "../../sim/attacks/attacks"
import {
  BusWire,
  closeBusSeat,
  CoordinatorWatch,
  evidenceBoards,
  LAB_ATTACKS,
  type LabAttackContext,
  type LabWire,
  MqttWire,
  openBusSeat,
  Tally,
} from "../../sim/attacks/lab-attacks"
import { Lab, type LabOptions, sleep } from "../../sim/lab/lab"
import { HostLateness } from "../lateness"

export const PREFIX = "electlab"
export const IDS = [1, 2, 3]
export const HIGHEST = 3
/** How late the host ran timers, in the note of each attack (a denial's recovery is timed). */
const late = new HostLateness()
afterAll(() => late.stop())

/** Waits until `ok` holds, up to 30 s: a VM on a busy host counts what it refused late. */
export async function until(ok: () => boolean) {
  const t0 = performance.now()
  while (!ok() && performance.now() - t0 < 30_000) await sleep(100)
}

/** The catalogue in the order the labs run it: the 60 s replay last, once its frames are a minute old. */
function labOrder(): Attack[] {
  const all = catalogue()
  return [...all.filter((a) => a.key !== "replay-60s"), ...all.filter((a) => a.key === "replay-60s")]
}

/**
 * Resolves once every board follows the highest and has for `holdMs`; the time from the call
 * to the start of that stretch, or -1 past `limitMs`.
 */
async function recovery(lab: Lab, limitMs: number, holdMs: number): Promise<number> {
  const t0 = performance.now()
  let since = -1
  while (performance.now() - t0 < limitMs + holdMs) {
    if (lab.coordinator() !== HIGHEST) since = -1
    else if (since < 0) since = performance.now()
    if (since >= 0 && performance.now() - since >= holdMs) return since - t0
    await sleep(20)
  }
  return -1
}

/** One lab for a transport; every attack of the catalogue that applies there, then `more`. */
export function catalogueSuite(transport: "bus" | "mqtt", options: LabOptions, more: (env: () => { lab: Lab; wire: LabWire }) => void) {
  const timing: Timing = options.timing
  const lab = new Lab(options)
  // a rebooted board integrates within a few failure timeouts
  const watch = new CoordinatorWatch(lab, HIGHEST, 4 * timing.failureTimeout)
  let wire: LabWire
  const ctx = {} as LabAttackContext

  beforeAll(async () => {
    if (transport === "bus") wire = new BusWire(lab)
    await lab.start()
    if (transport === "mqtt") wire = await MqttWire.open(lab, "intruder")
    await lab.waitForAgreement(90_000)
    // an earlier run with the same key: every board boots again
    const earlier = wire.recorded.length
    for (const id of IDS) await lab.kill(id)
    for (const id of IDS) await lab.restart(id)
    await lab.waitForAgreement(90_000)
    // and a failover of the current boots: elections, answers, coordinators on the wire
    await lab.crash(HIGHEST)
    await lab.waitForAgreement(30_000)
    await lab.recover(HIGHEST)
    await lab.waitForAgreement(30_000)
    await sleep(500)
    const seat = transport === "bus" ? await openBusSeat(lab) : null
    Object.assign(ctx, { lab, wire, ids: IDS, earlierRun: wire.recorded.slice(0, earlier), bootFrames: wire.recorded.slice(earlier), seat })
    expect(lab.coordinator()).toBe(HIGHEST)
  }, 300_000)
  afterAll(async () => {
    await closeBusSeat(ctx.seat ?? null)
    await wire?.close()
    await lab.stop()
  })

  for (const attack of labOrder()) {
    const labRun = LAB_ATTACKS[attack.key][transport]
    if (typeof labRun === "string") {
      test.skip(`${attack.name}: cannot apply over ${transport === "bus" ? "the bus" : "MQTT"} (${labRun})`, () => {})
      continue
    }
    // where the transport cannot keep the catalogue's property, the lab entry says what holds instead, and why
    const denial = labRun.denial ?? (attack.property === "denial" ? { recoverMs: attack.recoverMs!, restarts: false, because: "" } : null)
    test(`${attack.name}${labRun.denial ? ` (over ${transport}: a denial, within ${labRun.denial.recoverMs / 1000} s)` : ""}`, async () => {
      await lab.waitForAgreement(60_000)
      expect(lab.coordinator()).toBe(HIGHEST)
      const transitions = lab.transitions.length
      const tally = new Tally(lab)
      const evidenced = () =>
        labRun.evidence.every((e) => {
          const counts = evidenceBoards(e, IDS).map((id) => tally.count(id, e.why))
          return e.on === "any" ? Math.max(...counts) > 0 : counts.every((n) => n > 0)
        }) && (!labRun.hints || IDS.every((id) => (tally.hints.get(id) ?? 0) > 0))
      watch.start()
      late.reset()
      await labRun.run(ctx)
      let recoveredMs = 0
      if (denial) recoveredMs = await recovery(lab, denial.recoverMs, 2 * timing.failureTimeout)
      else await sleep(Math.max(2 * timing.failureTimeout, labRun.settleMs ?? 0))
      // the refusals that show the attack reached the boards, however late they count them
      await until(evidenced)
      const changes = watch.stop()
      tally.end()
      const hints = IDS.map((id) => tally.hints.get(id) ?? 0)
      const note = `${transport}, ${attack.key}: refused ${tally.describe() || "nothing"}; hint checks ${hints.join("/")}; panics ${tally.panics}; ${
        denial ? `recovered ${Math.round(recoveredMs)} ms after; ` : ""
      }changes ${changes.join(" ") || "none"}; boot transients ${watch.transients.join(" ") || "none"}; ${late.describe()}`
      console.log(note)
      if (changes.length || tally.panics) console.log(lab.log.slice(-60).map((l) => `${l.at} ${l.text}`).join("\n"))
      // no board restarted on its own (out of memory, a loop the VM stops), unless the lab entry says why
      if (!denial?.restarts) expect(tally.panics, note).toBe(0)
      if (!denial) expect(changes, note).toEqual([])
      else {
        expect(recoveredMs, note).toBeGreaterThanOrEqual(0)
        expect(recoveredMs, note).toBeLessThanOrEqual(denial.recoverMs)
      }
      // the attack's own reboots of a follower moved nobody
      for (const t of lab.transitions.slice(transitions)) {
        expect(t.trigger, note).toMatch(/^(kill|restart) 1$/)
        expect([t.coordinatorBefore, t.coordinatorAfter], note).toEqual([HIGHEST, HIGHEST])
      }
      expect(lab.coordinator(), note).toBe(HIGHEST)
      // it reached the boards, and was refused for the right reason
      for (const e of labRun.evidence) {
        const counts = evidenceBoards(e, IDS).map((id) => tally.count(id, e.why))
        if (e.on === "any") expect(Math.max(...counts), `any board, ${e.why.join("/")}: ${note}`).toBeGreaterThan(0)
        else counts.forEach((n, i) => expect(n, `board ${evidenceBoards(e, IDS)[i]}, ${e.why.join("/")}: ${note}`).toBeGreaterThan(0))
      }
      if (labRun.hints) for (const h of hints) expect(h, note).toBeGreaterThan(0)
    }, 180_000)
  }

  more(() => ({ lab, wire }))
}

