// The attack catalogue (sim/attacks/attacks.ts) in the virtual lab with a group key, by an
// attacker who holds no key (sim/attacks/lab-attacks.ts): every attack over the Jacdac bus and
// over MQTT, on three boards running the firmware, one lab per transport. After each: the
// catalogue's property (nobody's coordinator changes, watched at every event of the lab; for
// denial attacks, every board follows the highest again within the attack's bound), no board
// restarted, and the refusals that show the attack reached the boards and was refused for the
// right reason. Then the broker's and the bus service's hardening. Run alone: `flock
// /tmp/electlab-lab.lock npx vitest run -c vitest.ci.config.ts test/ci/attacks-lab.test.ts`.
import { performance } from "node:perf_hooks"
import mqtt from "mqtt"
import { afterAll, beforeAll, describe, expect, test } from "vitest"
import { AUTH_TRAILER_BYTES, CONTROL_CHALLENGE } from "../../src/core/auth"
import { CodecError, decodeFrame } from "../../src/core/codec"
import { Algorithm } from "../../src/core/frame"
import type { Timing } from "../../src/core/contract"
import { leaveTopic } from "../../src/firmware/topics"
import { type Attack, catalogue } from "../../sim/attacks/attacks"
import {
  BusWire,
  closeBusSeat,
  CoordinatorWatch,
  evidenceBoards,
  isControl,
  LAB_ATTACKS,
  type LabAttackContext,
  type LabFrame,
  type LabWire,
  MqttWire,
  openBusSeat,
  Tally,
} from "../../sim/attacks/lab-attacks"
import { nodeUser } from "../../sim/lab/broker-access"
import { Lab, type LabOptions, sleep } from "../../sim/lab/lab"
import { HostLateness } from "../lateness"

const PREFIX = "electlab"
const IDS = [1, 2, 3]
const HIGHEST = 3
/** How late the host ran timers, in the note of each attack (a denial's recovery is timed). */
const late = new HostLateness()
afterAll(() => late.stop())

/** Waits until `ok` holds, up to 30 s: a VM on a busy host counts what it refused late. */
async function until(ok: () => boolean) {
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
function catalogueSuite(transport: "bus" | "mqtt", options: LabOptions, more: (env: () => { lab: Lab; wire: LabWire }) => void) {
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
      test.skip(`${attack.name}: not run over ${transport === "bus" ? "the bus" : "MQTT"} (${labRun})`, () => {})
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

describe("the catalogue over MQTT, and the broker's hardening", () => {
  const timing = { answerTimeout: 300, coordinatorTimeout: 600, heartbeatInterval: 250, failureTimeout: 1500 }
  // improved bully: a leave of the coordinator used to start an election at once
  const options: LabOptions = { ids: IDS, algorithm: Algorithm.ImprovedBully, group: 1, timing, transport: "mqtt", brokerGuests: ["intruder", "guest"] }
  catalogueSuite("mqtt", options, (env) => {
    const leavesSeen = () => (env().wire as MqttWire).leaves

    test("an anonymous client is refused: it cannot connect, publish a leave or leave a will", async () => {
      const { lab } = env()
      const watch = new CoordinatorWatch(lab, HIGHEST)
      watch.start()
      const before = leavesSeen().length
      const transitions = lab.transitions.length
      for (const clientId of ["electlab-1-3", "forger"]) {
        const anonymous = mqtt.connect(lab.brokerUrl()!, {
          clientId,
          reconnectPeriod: 0,
          will: { topic: leaveTopic(PREFIX, 1, 3), payload: Buffer.from("3"), qos: 0, retain: false },
        })
        const error = await new Promise<Error>((resolve) => anonymous.once("error", resolve))
        expect(error.message).toMatch(/Not authorized|Bad username or password/i)
        await anonymous.endAsync(true)
      }
      await sleep(2 * timing.failureTimeout)
      expect(leavesSeen().slice(before)).toEqual([])
      expect(watch.stop()).toEqual([])
      expect(lab.transitions.length).toBe(transitions)
    }, 60_000)

    test("a member's login cannot publish another node's leave; taking node 3's client id replaces only its own session", async () => {
      const { lab } = env()
      await lab.waitForAgreement(60_000)
      const watch = new CoordinatorWatch(lab, HIGHEST)
      watch.start()
      const before = leavesSeen().length
      const transitions = lab.transitions.length
      const c = lab.brokerLogin(nodeUser(1))!
      // node 3's client id, with node 3's will: on an open broker this dropped node 3 and published its will
      const member = await mqtt.connectAsync(lab.brokerUrl()!, {
        clientId: "electlab-1-3",
        username: c.username,
        password: c.password,
        reconnectPeriod: 0,
        will: { topic: leaveTopic(PREFIX, 1, 3), payload: Buffer.from("3"), qos: 0, retain: false },
      })
      for (let i = 0; i < 10; i++) {
        member.publish(leaveTopic(PREFIX, 1, 3), Buffer.from("3"))
        member.publish(leaveTopic(PREFIX, 1, 2), Buffer.from("2"))
        // its own leave topic naming another node: refused by every node (the id must match the topic)
        member.publish(leaveTopic(PREFIX, 1, 1), Buffer.from("3"))
      }
      await sleep(200)
      // another guest login (no node id, no key) tries the same
      const g = lab.brokerLogin("guest")!
      const guest = await mqtt.connectAsync(lab.brokerUrl()!, { clientId: "electlab-1-2", username: g.username, password: g.password, reconnectPeriod: 0 })
      for (let i = 0; i < 10; i++) guest.publish(leaveTopic(PREFIX, 1, 3), Buffer.from("3"))
      await sleep(2 * timing.failureTimeout)
      // all ten of node 1's own leaves, however late a busy host delivers them
      await until(() => leavesSeen().slice(before).filter((l) => l === "leave/1=3").length >= 10)
      // the broker let through node 1's own topic only (and board 1's will, when the member took its session)
      const leaves = leavesSeen().slice(before)
      expect(leaves.filter((l) => !l.startsWith("leave/1="))).toEqual([])
      expect(leaves.filter((l) => l === "leave/1=3")).toHaveLength(10)
      await member.endAsync(true)
      await guest.endAsync(true)
      // board 1, put off the broker by its own login, comes back (on a busy host, later)
      await sleep(3000)
      await lab.waitForAgreement(60_000)
      expect(watch.stop()).toEqual([])
      expect(lab.transitions.length).toBe(transitions)
      expect(lab.coordinator()).toBe(HIGHEST)
    }, 150_000)
  })
})

describe("the catalogue over the Jacdac bus, and the lab's slow motion", () => {
  const timing = { answerTimeout: 200, coordinatorTimeout: 400, heartbeatInterval: 250, failureTimeout: 800 }
  catalogueSuite("bus", { ids: IDS, algorithm: Algorithm.Bully, group: 1, timing }, (env) => {
    test("the web view's slow motion (retime) reboots every board with the lab's key: frames stay sealed", async () => {
      const { lab, wire } = env()
      const seen = { challenges: 0, sealed: 0, plain: 0 }
      wire.onFrame = (f: LabFrame) => {
        if (isControl(f, CONTROL_CHALLENGE)) seen.challenges++
        else if (decodeFrame(f.bytes).error === CodecError.None) seen.plain++
        else if (decodeFrame(f.bytes.subarray(0, f.bytes.length - AUTH_TRAILER_BYTES)).error === CodecError.None) seen.sealed++
      }
      await lab.retime({ ...timing, answerTimeout: 400, coordinatorTimeout: 800 })
      await lab.waitForAgreement(90_000)
      await sleep(2000)
      // each board's hello and its sealed frames, however late a busy host sends them
      await until(() => seen.challenges >= 3 && seen.sealed > 0)
      wire.onFrame = null
      // each board's hello at boot (only with a key), then sealed heartbeats and election frames
      expect(seen.challenges).toBeGreaterThanOrEqual(3)
      expect(seen.sealed).toBeGreaterThan(0)
      expect(seen.plain).toBe(0)
      expect(lab.coordinator()).toBe(HIGHEST)
    }, 180_000)
  })
})
