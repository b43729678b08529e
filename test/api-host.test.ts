// The election API on a host: the package entry (`import { joinElection } from "electlab"`),
// its option checks, and three host programs electing over mosquitto with the same events,
// tokens and fenced orders as programs on boards (test/ci/package-install.test.ts joins one, installed, to VMs).
import { execFileSync } from "node:child_process"
import { afterAll, beforeAll, describe, expect, test } from "vitest"
import { compareTokens, formatToken, type HostElection, hostConfig, joinElection } from "../sim/node/library"
import { newKeyHex } from "../sim/auth/keys"
import { Broker, freePort } from "../sim/lab/broker"

test("the package's entry exports joinElection", () => {
  const out = execFileSync(process.execPath, ["--input-type=module", "-e", 'const m = await import("electlab"); console.log(typeof m.joinElection, typeof m.FenceGate)'], {
    encoding: "utf8",
  })
  expect(out.trim()).toBe("function function")
})

describe("joinElection's options", () => {
  const good = { broker: "mqtt://127.0.0.1:1883", id: 1, ids: [1, 2, 3] }
  test.each([
    ["a broker that is no URL", { broker: "localhost" }, /joinElection: broker: 'localhost' is not mqtt:\/\/HOST:PORT/],
    ["an unknown algorithm", { algorithm: "raft" }, /joinElection: algorithm: unknown 'raft'/],
    ["an id outside ids", { id: 4 }, /joinElection: node 4 is not in NODE_IDS/],
    ["a key that is no key", { key: "abc" }, /joinElection: key: not 64 hex digits/],
  ])("%s is refused by name", (_, patch, message) => {
    expect(() => hostConfig({ ...good, ...patch })).toThrow(message)
  })

  test("defaults: improved-bully, group 1, the WiFi timing", () => {
    const c = hostConfig(good)
    expect([c.algorithm, c.group, c.timing.heartbeatInterval, c.timing.failureTimeout]).toEqual([2, 1, 250, 800])
  })
})

describe("host programs over mosquitto", () => {
  let broker: Broker
  const key = newKeyHex()
  const timing = { answerTimeout: 100, coordinatorTimeout: 200, heartbeatInterval: 100, failureTimeout: 400, failureDetector: "fixed" }
  const members: HostElection[] = []

  beforeAll(async () => {
    broker = new Broker(await freePort())
    await broker.start()
  })
  afterAll(async () => {
    for (const m of members) await m.leave()
    await broker.stop()
  })

  // generous: three host programs on a busy host (nothing here is timed)
  const until = async (what: string, ok: () => boolean, ms = 30_000) => {
    const end = Date.now() + ms
    while (!ok()) {
      if (Date.now() > end) throw new Error(`timed out waiting for ${what}`)
      await new Promise((r) => setTimeout(r, 20))
    }
  }

  test("events, tokens and fenced orders as on the boards; the next coordinator's token is newer", async () => {
    const prefix = `api-${process.pid}`
    const events = new Map<number, string[]>()
    const orders = new Map<number, string[]>()
    for (const id of [1, 2, 3]) {
      events.set(id, [])
      orders.set(id, [])
      const e = await joinElection({ broker: broker.url, id, ids: [1, 2, 3], algorithm: "bully", timing, key, prefix })
      e.onBecomeCoordinator((t) => void events.get(id)!.push(`become ${formatToken(t)}`))
      e.onLoseCoordinator((t) => void events.get(id)!.push(`lose ${formatToken(t)}`))
      e.onMessage((m) => void (m.order && orders.get(id)!.push(`${m.from} ${formatToken(m.token)} ${m.data.toString()}`)))
      members.push(e)
    }
    const [m1, m2, m3] = members
    await until("3 leads", () => m3.isCoordinator() && m1.coordinator() === 3 && m2.coordinator() === 3)
    const first = m3.token()!
    expect(first.holder).toBe(3)
    expect(await m3.broadcast(Buffer.from("a"))).toBe(true)
    await until("1 and 2 take 3's order", () => orders.get(1)!.length === 1 && orders.get(2)!.length === 1)
    expect(orders.get(1)).toEqual([`3 ${formatToken(first)} a`])

    await m3.leave()
    await until("2 leads", () => m2.isCoordinator() && m1.coordinator() === 2)
    const second = m2.token()!
    expect(compareTokens(second, first)).toBeGreaterThan(0)
    expect(events.get(3)).toEqual([`become ${formatToken(first)}`, `lose ${formatToken(first)}`])
    expect(events.get(2)).toEqual([`become ${formatToken(second)}`])
    expect(await m2.broadcast(Buffer.from("b"))).toBe(true)
    await until("1 takes 2's order", () => orders.get(1)!.length === 2)
    expect(orders.get(1)![1]).toBe(`2 ${formatToken(second)} b`)
    expect(m1.counters()).toEqual({ sent: 0, received: 0, accepted: 2, refused: 0 })
  }, 180_000)
})
