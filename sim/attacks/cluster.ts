// A cluster for the attack catalogue: real firmware drivers (src/firmware/driver.ts), each with
// its real core node and FrameAuth layer, on one shared in-memory wire that an attacker can
// record, inject into and intercept. Time is the caller's: the drivers arm ordinary timers,
// so the caller runs them under fake timers and moves the clock with `advance`.

import { createHash } from "node:crypto"
import { parseKeyHex } from "../../src/core/auth"
import { Algorithm, BROADCAST, FRAME_HEADER_BYTES } from "../../src/core/frame"
import { Role } from "../../src/core/contract"
import { defaultTiming } from "../../src/core/timing"
import { type FirmwareConfig, TRANSPORT_MQTT } from "../../src/firmware/config"
import { type FrameTransport, type NodeDriver, type Platform } from "../../src/firmware/driver"
import { hostDriver } from "../node/host-node"
import { nodeMac } from "../auth/keys"

/** One frame on the wire, as the attacker records it. */
export interface WireFrame {
  /** Clock when it was sent. */
  at: number
  /** Sending node (as the wire saw it), or -1 for the attacker. */
  from: number
  /** Destination node, or BROADCAST. */
  to: number
  bytes: number[]
}

/** What the attacker does with a frame in flight: deliver it, drop it, or deliver it later. */
export type Intercept = (f: WireFrame) => "pass" | "drop" | number

/** One board's slot: its current driver (a reboot replaces it) and what it reported. */
export class Board {
  driver: NodeDriver
  log: string[] = []
  /** Role reports since `watchFrom`, as "role/coordinator". */
  reports: { at: number; role: Role; coordinator: number }[] = []
  boots = 0
  /** Powered on: frames reach it and its own go out. */
  on = false
  constructor(readonly id: number) {}
}

export interface ClusterOptions {
  algorithm: Algorithm
  ids?: number[]
  /** 64 hex digits; null: no key (frames unauthenticated). */
  key: string | null
  /** One-way delay of every frame, ms. */
  delay?: number
  /** Seed of the nodes' random numbers (nonces, challenges, jitter): an earlier run differs. */
  seed?: number
  /** The election group (GROUP); 1 unless another lab's. */
  group?: number
  /** The failure detector; the fixed one unless "adaptive". */
  detector?: "fixed" | "adaptive"
}

export const ATTACK_KEY = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff"

/** Deterministic 32-bit numbers from a label (no two boots alike). */
function randomFrom(label: string): () => number {
  let n = 0
  return () => createHash("sha256").update(`${label}/${n++}`).digest().readUInt32BE(0)
}

export class Cluster {
  readonly boards: Board[]
  readonly ids: number[]
  readonly delay: number
  /** Every frame sent on the wire by the nodes, in order. */
  readonly recorded: WireFrame[] = []
  intercept: Intercept | null = null
  private readonly batches = new Map<number, WireFrame[]>()
  private readonly t0 = Date.now()

  constructor(readonly options: ClusterOptions) {
    this.ids = options.ids ?? [1, 2, 3]
    this.delay = options.delay ?? 5
    this.boards = this.ids.map((id) => new Board(id))
  }

  now(): number {
    return Date.now() - this.t0
  }

  /** The highest id: the coordinator once the cluster has settled. */
  highest(): number {
    return this.ids[this.ids.length - 1]
  }

  config(id: number): FirmwareConfig {
    const c: FirmwareConfig = {
      nodeId: id,
      ids: this.ids,
      algorithm: this.options.algorithm,
      group: this.options.group ?? 1,
      timing: { ...defaultTiming("bus"), failureDetector: this.options.detector ?? "fixed" },
      buttonPin: -1,
      suitability: id * 10,
      transport: TRANSPORT_MQTT,
      mqttHost: "",
      mqttPort: 1883,
      topicPrefix: "electlab",
    }
    if (this.options.key) c.authKey = this.options.key
    return c
  }

  board(id: number): Board {
    const b = this.boards.find((x) => x.id === id)
    if (!b) throw new Error(`attack cluster: no node ${id}`)
    return b
  }

  /** Starts (or restarts, with a new boot nonce) the board's driver. */
  async boot(id: number, extra?: Board): Promise<NodeDriver> {
    const board = extra ?? this.board(id)
    board.boots++
    const label = `${this.options.seed ?? 0}/${id}/${board.boots}/${extra ? "extra" : "member"}`
    const platform: Platform = {
      now: () => this.now(),
      print: (line) => {
        if (board.driver === driver) board.log.push(line)
      },
      makeMac: nodeMac,
      random32: randomFrom(label),
    }
    const driver: NodeDriver = hostDriver(this.config(id), platform, [])
    const transport: FrameTransport = {
      unicast: async (dst, bytes) => {
        if (board.driver === driver && board.on) this.send({ at: this.now(), from: id, to: dst, bytes: [...bytes] })
      },
      broadcast: async (bytes) => {
        if (board.driver === driver && board.on) this.send({ at: this.now(), from: id, to: BROADCAST, bytes: [...bytes] })
      },
    }
    driver.transport = transport
    driver.observer = {
      roleChanged: (role, coordinator) => {
        if (board.driver === driver && board.on) board.reports.push({ at: this.now(), role, coordinator })
      },
    }
    board.driver = driver
    board.on = true
    if (extra && !this.boards.includes(extra)) this.boards.push(extra)
    await driver.start()
    return driver
  }

  /** Powers the board off: nothing reaches it and nothing it sends goes out until `boot`. */
  powerOff(id: number) {
    this.board(id).on = false
  }

  async bootAll() {
    for (const id of this.ids) await this.boot(id)
  }

  /** A node's frame onto the wire: recorded, then delivered after the delay (unless intercepted). */
  private send(f: WireFrame) {
    this.recorded.push(f)
    const verdict = this.intercept ? this.intercept(f) : "pass"
    if (verdict === "drop") return
    this.deliverLater(f, this.delay + (verdict === "pass" ? 0 : verdict))
  }

  /** Delivers bytes as the wire would: to `to` (every board with that id), or to all but `from`. */
  deliverLater(f: WireFrame, after: number) {
    // one timer per delivery time: a flood of thousands of frames stays cheap to simulate
    const due = this.now() + after
    const batch = this.batches.get(due)
    if (batch) {
      batch.push(f)
      return
    }
    this.batches.set(due, [f])
    setTimeout(async () => {
      const frames = this.batches.get(due) ?? []
      this.batches.delete(due)
      for (const g of frames) await this.deliverNow(g)
    }, after)
  }

  private async deliverNow(f: WireFrame) {
    for (const b of this.boards) {
      if (!b.on) continue
      if (f.to === BROADCAST ? b.id === f.from && f.from >= 0 : b.id !== f.to) continue
      await b.driver.receive(Buffer.from(f.bytes))
    }
  }

  /** The coordinator each node names, with -1 for a node that is not follower or coordinator. */
  coordinators(): number[] {
    return this.boards.map((b) =>
      !b.on ? -1 : b.driver.role() === Role.Follower || b.driver.role() === Role.Coordinator ? b.driver.coordinator() : -1,
    )
  }

  /** Forgets the reports so far: what follows is what the attack caused. */
  watch() {
    for (const b of this.boards) b.reports = []
  }

  /** Kind of a recorded election frame (unsealed byte 1), or "challenge"/"proof" for control frames. */
  static kindOf(bytes: number[]): string {
    if (bytes[0] === 0xa5) return bytes[1] === 1 ? "challenge" : "proof"
    return bytes.length >= FRAME_HEADER_BYTES ? `kind${bytes[1]}` : "short"
  }
}

export function keyBytes(): number[] {
  return parseKeyHex(ATTACK_KEY)!
}
