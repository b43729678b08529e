// The attack catalogue (attacks.ts) in the virtual lab: each attack again, by its key, on
// DeviceScript VMs running the firmware, over the Jacdac bus (the lab's hub) and over MQTT (the
// lab's mosquitto). The attacker holds no key. On the bus it records at the hub, sends frames
// as a device of its own (raw Jacdac frames into the hub) and, as a man in the middle, holds
// frames back at the hub; over MQTT it records with the read-only observer login and publishes
// with a guest login (no node id, no key), as far as the broker's ACL lets it. Where an attack
// has no means on a transport, the entry says why instead. test/ci/attacks-lab-suite.ts runs
// them and checks the catalogue's property after each.

import { randomBytes } from "node:crypto"
import { readFileSync } from "node:fs"
import { createRequire } from "node:module"
import { dirname, join } from "node:path"
import { performance } from "node:perf_hooks"
import mqtt from "mqtt"
import { AUTH_CONTROL_MARKER, CONTROL_CHALLENGE, CONTROL_PROOF, FRESH_MS, PROOF_BURST } from "../../src/core/auth"
import { getU16 } from "../../src/core/codec"
import { Role } from "../../src/core/contract"
import { BROADCAST, FRAME_HEADER_BYTES } from "../../src/core/frame"
import { groupTopic, leaveTopic, nodeTopic } from "../../src/firmware/topics"
import { OBSERVER_USER } from "../lab/broker-access"
import type { BoardEvent } from "../lab/board-event"
import { boardRoleName } from "../lab/board-state"
import { ELECTLAB_SERVICE_CLASS } from "../lab/bus-control"
import { LAB_TOPIC_PREFIX } from "../lab/firmware-image"
import type { Lab } from "../lab/lab"
import { sleep } from "../lab/wait"
import { jacdacPackets } from "../web/tap"
import { AGES, type AttackKey, BAD_TAG_COUNT, CHALLENGE_FLOOD_COUNT } from "./attacks"
import type * as JD from "../../node_modules/jacdac-ts/dist/types/src/jacdac"

const jacdac = createRequire(import.meta.url)("jacdac-ts") as typeof JD

const CMD_FRAME = 0x80
const EVENT_BROADCAST = 0x81
const REG_NODE_ID = 0x180
const REG_BOOT_NONCE = 0x181

/** One election or control frame as the attacker saw it on the wire. */
export interface LabFrame {
  /** performance.now() when seen. */
  at: number
  /** The sender the frame names. */
  from: number
  /** The destination board, or BROADCAST. */
  to: number
  bytes: Buffer
}

/** Sender and destination a frame names (control frames: src at 4, dst at 6; election frames: 8, 10). */
function addresses(bytes: Uint8Array): { from: number; to: number } | null {
  if (bytes.length >= 8 && bytes[0] === AUTH_CONTROL_MARKER) return { from: getU16(bytes, 4), to: getU16(bytes, 6) }
  if (bytes.length >= FRAME_HEADER_BYTES) return { from: getU16(bytes, 8), to: getU16(bytes, 10) }
  return null
}

export function isControl(f: LabFrame, type: number): boolean {
  return f.bytes[0] === AUTH_CONTROL_MARKER && f.bytes[1] === type
}

/** The attacker's means on one transport. */
export interface LabWire {
  readonly transport: "bus" | "mqtt"
  /** Every frame seen, in order (a Jacdac event's repeats once). */
  readonly recorded: LabFrame[]
  /** Told of each frame as it is recorded (reflection, replays as frames go by). */
  onFrame: ((f: LabFrame) => void) | null
  /** Sends bytes to one board, or to every board (BROADCAST). */
  inject(bytes: Buffer, to: number): void
  /**
   * A man in the middle: holds a frame back (ms) or drops it. Only where the attacker sits on
   * the path (the bus hub); over MQTT the broker, not the attacker, carries the frames.
   */
  readonly canIntercept: boolean
  intercept: ((f: LabFrame) => "pass" | "drop" | number) | null
  close(): Promise<void>
}

/**
 * The bus: the hub relays every frame and is the attacker's tap and man in the middle; the
 * attacker's frames go into the hub as a device of its own would send them.
 */
export class BusWire implements LabWire {
  readonly transport = "bus"
  readonly recorded: LabFrame[] = []
  onFrame: ((f: LabFrame) => void) | null = null
  intercept: ((f: LabFrame) => "pass" | "drop" | number) | null = null
  readonly canIntercept = true
  /** Jacdac device of each board's ElectLab server, and the service's index there (learned from traffic). */
  private device = new Map<number, string>()
  private serviceIndex = -1
  private recent = new Map<string, number>()

  constructor(private lab: Lab) {
    lab.hub.tap = (frame) => this.tap(frame)
    lab.hub.intercept = (frame) => this.judge(frame)
  }

  private frames(jacdacFrame: Buffer): { f: LabFrame; key: string; device: string; command: boolean; index: number }[] {
    const out = []
    for (const p of jacdacPackets(jacdacFrame.subarray(1))) {
      const unicast = p.command && p.serviceCommand === CMD_FRAME
      const broadcast = !p.command && (p.serviceCommand & 0x8000) !== 0 && (p.serviceCommand & 0xff) === EVENT_BROADCAST
      if (!unicast && !broadcast) continue
      const a = addresses(p.payload)
      if (!a) continue
      const f = { at: performance.now(), from: a.from, to: broadcast ? BROADCAST : a.to, bytes: Buffer.from(p.payload) }
      const key = `${p.deviceId}:${p.serviceCommand}:${f.bytes.toString("hex")}`
      out.push({ f, key, device: p.deviceId, command: p.command, index: p.serviceIndex })
    }
    return out
  }

  private tap(jacdacFrame: Buffer) {
    for (const { f, key, device, command, index } of this.frames(jacdacFrame)) {
      // an event comes from its sender's device; a command goes to whichever device serves its
      // destination's id (an impostor's too), so it only fills a gap
      if (!command) this.device.set(f.from, device)
      else if (!this.device.has(f.to)) this.device.set(f.to, device)
      this.serviceIndex = index
      // Jacdac sends an event three times (0, 20, 70 ms): one frame
      const last = this.recent.get(key)
      this.recent.set(key, f.at)
      if (this.recent.size > 5000) this.recent.clear()
      if (last !== undefined && f.at - last < 1000) continue
      this.recorded.push(f)
      this.onFrame?.(f)
    }
  }

  private judge(jacdacFrame: Buffer): "pass" | "drop" | number {
    if (!this.intercept) return "pass"
    let verdict: "pass" | "drop" | number = "pass"
    for (const { f } of this.frames(jacdacFrame)) {
      const v = this.intercept(f)
      if (v === "drop") return "drop"
      if (v !== "pass") verdict = Math.max(v, verdict === "pass" ? 0 : verdict)
    }
    return verdict
  }

  /**
   * As the `frame` command to the board's server, also for BROADCAST (to each board): a
   * broadcast event would need an event counter, which Jacdac receivers check before any
   * program sees the frame (see docs/security.md, "Out of reach").
   */
  inject(bytes: Buffer, to: number) {
    const targets = to === BROADCAST ? this.lab.options.ids : [to]
    for (const node of targets) {
      const device = this.device.get(node)
      if (!device || this.serviceIndex < 0) throw new Error(`bus attacker: board ${node}'s device not seen on the bus yet`)
      const pkt = jacdac.Packet.from(CMD_FRAME, bytes)
      pkt.deviceIdentifier = device
      pkt.serviceIndex = this.serviceIndex
      pkt.isCommand = true
      const frame = Buffer.from(pkt.toBuffer())
      this.lab.hub.inject(Buffer.concat([Buffer.from([frame.length]), frame]))
    }
  }

  async close() {
    this.lab.hub.tap = null
    this.lab.hub.intercept = null
  }
}

/**
 * MQTT: the observer's login (read-only) records every topic of the group; a guest login (a
 * broker password, no node id, no key) publishes wherever the ACL lets it.
 */
export class MqttWire implements LabWire {
  readonly transport = "mqtt"
  readonly recorded: LabFrame[] = []
  /** Leave messages seen (topic=payload): the ACL's verdict on forged ones. */
  readonly leaves: string[] = []
  onFrame: ((f: LabFrame) => void) | null = null
  readonly canIntercept = false
  private group: number
  /** The guest's own publishes, not yet seen back by the observer: not the boards' frames. */
  private own = new Map<string, number>()

  private constructor(
    private lab: Lab,
    private observer: mqtt.MqttClient,
    readonly guest: mqtt.MqttClient,
  ) {
    this.group = lab.options.group
  }

  get intercept(): null {
    return null
  }
  set intercept(_: unknown) {
    throw new Error("over MQTT the attacker is no man in the middle: the broker carries the frames")
  }

  /** Logs in the observer (subscribed to the whole group) and the guest `guestUser`. */
  static async open(lab: Lab, guestUser: string): Promise<MqttWire> {
    const url = lab.brokerUrl()!
    const o = lab.brokerLogin(OBSERVER_USER)!
    const observer = await mqtt.connectAsync(url, { username: o.username, password: o.password, reconnectPeriod: 0 })
    const g = lab.brokerLogin(guestUser)!
    const guest = await mqtt.connectAsync(url, { clientId: guestUser, username: g.username, password: g.password, reconnectPeriod: 0 })
    const wire = new MqttWire(lab, observer, guest)
    const prefix = `${LAB_TOPIC_PREFIX}/${lab.options.group}/`
    observer.on("message", (topic, payload) => wire.observed(topic.slice(prefix.length), Buffer.from(payload)))
    await observer.subscribeAsync(`${prefix}#`)
    return wire
  }

  private observed(topic: string, payload: Buffer) {
    if (topic.startsWith("leave/")) {
      this.leaves.push(`${topic}=${payload}`)
      return
    }
    const key = payload.toString("hex")
    const own = this.own.get(key) ?? 0
    if (own > 0) {
      if (own === 1) this.own.delete(key)
      else this.own.set(key, own - 1)
      return
    }
    const a = addresses(payload)
    if (!a) return
    const to = topic === "all/frame" ? BROADCAST : Number(topic.split("/")[1])
    const f = { at: performance.now(), from: a.from, to, bytes: payload }
    this.recorded.push(f)
    this.onFrame?.(f)
  }

  inject(bytes: Buffer, to: number) {
    const topic = to === BROADCAST ? groupTopic(LAB_TOPIC_PREFIX, this.group) : nodeTopic(LAB_TOPIC_PREFIX, this.group, to)
    const key = bytes.toString("hex")
    this.own.set(key, (this.own.get(key) ?? 0) + 1)
    this.guest.publish(topic, bytes)
  }

  /** A publish by the guest login on any topic (the broker drops what its ACL refuses). */
  publish(topic: string, payload: string | Buffer) {
    this.guest.publish(topic, payload)
  }

  async close() {
    await this.guest.endAsync(true)
    await this.observer.endAsync(true)
  }
}

/**
 * Every board's coordinator, checked at each event of the lab from `start()` on: a board
 * that names another coordinator, starts an election or goes misconfigured is a change.
 *
 * A board that powers on again can start an election before it hears the coordinator (the
 * bus binds its roles to the others' servers, and they prove themselves, over a second or
 * so), and under bully a board it asks holds one too; the lab shows this without any
 * attacker. For `bootGraceMs` after a board's first role line following a power-on, its own
 * election and its claiming the role for itself are listed apart as `transients`, and so is
 * another board's election within FRESH_MS of either: a frame the rebooted board sent then
 * is held by its receivers until it proves its new boot, and acted on up to FRESH_MS after
 * it left. Anything else counts as a change.
 */
export class CoordinatorWatch {
  changes: string[] = []
  transients: string[] = []
  private on = false
  /** Boards powered on again and not yet reporting a role; when each one reported its first. */
  private booting = new Set<number>()
  private bootedAt = new Map<number, number>()
  /** When a rebooted board, in its grace, started an election or claimed the role for itself. */
  private bootTransients: number[] = []
  /** Other boards' elections, judged at stop() against the rebooted boards' (either may be logged first). */
  private elections: { what: string; at: number }[] = []
  /** Each board's last change seen, so that one change is listed once however many events pass. */
  private last = new Map<number, string>()
  constructor(
    private lab: Lab,
    private expected: number,
    private bootGraceMs = 0,
  ) {
    lab.onChange(() => this.check())
  }
  start() {
    this.changes = []
    this.transients = []
    this.last.clear()
    this.booting.clear()
    this.bootedAt.clear()
    this.bootTransients = []
    this.elections = []
    this.on = true
    this.check()
  }
  stop(): string[] {
    this.on = false
    for (const e of this.elections) {
      if (this.bootTransients.some((at) => Math.abs(at - e.at) <= FRESH_MS)) this.transients.push(e.what)
      else this.changes.push(e.what)
    }
    this.elections = []
    return this.changes
  }
  private check() {
    if (!this.on) return
    const now = performance.now()
    for (const b of this.lab.boards.values()) {
      if (!b.powered || !b.booted || b.role === null) {
        this.booting.add(b.node)
        continue
      }
      if (this.booting.delete(b.node)) this.bootedAt.set(b.node, now)
      if (b.coordinator === this.expected && b.role !== Role.Electing && b.role !== Role.Misconfigured) {
        this.last.delete(b.node)
        continue
      }
      const what = `${b.node}:${boardRoleName(b)}→${b.coordinator}`
      if (this.last.get(b.node) === what) continue
      this.last.set(b.node, what)
      const bootedAt = this.bootedAt.get(b.node)
      if (bootedAt !== undefined && now - bootedAt < this.bootGraceMs) {
        if (b.role === Role.Electing || (b.role === Role.Coordinator && b.coordinator === b.node)) {
          this.bootTransients.push(now)
          this.transients.push(what)
          continue
        }
      }
      if (b.role === Role.Electing) this.elections.push({ what, at: now })
      else this.changes.push(what)
    }
  }
}

/**
 * What the boards logged while an attack ran: refusals by board and reason (and "restart" for
 * a program the VM stopped and started again), hint checks, panics.
 */
export class Tally {
  refused = new Map<number, Record<string, number>>()
  hints = new Map<number, number>()
  panics = 0
  private stop: () => void
  constructor(lab: Lab) {
    const add = (node: number, why: string, n: number) => {
      const r = this.refused.get(node) ?? {}
      r[why] = (r[why] ?? 0) + n
      this.refused.set(node, r)
    }
    this.stop = lab.onBoardEvent((e: BoardEvent) => {
      if (e.event === "refused") add(e.node, e.why, e.count)
      else if (e.event === "drop") add(e.node, `dropped:${e.fields.why ?? "?"}`, 1)
      else if (e.event === "other" && e.name === "hint") this.hints.set(e.node, (this.hints.get(e.node) ?? 0) + 1)
      else if (e.event === "panic") {
        this.panics++
        add(e.node, "restart", 1)
      }
    })
  }
  /** Refusals of board `node` for any of `why`. */
  count(node: number, why: string[]): number {
    const r = this.refused.get(node) ?? {}
    return why.reduce((n, w) => n + (r[w] ?? 0), 0)
  }
  end() {
    this.stop()
  }
  describe(): string {
    return [...this.refused.entries()]
      .sort((a, b) => a[0] - b[0])
      .map(([n, r]) => `${n}: ${Object.entries(r).map(([w, c]) => `${w} ${c}`).join(", ")}`)
      .join("; ")
  }
}

export interface LabAttackContext {
  lab: Lab
  wire: LabWire
  /** The boards, highest (the coordinator) last. */
  ids: number[]
  /** Frames of an earlier run with the same key: every board has booted again since. */
  earlierRun: LabFrame[]
  /** Frames of the boards' current boots: their hellos and proofs, and a failover (elections, answers, coordinators). */
  bootFrames: LabFrame[]
  /** The attacker's device on the bus (jacdac-ts), to serve a service; null over MQTT. */
  seat: JD.JDBus | null
}

/** Refusals that show an attack reached a board and was refused for the right reason. */
export interface Evidence {
  /** Any of these reasons... */
  why: string[]
  /**
   * ...on each of these boards: every board, the followers, the coordinator (the highest), or
   * the one the attack reboots (the lowest); "any": on one board at least. "restart" counts a
   * board the VM restarted.
   */
  on: "all" | "any" | "followers" | "coordinator" | "rebooted"
}

export interface LabRun {
  /** Runs the attack; resolves when it is over (the property is checked from there on). */
  run(ctx: LabAttackContext): Promise<void>
  /** Refusals each listed board must show (each clause on its own). */
  evidence: Evidence[]
  /** Hint checks (a sealed challenge instead of belief) each board must show. */
  hints?: boolean
  /** How long the boards may still be working through the attack's frames once it is over, ms. */
  settleMs?: number
  /**
   * Where this transport cannot keep the catalogue's property, what holds instead (a denial
   * with a bound, counted from the end of the attack) and why; docs/security.md says so too.
   */
  denial?: { recoverMs: number; restarts: boolean; because: string }
}

/** An attack of the catalogue in the lab: how it runs over each transport, or why it cannot apply there. */
export interface LabAttack {
  bus: LabRun | string
  mqtt: LabRun | string
}

/** The boards an evidence clause names. */
export function evidenceBoards(e: Evidence, ids: number[]): number[] {
  if (e.on === "all" || e.on === "any") return ids
  if (e.on === "followers") return ids.slice(0, -1)
  return e.on === "coordinator" ? [ids[ids.length - 1]] : [ids[0]]
}

/**
 * The attacker's own device on the bus (jacdac-ts, as the lab's tool joins it), knowing the
 * ElectLab service's specification as `devs build` compiled it (an impostor serves it).
 */
export async function openBusSeat(lab: Lab): Promise<JD.JDBus> {
  const specs = JSON.parse(readFileSync(join(dirname(dirname(lab.firmwarePath()!)), "services.json"), "utf8"))
  jacdac.loadServiceSpecifications(specs)
  const seat = new jacdac.JDBus([jacdac.createNodeSocketTransport(lab.hub.port)], { client: true, disableRoleManager: true })
  seat.minLoggerPriority = jacdac.LoggerPriority.Silent
  await seat.connect()
  return seat
}

export async function closeBusSeat(seat: JD.JDBus | null) {
  if (!seat) return
  await seat.disconnect()
  seat.stop()
}

/** A follower powers off and on (a new boot nonce: hellos, proofs, challenges back). */
export async function rebootFollower(lab: Lab, node: number) {
  await lab.kill(node)
  await lab.restart(node)
  await lab.waitForAgreement(60_000)
}

/**
 * Each frame to its destination and to every board, one every `spacingMs`. At the catalogue's
 * pace (one a millisecond) a board in the VM, holding and re-proving each stale copy, now and
 * then fills its inbox and drops the coordinator's heartbeats with the copies: a flood's
 * denial (see docs/security.md), not a replay's.
 */
async function replayToEveryone(wire: LabWire, frames: LabFrame[], spacingMs = 3) {
  for (const f of frames) {
    wire.inject(f.bytes, f.to)
    if (f.to !== BROADCAST) wire.inject(f.bytes, BROADCAST)
    await sleep(spacingMs)
  }
}

/** Waits until board `node` has booted (its log says so). */
async function booted(lab: Lab, node: number) {
  while (!lab.boards.get(node)!.booted) await sleep(20)
}

/** `count` copies of each frame round-robin to `targets`, 50 a millisecond (the catalogue's pace). */
async function flood(wire: LabWire, frames: LabFrame[], count: number, targets: number[]) {
  let sent = 0
  for (let i = 0; i < count; i++) {
    for (const to of targets) {
      wire.inject(frames[i % frames.length].bytes, to)
      if (++sent % 50 === 0) await sleep(1)
    }
  }
}

const ALL_REPLAY_REASONS = ["replay", "stale", "unproven", "late"]

function replayAtAgeAttack(label: "fresh" | "1s" | "3s" | "60s", age: number): LabAttack {
  let run: LabRun
  if (label === "60s")
    // the boot and a failover, recorded at the start: every kind of frame, a minute old or more
    run = {
      async run({ wire, bootFrames }) {
        const wait = bootFrames[bootFrames.length - 1].at + age - performance.now()
        if (wait > 0) await sleep(wait)
        await replayToEveryone(wire, bootFrames)
        await sleep(3000)
      },
      // stale, or from a boot its sender has left since (the lab reboots boards): replay, unproven
      evidence: [{ why: ALL_REPLAY_REASONS, on: "all" }],
    }
  else
    // each frame again `age` after it went by, to its destination and to everyone, while a
    // follower reboots (hellos, proofs, challenges back and heartbeats flow)
    run = {
      async run({ lab, wire, ids }) {
        const again = (f: LabFrame) => {
          wire.inject(f.bytes, f.to)
          if (f.to !== BROADCAST) wire.inject(f.bytes, BROADCAST)
        }
        wire.onFrame = (f) => (age === 0 ? again(f) : setTimeout(() => again(f), age))
        await rebootFollower(lab, ids[0])
        await sleep(2000)
        wire.onFrame = null
        await sleep(age + 1000)
      },
      // Within FRESH_MS a copy is refused as a replay, or as unproven when its sender's boot is
      // not proven yet (the rebooted board); later, the followers find the coordinator's stale. The
      // coordinator hears only the others' hellos and proofs (followers are quiet): replays.
      evidence:
        age < 2000
          ? [{ why: ["replay", "unproven", "late"], on: "all" }]
          : [
              { why: ["stale"], on: "followers" },
              { why: ALL_REPLAY_REASONS, on: "all" },
            ],
    }
  return { bus: run, mqtt: run }
}

const replayAfterReboot: LabRun = {
  async run({ lab, wire, ids, bootFrames, earlierRun }) {
    const before = [...bootFrames, ...wire.recorded.filter((f) => f.at > bootFrames[bootFrames.length - 1].at)].slice(-400)
    await rebootFollower(lab, ids[0])
    await sleep(2000)
    await replayToEveryone(wire, before)
    await sleep(3000)
    await replayToEveryone(wire, earlierRun)
    await sleep(3000)
  },
  evidence: [{ why: ALL_REPLAY_REASONS, on: "all" }],
}

const reflection: LabRun = {
  async run({ lab, wire, ids }) {
    // every frame back to its sender and to every board it was not for, as it goes by
    wire.onFrame = (f) => {
      for (const b of ids) if (b !== f.to) wire.inject(f.bytes, b)
    }
    await rebootFollower(lab, ids[0])
    await sleep(4000)
    wire.onFrame = null
    await sleep(2000)
  },
  // the coordinator's broadcasts come back to the followers as replays; what comes back to the
  // coordinator is its own, or addressed to another board: ignored, not counted
  evidence: [{ why: ["replay"], on: "followers" }],
}

/** Board `node`'s latest hello (its start-up broadcast CHALLENGE). */
function helloOf(wire: LabWire, node: number): LabFrame {
  const hello = wire.recorded.filter((f) => f.from === node && f.to === BROADCAST && isControl(f, CONTROL_CHALLENGE)).at(-1)
  if (!hello) throw new Error(`no hello of board ${node} recorded`)
  return hello
}

const challengeReplayFlood: LabRun = {
  async run({ wire, ids }) {
    await flood(wire, [helloOf(wire, ids[0])], CHALLENGE_FLOOD_COUNT, [ids[ids.length - 1]])
  },
  evidence: [{ why: ["replay"], on: "coordinator" }],
  settleMs: 5000,
}

/**
 * Over MQTT in the VM the catalogue's pace restarts the board it floods: the DeviceScript
 * runtime takes every TCP chunk into the program's 64 KB heap as it arrives, faster than the
 * board reads them, and mosquitto has no publish rate per login to slow a flood down.
 */
const BROKER_FLOOD = {
  recoverMs: 12_000,
  restarts: true,
  because: "the runtime takes every TCP chunk into the 64 KB heap as it arrives; the VM restarts the flooded board",
}

const challengeMixFlood: LabRun = {
  async run({ lab, wire, ids }) {
    await rebootFollower(lab, ids[0])
    await sleep(500)
    const seen = new Set<string>()
    const challenges = wire.recorded.filter((f) => {
      const value = f.bytes.subarray(8, 12).toString("hex")
      if (!isControl(f, CONTROL_CHALLENGE) || seen.has(value)) return false
      seen.add(value)
      return true
    })
    await flood(wire, challenges, CHALLENGE_FLOOD_COUNT, ids)
  },
  evidence: [{ why: ["replay", "flood"], on: "all" }],
  settleMs: 8000,
}

const proofHoldBack: LabRun = {
  async run({ lab, wire, ids }) {
    wire.intercept = (f) => (isControl(f, CONTROL_PROOF) ? 1500 : "pass")
    try {
      await lab.kill(ids[0])
      await lab.restart(ids[0])
      await booted(lab, ids[0])
      const start = performance.now()
      await sleep(3000)
      await replayToEveryone(wire, wire.recorded.filter((f) => f.at >= start && f.at < start + 500))
      await sleep(3000)
    } finally {
      wire.intercept = null
    }
  },
  // the held-back proofs come late to whichever board asked (the rebooted one, or one that challenged it)
  evidence: [
    { why: ["late"], on: "any" },
    { why: ALL_REPLAY_REASONS, on: "all" },
  ],
}

const forgedLeave: LabRun = {
  async run({ lab, wire, ids }) {
    const w = wire as MqttWire
    const group = lab.options.group
    const before = w.leaves.length
    const coordinator = ids[ids.length - 1]
    w.publish(leaveTopic(LAB_TOPIC_PREFIX, group, coordinator), `${coordinator}`)
    await sleep(2000)
    for (const id of ids) w.publish(leaveTopic(LAB_TOPIC_PREFIX, group, id), `${id}`)
    // the same login reaches every board where the ACL lets it: a frame on the group topic
    w.inject(Buffer.from([1, 2, 3]), BROADCAST)
    await sleep(2000)
    const leaked = w.leaves.slice(before)
    if (leaked.length) throw new Error(`the broker let forged leaves through: ${leaked.join(" ")}`)
  },
  // the broker drops the leaves (ACL); the garbage frame the ACL lets through is refused
  evidence: [{ why: ["unsigned"], on: "all" }],
}

const duplicateId: LabRun = {
  async run({ lab, seat, ids }) {
    // a device serving the ElectLab service once per board's id, each with another boot nonce
    const servers = ids.map((id) => {
      const server = new jacdac.JDServiceServer(ELECTLAB_SERVICE_CLASS)
      server.addRegister(REG_NODE_ID).data = Uint8Array.of(id & 0xff, id >> 8)
      server.addRegister(REG_BOOT_NONCE).data = Uint8Array.of(0x78, 0x56, 0x34, 0x12 + id)
      return server
    })
    const provider = new jacdac.JDServerServiceProvider("impostor", servers, { deviceId: "0badc0de00000001" })
    seat!.addServiceProvider(provider)
    // every board binds a role to each server and reads its node id and boot nonce
    await sleep(5000)
    seat!.removeServiceProvider(provider)
    await sleep(2 * lab.options.timing.failureTimeout)
  },
  evidence: [],
  hints: true,
}

const badTagFlood: LabRun = {
  async run({ wire, ids }) {
    const frames = wire.recorded.filter((f) => f.bytes.length > 8)
    let sent = 0
    for (let i = 0; i < BAD_TAG_COUNT; i++) {
      const f = Buffer.from(frames[i % frames.length].bytes)
      randomBytes(8).copy(f, f.length - 8)
      wire.inject(f, i % 2 === 0 ? BROADCAST : ids[i % ids.length])
      // 2,000 in a second
      if (++sent % 2 === 0) await sleep(1)
    }
    await sleep(3000)
  },
  evidence: [{ why: ["bad-tag"], on: "all" }],
}

const oldBootEviction: LabRun = {
  async run({ lab, wire, ids, earlierRun }) {
    const victim = ids[0]
    const old = earlierRun.filter((f) => f.from !== victim)
    await lab.kill(victim)
    await lab.restart(victim)
    await booted(lab, victim)
    // 20 rounds of up to 100 frames, one a millisecond, while the rebooted board meets the others
    for (let round = 0; round < 20; round++)
      for (const f of old.slice(0, 100)) {
        wire.inject(f.bytes, victim)
        await sleep(1)
      }
  },
  evidence: [{ why: ["unproven", "replay", "stale"], on: "rebooted" }],
}

/**
 * The catalogue's proof starvation at a follower's reboot: the others' recorded challenges to
 * it (their earlier boots and the current ones) and its own of its earlier boot to them, one of
 * each every 10 ms from half a second before its kill through 8 s after its restart, and as its
 * new boot's hello goes by, PROOF_BURST + 1 copies at once to it: its fresh rates too.
 */
const proofStarvationFollower: LabRun = {
  async run({ lab, wire, ids, earlierRun }) {
    const victim = ids[0]
    const distinct = (frames: LabFrame[]) => {
      const seen = new Set<string>()
      return frames.filter((f) => {
        const key = f.bytes.toString("hex")
        if (!isControl(f, CONTROL_CHALLENGE) || seen.has(key)) return false
        seen.add(key)
        return true
      })
    }
    const toVictim = distinct(wire.recorded.filter((f) => f.from !== victim && (f.to === victim || f.to === BROADCAST)))
    // its earlier boots' first (the others refuse its current boot's by their clock)
    const fromVictim = distinct([...earlierRun, ...wire.recorded].filter((f) => f.from === victim))
    if (!toVictim.length || !fromVictim.length) throw new Error(`no recorded challenges to and from ${victim} to replay`)
    let streaming = true
    const stream = (async () => {
      for (let i = 0; streaming; i++) {
        wire.inject(toVictim[i % toVictim.length].bytes, victim)
        const f = fromVictim[i % fromVictim.length]
        wire.inject(f.bytes, f.to)
        await sleep(10)
      }
    })()
    await sleep(500)
    const killedAt = performance.now()
    let burst = false
    wire.onFrame = (f) => {
      if (burst || f.from !== victim || f.at < killedAt || !isControl(f, CONTROL_CHALLENGE)) return
      burst = true
      for (let i = 0; i < Math.min(PROOF_BURST + 1, toVictim.length); i++) wire.inject(toVictim[toVictim.length - 1 - i].bytes, victim)
    }
    try {
      await lab.kill(victim)
      await lab.restart(victim)
      await sleep(8000)
    } finally {
      wire.onFrame = null
      streaming = false
      await stream
    }
    if (!burst) throw new Error(`no hello of ${victim}'s new boot went by`)
    await lab.waitForAgreement(60_000)
  },
  // the others' old challenges name its earlier boots; its own old ones come from a boot the others saw replaced
  evidence: [
    { why: ["replay"], on: "rebooted" },
    { why: ["replay"], on: "coordinator" },
  ],
  settleMs: 3000,
}

/**
 * The last 2 s into a reboot: a follower powers off and on, and as soon as it has booted every
 * frame the others sent in the 2 s before goes to it, one a millisecond. It heard none of them,
 * and they are inside the freshness window. (The lab keeps one coordinator throughout, so,
 * unlike the catalogue's run, no failover is among them.)
 */
const replayIntoReboot: LabRun = {
  async run({ lab, wire, ids }) {
    const victim = ids[0]
    await lab.kill(victim)
    await lab.restart(victim)
    await booted(lab, victim)
    const bootedAt = performance.now()
    const last = wire.recorded.filter((f) => f.at >= bootedAt - FRESH_MS && f.from !== victim)
    for (const f of last) {
      wire.inject(f.bytes, victim)
      await sleep(1)
    }
    await lab.waitForAgreement(60_000)
  },
  evidence: [{ why: ALL_REPLAY_REASONS, on: "rebooted" }],
}

const ONE_COORDINATOR =
  "the lab's attacks keep one coordinator throughout; the catalogue runs it on firmware drivers (test/attacks.test.ts)"

const COORDINATOR_REBOOT =
  "the lab's attacks keep one coordinator throughout, and a rebooted coordinator hands the role down and takes it back; the catalogue runs it on firmware drivers (test/attacks.test.ts), the follower's reboot runs here"
const OTHER_LAB = "it needs a second lab with the same key; the catalogue runs it on two clusters of firmware drivers (test/attacks.test.ts)"

/** The catalogue in the lab, by key: adding an attack to the catalogue without a lab entry fails the type check. */
export const LAB_ATTACKS: Record<AttackKey, LabAttack> = {
  ...(Object.fromEntries(AGES.map(([label, age]) => [`replay-${label}`, replayAtAgeAttack(label, age)])) as Record<`replay-${(typeof AGES)[number][0]}`, LabAttack>),
  "replay-after-reboot": { bus: replayAfterReboot, mqtt: replayAfterReboot },
  reflection: { bus: reflection, mqtt: reflection },
  "challenge-replay-flood": {
    bus: challengeReplayFlood,
    mqtt: { ...challengeReplayFlood, evidence: [{ why: ["replay", "restart"], on: "coordinator" }], denial: BROKER_FLOOD },
  },
  "challenge-mix-flood": {
    bus: challengeMixFlood,
    mqtt: { ...challengeMixFlood, evidence: [{ why: ["replay", "flood", "restart"], on: "all" }], denial: BROKER_FLOOD },
  },
  "proof-hold-back": {
    bus: proofHoldBack,
    mqtt: "no man in the middle: the broker, not the attacker, carries the frames, and a guest login cannot hold back what the broker delivers",
  },
  "forged-leave": {
    bus: "no leave message on the bus: a board that goes silent is noticed by the failure detector, which no frame without the key can satisfy",
    mqtt: forgedLeave,
  },
  "duplicate-id": {
    bus: duplicateId,
    mqtt: "nothing is advertised over MQTT: a client id stands for a board there, and taking one replaces only the caller's own session (the client-id takeover test)",
  },
  "bad-tag-flood": { bus: badTagFlood, mqtt: badTagFlood },
  "old-boot-eviction": { bus: oldBootEviction, mqtt: oldBootEviction },
  "proof-starvation-follower": { bus: proofStarvationFollower, mqtt: proofStarvationFollower },
  "proof-starvation-coordinator": {
    bus: COORDINATOR_REBOOT,
    mqtt: COORDINATOR_REBOOT,
  },
  "relay-other-cluster": { bus: OTHER_LAB, mqtt: OTHER_LAB },
  "relay-other-algorithm": { bus: OTHER_LAB, mqtt: OTHER_LAB },
  "replay-into-reboot": { bus: replayIntoReboot, mqtt: replayIntoReboot },
  "failover-hold-back": {
    bus: ONE_COORDINATOR,
    mqtt: "no man in the middle: the broker, not the attacker, carries the frames, and a guest login cannot hold back what the broker delivers",
  },
}
