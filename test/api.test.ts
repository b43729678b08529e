// The election API in Node: fencing tokens, the APP frame kind, and a cluster of drivers in
// memory (real timers, short timing) with the application API on each.
import { descriptorOf } from "../src/core/algorithms"
import { performance } from "node:perf_hooks"
import { afterEach, describe, expect, test } from "vitest"
import { Election } from "../src/api/election-api"
import { AUTH_TRAILER_BYTES } from "../src/core/auth"
import { appFrameError, CodecError, decodeFrame, encodeFrame, packPayload, unpackPayload } from "../src/core/codec"
import { compareTokens, FenceGate, formatToken, makeToken, TokenIssuer } from "../src/core/fencing"
import { Algorithm, APP_ORDER, BROADCAST, Kind, makeFrame, MAX_APP_PAYLOAD, MAX_FRAME_BYTES } from "../src/core/frame"
import { Role } from "../src/core/contract"
import { configProblems, type FirmwareConfig } from "../src/firmware/config"
import { type FrameTransport, NodeDriver, type Platform } from "../src/firmware/driver"
import { newKeyHex, nodeMac, nodeRandom32 } from "../sim/auth/keys"

describe("fencing tokens", () => {
  test("epoch first, by serial-number arithmetic, then holder", () => {
    expect(compareTokens(makeToken(5, 1), makeToken(4, 9))).toBeGreaterThan(0)
    expect(compareTokens(makeToken(5, 1), makeToken(5, 2))).toBeLessThan(0)
    expect(compareTokens(makeToken(5, 2), makeToken(5, 2))).toBe(0)
    // 0 follows 2^32 - 1: the epoch wrapped
    expect(compareTokens(makeToken(0, 1), makeToken(4294967295, 9))).toBeGreaterThan(0)
  })

  test("the gate accepts a token at least the highest, refuses and counts a lower one", () => {
    const gate = new FenceGate()
    expect(gate.offer(makeToken(3, 2))).toBe(true)
    expect(gate.offer(makeToken(3, 2))).toBe(true)
    expect(gate.offer(makeToken(2, 9))).toBe(false)
    expect(gate.offer(makeToken(3, 1))).toBe(false)
    expect(gate.offer(makeToken(4, 1))).toBe(true)
    expect(gate.offer(makeToken(3, 2))).toBe(false)
    expect([gate.accepted, gate.refused, formatToken(gate.highest)]).toEqual([3, 3, "4.1"])
    gate.note(makeToken(6, 3))
    expect([gate.accepted, gate.admits(makeToken(5, 9)), gate.admits(makeToken(6, 3))]).toEqual([3, false, true])
  })

  test("one holder issues strictly increasing tokens, above what it accepted", () => {
    const issuer = new TokenIssuer(2)
    expect(formatToken(issuer.issue(4, null))).toBe("4.2")
    // the role taken again in the same epoch: the token still moves on
    expect(formatToken(issuer.issue(4, null))).toBe("5.2")
    // an epoch behind what this process accepted (a board booted into epoch 1)
    expect(formatToken(issuer.issue(1, makeToken(7, 3)))).toBe("8.2")
    expect(formatToken(issuer.issue(9, makeToken(7, 3)))).toBe("9.2")
  })
})

function appFrame(payload: number[], order = false) {
  const f = makeFrame(Kind.APP, Algorithm.Bully, 1, 7, 3, BROADCAST)
  f.initiator = payload.length
  f.list = packPayload(payload)
  f.bid = order ? APP_ORDER : 0
  f.seq = 1
  return f
}

describe("APP frames", () => {
  test("payloads of every length round-trip, odd ones padded", () => {
    for (const n of [0, 1, 2, 3, 197, MAX_APP_PAYLOAD]) {
      const payload = Array.from({ length: n }, (_, i) => (i * 37 + 11) % 256)
      const frame = appFrame(payload, n % 2 === 1)
      expect(appFrameError(frame)).toBe(CodecError.None)
      const encoded = encodeFrame(frame)
      expect(encoded.error).toBe(CodecError.None)
      const decoded = decodeFrame(encoded.bytes)
      expect(decoded.error).toBe(CodecError.None)
      expect(unpackPayload(decoded.frame)).toEqual(payload)
      expect(decoded.frame.bid).toBe(n % 2 === 1 ? APP_ORDER : 0)
    }
  })

  test("the largest payload fits one Jacdac packet with the auth trailer", () => {
    const bytes = encodeFrame(appFrame(new Array(MAX_APP_PAYLOAD).fill(255))).bytes
    expect(bytes.length + AUTH_TRAILER_BYTES).toBeLessThanOrEqual(MAX_FRAME_BYTES)
    expect(appFrameError(appFrame(new Array(MAX_APP_PAYLOAD + 1).fill(1)))).toBe(CodecError.Payload)
  })

  test("malformed APP frames decode (the layout is sound) but break the APP rules", () => {
    const good = () => encodeFrame(appFrame([1, 2, 3])).bytes
    const cases: [string, (b: number[]) => void][] = [
      ["length longer than the list", (b) => (b[13] = 5)],
      ["length shorter than the list", (b) => (b[13] = 1)],
      ["odd length with a non-zero pad", (b) => (b[b.length - 1] = 9)],
      ["an unknown flag", (b) => (b[17] = 2)],
    ]
    for (const [name, spoil] of cases) {
      const b = good()
      spoil(b)
      const decoded = decodeFrame(b)
      expect(decoded.error, name).toBe(CodecError.None)
      expect(appFrameError(decoded.frame), name).toBe(CodecError.Payload)
    }
  })
})

// ---- a cluster of drivers in memory ----

const TIMING = { answerTimeout: 40, coordinatorTimeout: 80, heartbeatInterval: 50, failureTimeout: 200, failureDetector: "fixed" }

class MemoryNet {
  drivers: NodeDriver[] = []
  /** Delivered a tick later, as a bus would: no re-entry into a sender's handler. */
  deliver(to: (d: NodeDriver) => boolean, bytes: Buffer) {
    const copy = Buffer.from(bytes)
    for (const d of this.drivers) if (to(d)) setTimeout(() => void d.receive(copy), 1)
  }
}

class MemoryTransport implements FrameTransport {
  constructor(
    private net: MemoryNet,
    private me: number,
  ) {}
  async unicast(dst: number, bytes: Buffer) {
    this.net.deliver((d) => d.config.nodeId === dst, bytes)
  }
  async broadcast(bytes: Buffer) {
    this.net.deliver((d) => d.config.nodeId !== this.me, bytes)
  }
}

interface Member {
  election: Election
  lines: string[]
  events: string[]
  messages: string[]
}

function cluster(ids: number[], key?: string): { net: MemoryNet; members: Map<number, Member> } {
  const net = new MemoryNet()
  const members = new Map<number, Member>()
  const t0 = performance.now()
  for (const id of ids) {
    const lines: string[] = []
    const platform: Platform = { now: () => performance.now() - t0, print: (l) => lines.push(l), makeMac: nodeMac, random32: nodeRandom32 }
    const config: FirmwareConfig = {
      nodeId: id,
      ids,
      algorithm: Algorithm.Bully,
      group: 1,
      timing: TIMING,
      buttonPin: -1,
      suitability: 0,
      transport: 0,
      mqttHost: "",
      mqttPort: 0,
      topicPrefix: "t",
      authKey: key,
    }
    const driver = new NodeDriver(config, configProblems(config), platform, descriptorOf(config.algorithm))
    driver.transport = new MemoryTransport(net, id)
    net.drivers.push(driver)
    const spawn = (fn: () => Promise<void>): void => void fn().catch((e) => lines.push(`spawn threw ${e}`))
    const election = new Election(driver, spawn, (d) => d.start())
    const m: Member = { election, lines, events: [], messages: [] }
    election.onBecomeCoordinator((t) => void m.events.push(`become ${formatToken(t)}`))
    election.onLoseCoordinator((t) => void m.events.push(`lose ${formatToken(t)}`))
    election.onMessage((msg) =>
      void m.messages.push(`${msg.order ? "order" : "msg"} from ${msg.from} ${msg.token ? formatToken(msg.token) + " " : ""}${msg.data.toString()}`),
    )
    members.set(id, m)
  }
  return { net, members }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

async function until(what: string, ok: () => boolean, ms = 3000) {
  const end = performance.now() + ms
  while (!ok()) {
    if (performance.now() > end) throw new Error(`timed out waiting for ${what}`)
    await sleep(10)
  }
}

const started: NodeDriver[][] = []
afterEach(async () => {
  // crash every node: no timer of a finished test keeps running
  for (const drivers of started.splice(0)) for (const d of drivers) await d.setCrashed(true)
})

describe.each([
  ["without a key", undefined],
  ["with a key (sealed frames)", newKeyHex()],
])("the API over drivers in memory, %s", (_, key) => {
  test("events, tokens, orders fenced, whileCoordinator stopped on losing the role", async () => {
    const { net, members } = cluster([1, 2, 3], key)
    started.push(net.drivers)
    const m1 = members.get(1)!
    const m2 = members.get(2)!
    const m3 = members.get(3)!
    const duties: string[] = []
    m3.election.whileCoordinator(async (duty) => {
      duties.push(`start ${formatToken(duty.token)}`)
      while (duty.active()) await sleep(10)
      duties.push(`stop ${formatToken(duty.token)}`)
    })
    await Promise.all([...members.values()].map((m) => m.election.start()))
    await until("3 leads", () => m3.election.isCoordinator() && m1.election.coordinator() === 3 && m2.election.coordinator() === 3)
    const first = m3.election.token()!
    expect(first.holder).toBe(3)
    expect(m3.events).toEqual([`become ${formatToken(first)}`])
    await until("the task runs", () => duties.length === 1)

    // a follower's message reaches the coordinator; the coordinator's broadcast is an order
    expect(await m1.election.sendToCoordinator(Buffer.from("r=21"))).toBe(true)
    await until("3 hears 1", () => m3.messages.length === 1)
    expect(m3.messages).toEqual(["msg from 1 r=21"])
    expect(await m3.election.broadcast(Buffer.from("sum"))).toBe(true)
    await until("1 and 2 take the order", () => m1.messages.length === 1 && m2.messages.length === 1)
    expect(m1.messages).toEqual([`order from 3 ${formatToken(first)} sum`])
    // the coordinator hands its own reading to itself
    expect(await m3.election.sendToCoordinator(Buffer.from("r=30"))).toBe(true)
    await until("3 hears itself", () => m3.messages.length === 2)

    // 3 crashes: its task stops, 2 takes over with a newer token
    await m3.election.setCrashed(true)
    expect(m3.events).toEqual([`become ${formatToken(first)}`, `lose ${formatToken(first)}`])
    expect(m3.election.token()).toBeNull()
    await until("the task stops", () => duties.length === 2)
    expect(duties).toEqual([`start ${formatToken(first)}`, `stop ${formatToken(first)}`])
    await until("2 leads", () => m2.election.isCoordinator() && m1.election.coordinator() === 2)
    const second = m2.election.token()!
    expect(compareTokens(second, first)).toBeGreaterThan(0)
    expect(await m2.election.broadcast(Buffer.from("sum2"))).toBe(true)
    await until("1 takes 2's order", () => m1.messages.length === 2)
    expect(m1.messages[1]).toBe(`order from 2 ${formatToken(second)} sum2`)

    // a late order of the old coordinatorship (sent while 3 still led, delayed): refused, counted
    const stale = makeFrame(Kind.APP, Algorithm.Bully, 1, first.epoch, 3, BROADCAST)
    stale.initiator = 2
    stale.list = packPayload([0x6f, 0x6c])
    stale.bid = APP_ORDER
    const before = m1.election.counters()
    await m3.election.setCrashed(false)
    await m3.election.driver.sendApp(stale)
    await until("1 refuses it", () => m1.election.counters().refused === before.refused + 1)
    expect(m1.messages).toHaveLength(2)
    expect(m1.lines.some((l) => / app .*k=order from=3 tok=/.test(l) && l.endsWith("ok=0"))).toBe(true)
    expect(m1.election.counters()).toEqual({ ...before, refused: before.refused + 1 })
  }, 15_000)
})

test("a follower that took a newer token tells its coordinator, which leads on with a token above", async () => {
  const { net, members } = cluster([1, 2, 3])
  started.push(net.drivers)
  const [m1, m2, m3] = [members.get(1)!, members.get(2)!, members.get(3)!]
  await Promise.all([...members.values()].map((m) => m.election.start()))
  await until("3 leads", () => m3.election.isCoordinator() && m1.election.coordinator() === 3 && m2.election.coordinator() === 3)
  const first = m3.election.token()!
  // 1 once took the orders of a coordinatorship the election gave a later epoch (a healed partition)
  m1.election.gate.note(makeToken(first.epoch + 5, 2))
  expect(await m3.election.broadcast(Buffer.from("x"))).toBe(true)
  await until("1 refuses, 2 accepts", () => m1.election.counters().refused === 1 && m2.messages.length === 1)
  await until("3 raises its token", () => compareTokens(m3.election.token()!, first) > 0)
  expect(formatToken(m3.election.token())).toBe(`${first.epoch + 6}.3`)
  expect(m3.lines.some((l) => l.includes(` token `) && l.includes(`tok=${first.epoch + 6}.3 fenced-by=1`))).toBe(true)
  expect(await m3.election.broadcast(Buffer.from("y"))).toBe(true)
  await until("1 and 2 accept the raised token", () => m1.messages.length === 1 && m2.messages.length === 2)
  expect(m1.messages).toEqual([`order from 3 ${first.epoch + 6}.3 y`])
  expect(m1.election.counters()).toMatchObject({ accepted: 1, refused: 1 })
}, 15_000)

test("a malformed APP frame is dropped and counted by the driver", async () => {
  const { net, members } = cluster([1, 2])
  started.push(net.drivers)
  const m1 = members.get(1)!
  await Promise.all([...members.values()].map((m) => m.election.start()))
  const bytes = encodeFrame(appFrame([1, 2, 3])).bytes
  bytes[8] = 0
  bytes[9] = 2 // from 2, a member
  bytes[13] = 5 // length disagrees with the list
  await m1.election.driver.receive(Buffer.from(bytes))
  expect(m1.election.driver.dropped[CodecError.Payload]).toBe(1)
  expect(m1.messages).toEqual([])
  expect(m1.lines.some((l) => l.includes(" drop ") && l.includes("why=payload"))).toBe(true)
})
