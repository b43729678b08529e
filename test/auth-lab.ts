// Attacks on the virtual lab with authenticated frames (docs/security.md): a rogue VM with a wrong key
// claiming id 99, a board with a wrong key, frames recorded on the bus or the broker and sent
// again later, forged MQTT publishes. Run by test/lab-keys.test.ts.
import net from "node:net"
import mqtt from "mqtt"
import { afterAll, beforeAll, describe, expect, test } from "vitest"
import { Algorithm, BROADCAST, FRAME_VERSION, Kind, makeFrame } from "../src/core/frame"
import { Role } from "../src/core/contract"
import { encodeFrame } from "../src/core/codec"
import { FRESH_MS, FrameAuth, parseKeyHex, sealCopy } from "../src/core/auth"
import { nodeMac, nodeRandom32, newKeyHex } from "../sim/auth/keys"
import { type BoardState, Lab, sleep } from "../sim/lab/lab"

/** A raw seat on the lab's bus hub: records every Jacdac frame and sends frames as they were. */
class BusTap {
  private socket: net.Socket | null = null
  recording: Buffer[] | null = null
  async connect(port: number) {
    const s = net.connect(port, "127.0.0.1")
    await new Promise<void>((resolve, reject) => s.once("connect", () => resolve()).once("error", reject))
    let pending = Buffer.alloc(0)
    s.on("data", (data) => {
      pending = Buffer.concat([pending, data])
      while (pending.length >= 1 && pending.length >= 1 + pending[0]) {
        const frame = Buffer.from(pending.subarray(0, 1 + pending[0]))
        pending = pending.subarray(1 + pending[0])
        if (this.recording && !isCrashAction(frame)) this.recording.push(frame)
      }
    })
    this.socket = s
  }
  async replay(frames: Buffer[]) {
    for (const f of frames) {
      this.socket!.write(f)
      await sleep(2)
    }
  }
  close() {
    this.socket?.destroy()
  }
}

/**
 * The lab's own crash/recover command (set_crashed, 0x81): a lab action outside the election
 * protocol and not authenticated (see docs/security.md); the recording leaves it out.
 * Hub frame: [length][crc u16][size][flags][device id 8][packet: size, service index, command u16 LE, ...]
 */
function isCrashAction(f: Buffer): boolean {
  const isCommand = (f[4] & 1) === 1
  return isCommand && f.length > 16 && (f[15] | (f[16] << 8)) === 0x81
}

/** Lab log lines since `mark` in which a board took `node` for coordinator (a replay that worked). */
const tookOver = (lab: Lab, mark: number, node: number) =>
  lab.logSince(mark).map((l) => l.text).filter((t) => t.includes(`follower of ${node} `) || t.startsWith(`${node} coordinator`))

const total = (boards: BoardState[], why: string) => boards.reduce((n, b) => n + (b.refusedWhy[why] ?? 0), 0)

/**
 * Waits until `ok` holds: a VM on a busy host refuses a frame late, and a test that judged it
 * after a fixed sleep failed for the host, not the election. Throws `what` past 30 s.
 */
async function until(what: () => string, ok: () => boolean) {
  const t0 = Date.now()
  while (!ok()) {
    if (Date.now() - t0 > 30_000) throw new Error(`not within 30 s: ${what()}`)
    await sleep(50)
  }
}

export function authLabSuites() {
  describe("bus lab with a group key: a rogue VM (id 99, wrong key) and a wrong-key board", () => {
    const timing = { answerTimeout: 200, coordinatorTimeout: 400, heartbeatInterval: 250, failureTimeout: 800 }
    // 5 has a wrong key: as the highest member it would take over if its frames counted
    const lab = new Lab({ ids: [1, 2, 3, 4, 5], algorithm: Algorithm.ImprovedBully, group: 1, timing, wrongKeyBoards: [5], rogue: 99 })
    const tap = new BusTap()
    const members = () => [1, 2, 3, 4].map((n) => lab.boards.get(n)!)

    beforeAll(async () => {
      await lab.start()
      await tap.connect(lab.hub.port)
    }, 180_000)
    afterAll(async () => {
      tap.close()
      await lab.stop()
    })

    test("the wrong-key board shows misconfigured; the others elect 4 and ignore the rogue", async () => {
      // at first everyone follows 5, the highest (the seeds' initial state); then 5 finds its key wrong
      const t0 = Date.now()
      while (lab.boards.get(5)!.role !== Role.Misconfigured) {
        if (Date.now() - t0 > 60_000) throw new Error(`5 never misconfigured: ${lab.describeBoards()}`)
        await sleep(50)
      }
      await lab.waitForAgreement(60_000)
      expect(lab.coordinator()).toBe(4)
      expect(lab.boards.get(5)!.role).toBe(Role.Misconfigured)
      expect(lab.boards.get(5)!.refusedWhy["bad-tag"]).toBeGreaterThanOrEqual(8)
      // the rogue keeps forging: give it a few rounds, and every board time to refuse them
      const before = members().map((b) => b.refused)
      await sleep(2000)
      await until(
        () => `refusals went from ${before.join("/")} to ${members().map((b) => b.refused).join("/")}: ${lab.describeBoards()}`,
        () => members().every((b, i) => b.refused > before[i] && b.refusedWhy["bad-tag"] > 0 && b.refusedWhy["unsigned"] > 0),
      )
      for (const [i, b] of members().entries()) {
        expect(b.refused).toBeGreaterThan(before[i])
        expect(b.refusedWhy["bad-tag"]).toBeGreaterThan(0)
        expect(b.refusedWhy["unsigned"]).toBeGreaterThan(0)
        expect(b.coordinator).toBe(4)
        expect(b.role).toBe(b.node === 4 ? Role.Coordinator : Role.Follower)
        expect(b.epoch).toBeLessThan(1000000) // no forged epoch got in
      }
      // no transition happened at all: the rogue and board 5 moved nobody
      expect(lab.failovers).toEqual([])
    }, 180_000)

    // 4's REQUEST, COORDINATOR and heartbeats as it takes over again, then 3's as 4 crashes
    let recorded: Buffer[] = []

    test("frames recorded on the bus and sent again later are refused as replays", async () => {
      await lab.crash(4)
      await lab.waitForAgreement(30_000)
      tap.recording = []
      await lab.recover(4)
      await lab.waitForAgreement(30_000)
      await sleep(600)
      await lab.crash(4)
      await lab.waitForAgreement(30_000)
      expect(lab.coordinator()).toBe(3)
      recorded = tap.recording
      tap.recording = null
      expect(recorded.length).toBeGreaterThan(20)
      const replaysBefore = total(members(), "replay") + total(members(), "stale")
      const transitions = lab.failovers.length
      const mark = lab.logCount
      await tap.replay(recorded)
      await sleep(1500)
      await until(
        () => `no replay or stale frame refused: ${lab.describeBoards()}`,
        () => total(members(), "replay") + total(members(), "stale") > replaysBefore,
      )
      expect(total(members(), "replay") + total(members(), "stale")).toBeGreaterThan(replaysBefore)
      expect(tookOver(lab, mark, 4)).toEqual([])
      expect(lab.coordinator()).toBe(3)
      expect(lab.failovers.length).toBe(transitions)
      for (const n of [1, 2, 3]) expect(lab.boards.get(n)!.coordinator).toBe(3)
    }, 180_000)

    // 2 reboots and knows nobody; the recorded frames of 3 (alive, so it answers 2's challenge)
    // were sent more than FRESH_MS before its proof, and 4 (crashed) proves nothing
    test("after a receiver's reboot the recorded frames are still refused (freshness proof)", async () => {
      await lab.kill(2)
      await lab.restart(2)
      await lab.waitForAgreement(60_000)
      expect(lab.coordinator()).toBe(3)
      await sleep(1200) // the recording is now older than FRESH_MS
      const two = lab.boards.get(2)!
      const refusedOf2 = () => (two.refusedWhy["replay"] ?? 0) + (two.refusedWhy["unproven"] ?? 0) + (two.refusedWhy["stale"] ?? 0)
      const before = refusedOf2()
      const transitions = lab.failovers.length
      const mark = lab.logCount
      await tap.replay(recorded)
      // held frames of 4 (crashed, it proves nothing) are refused once older than 2 × FRESH_MS
      await sleep(5000)
      // whether the restarted VM gets the replayed Jacdac commands at all varies from run to run
      // (counted in most runs); what must hold is that nothing moved
      if (refusedOf2() === before) console.log("note: board 2 counted none of the replayed frames")
      // the boards may still be working through the copies: wait for them to agree, then nothing may have moved
      await lab.waitForAgreement(30_000)
      expect(lab.coordinator()).toBe(3)
      expect(lab.failovers.length).toBe(transitions)
      expect(tookOver(lab, mark, 4)).toEqual([])
      for (const b of members()) expect(b.errors).toBe(0)
    }, 120_000)
  })

  describe("WiFi lab with a group key (five VMs and a host node): a rogue mqtt.js client forges and replays", () => {
    const timing = { answerTimeout: 300, coordinatorTimeout: 600, heartbeatInterval: 250, failureTimeout: 1500 }
    // node 6 is a host node (electlab node --key-file): VMs and Node must agree on tags
    const vms = [1, 2, 3, 4, 5]
    // the rogue has a broker login (the broker takes no anonymous client when the lab has a key), not the key
    const lab = new Lab({ ids: [...vms, 6], algorithm: Algorithm.ImprovedBully, group: 1, timing, transport: "mqtt", hostNodes: [6], brokerGuests: ["rogue"] })
    let rogue: mqtt.MqttClient
    const recorded: { topic: string; payload: Buffer }[] = []
    let recording = false

    beforeAll(async () => {
      await lab.start()
      const login = lab.brokerLogin("rogue")!
      rogue = mqtt.connect(lab.brokerUrl()!, { clientId: "rogue", username: login.username, password: login.password })
      await new Promise<void>((resolve) => rogue.once("connect", () => resolve()))
      rogue.on("message", (topic, payload) => recording && topic.endsWith("/frame") && recorded.push({ topic, payload: Buffer.from(payload) }))
      await rogue.subscribeAsync("electlab/#")
    }, 180_000)
    afterAll(async () => {
      await rogue?.endAsync()
      await lab.stop()
    })

    const boards = () => [...lab.boards.values()]

    test("forged frames (wrong key, no tag, a copied tag) move nobody", async () => {
      await lab.waitForAgreement(90_000)
      expect(lab.coordinator()).toBe(6)
      // a second of the boards' frames, and one to all among them (a busy host sends them late)
      recording = true
      await sleep(1000)
      await until(() => `no frame to all recorded: ${lab.describeBoards()}`, () => recorded.some((r) => r.topic.endsWith("/all/frame")))
      recording = false
      const wrong = new FrameAuth(99, 1, nodeMac(parseKeyHex(newKeyHex())!), nodeRandom32, (n) => Buffer.alloc(n))
      for (let round = 0; round < 5; round++) {
        for (const kind of [Kind.ELECTION, Kind.COORDINATOR, Kind.HEARTBEAT]) {
          for (const src of [99, 6]) {
            const f = makeFrame(kind, Algorithm.ImprovedBully, 1, 1000000 + round, src, BROADCAST)
            const plain = encodeFrame(f).bytes
            await rogue.publishAsync("electlab/1/all/frame", Buffer.from(sealCopy(wrong, plain, round * 100)!))
            await rogue.publishAsync("electlab/1/all/frame", Buffer.from(plain))
            // a genuine recorded tag glued onto a forged frame
            const genuine = recorded.find((r) => r.topic.endsWith("/all/frame"))!.payload
            await rogue.publishAsync("electlab/1/all/frame", Buffer.concat([Buffer.from(plain), genuine.subarray(genuine.length - 16)]))
            for (const dst of vms) await rogue.publishAsync(`electlab/1/node/${dst}/frame`, Buffer.from(sealCopy(wrong, plain, round * 100)!))
            await sleep(20)
          }
        }
      }
      await sleep(1000)
      // a VM under load may miss some of a burst, and refuse the rest late: each board refused
      // some, all kinds were seen
      await until(
        () => `refusals: ${boards().map((b) => `${b.node}: ${JSON.stringify(b.refusedWhy)}`).join("; ")}`,
        () => total(boards(), "bad-tag") > 0 && total(boards(), "unsigned") > 0 && boards().every((b) => b.refused > 0),
      )
      expect(total(boards(), "bad-tag")).toBeGreaterThan(0)
      expect(total(boards(), "unsigned")).toBeGreaterThan(0)
      for (const b of boards()) {
        expect(b.refused).toBeGreaterThan(0)
        expect(b.coordinator).toBe(6)
        expect(b.epoch).toBeLessThan(1000000)
      }
      expect(lab.failovers).toEqual([])
    }, 180_000)

    // Once a hole (docs/security.md, "Replays"): under load a VM misses some of the crashed
    // coordinator's last frames; replayed later they were newer than any it got, so they counted
    // and the new coordinator yielded to the crashed one. The counter is now the sender's clock:
    // replayed later than FRESH_MS after they were sent, they are stale at every receiver.
    test("the coordinator's recorded frames, published again after it crashed, are refused", async () => {
      // record a takeover by 6: its REQUEST, COORDINATOR and heartbeats, which 1-5 act on
      await lab.crash(6)
      await lab.waitForAgreement(30_000)
      expect(lab.coordinator()).toBe(5)
      recorded.length = 0
      recording = true
      await lab.recover(6)
      await lab.waitForAgreement(30_000)
      expect(lab.coordinator()).toBe(6)
      // election frames of 6 (src at byte 8): its claim and heartbeats, however late they come
      const of6 = () => recorded.filter((r) => r.payload[0] === FRAME_VERSION && r.payload.readUInt16BE(8) === 6).length
      await sleep(1000)
      await until(() => `${of6()} frames of 6 recorded: ${lab.describeBoards()}`, () => of6() > 3)
      recording = false
      const recordedAt = Date.now()
      expect(of6()).toBeGreaterThan(3)
      await lab.crash(6)
      await lab.waitForAgreement(30_000)
      expect(lab.coordinator()).toBe(5)
      // a copy replayed within FRESH_MS is a delayed frame, by design; replay after that
      await sleep(Math.max(0, recordedAt + FRESH_MS + 200 - Date.now()))
      const transitions = lab.failovers.length
      const mark = lab.logCount
      for (const r of recorded) await rogue.publishAsync(r.topic, r.payload)
      // stale by the offset, each copy is held and its sender re-proven; the crashed 6 proves
      // nothing, so the copies expire unreleased (counted in frames_refused, not logged one by one)
      await sleep(2 * FRESH_MS + 1500)
      expect(tookOver(lab, mark, 6)).toEqual([])
      expect(lab.failovers.length).toBe(transitions)
      await lab.waitForAgreement(30_000)
      expect(lab.coordinator()).toBe(5)
      for (const n of vms) expect(lab.boards.get(n)!.coordinator).toBe(5)
    }, 180_000)
  })
}
