// Host nodes over a real mosquitto started by the test (no mock broker). The mixed cluster of
// VMs and a host node is in lab.test.ts, which owns the bus port.
import { afterAll, beforeAll, describe, expect, test } from "vitest"
import { Algorithm } from "../src/core/frame"
import { Role } from "../src/core/contract"
import { TRANSPORT_MQTT } from "../src/firmware/config"
import { Broker, freePort } from "../sim/lab/broker"
import { type HostNode, startHostNode } from "../sim/node/host-node"
import { sleep, until as waitUntil } from "../sim/lab/wait"
import { HostLateness } from "./lateness"

/** Waits until `check` holds; the ms it took. */
async function until(what: string, check: () => boolean, timeoutMs: number): Promise<number> {
  const t0 = Date.now()
  await waitUntil(what, () => (check() ? true : null), timeoutMs, 10)
  return Date.now() - t0
}

describe("host nodes over a real broker", () => {
  let broker: Broker
  const nodes = new Map<number, HostNode>()
  const ids = [1, 2, 3]
  // A failure timeout far longer than the test's limits: only the last will can explain a quick failover.
  const timing = { heartbeatInterval: 200, failureTimeout: 20_000, answerTimeout: 200, coordinatorTimeout: 400 }
  /** How late the host ran timers, for the message of the one time asserted. */
  const late = new HostLateness()

  async function start(id: number) {
    nodes.set(
      id,
      await startHostNode({
        broker: broker.url,
        print: () => undefined,
        config: {
          nodeId: id,
          ids,
          algorithm: Algorithm.ImprovedBully,
          group: 1,
          timing,
          buttonPin: -1,
          suitability: 0,
          transport: TRANSPORT_MQTT,
          mqttHost: "127.0.0.1",
          mqttPort: broker.port,
          topicPrefix: "electlab-test",
        },
      }),
    )
  }

  const live = () => [...nodes.values()].map((n) => n.driver)
  const agreeOn = (c: number) =>
    live().every((d) => d.coordinator() === c && d.role() === (d.config.nodeId === c ? Role.Coordinator : Role.Follower))

  beforeAll(async () => {
    broker = new Broker(await freePort())
    await broker.start()
    for (const id of ids) await start(id)
  })
  afterAll(async () => {
    for (const n of nodes.values()) await n.stop()
    await broker.dispose()
    await late.stop()
  })

  // the deadlines are generous (a busy host), but shorter than the failure timeout where only the last will may explain a failover
  test("three host nodes agree on the highest", async () => {
    await until("agreement on 3", () => agreeOn(3), 30_000)
  })

  test("the coordinator's connection drops: its last will starts the failover at once", async () => {
    late.reset()
    await nodes.get(3)!.stop() // socket closed without DISCONNECT: the broker publishes the will
    nodes.delete(3)
    const ms = await until("agreement on 2", () => agreeOn(2), timing.failureTimeout / 2)
    expect(ms, late.describe()).toBeLessThan(timing.failureTimeout / 10)
  })

  test("a broker restart is survived: the nodes reconnect and fail over again", async () => {
    await start(3)
    await until("agreement on 3 again", () => agreeOn(3), 30_000)
    await broker.stop()
    await sleep(1000)
    await broker.start()
    // reconnected: frames flow again (the coordinator's heartbeats reach both followers; at
    // steady state a coordinator hears nothing, its own broadcasts do not count), so the will
    // of the next drop reaches the others
    const followers = () => live().filter((d) => d.config.nodeId !== 3)
    const before = followers().map((d) => d.framesReceived)
    const sentBefore = nodes.get(3)!.driver.framesSent
    await until(
      "frames after the restart",
      () => followers().every((d, i) => d.framesReceived > before[i]) && nodes.get(3)!.driver.framesSent > sentBefore,
      30_000,
    )
    await nodes.get(3)!.stop()
    nodes.delete(3)
    await until("agreement on 2 after the restart", () => agreeOn(2), timing.failureTimeout / 2)
  }, 120_000)
})

describe("a leave's check over a real broker (MQTT 5)", () => {
  let broker: Broker
  const nodes: HostNode[] = []
  const logs = new Map<number, string[]>()
  const ids = [1, 2, 3]
  // T long enough that only the broker's word can end a check early (no round trip is measured yet)
  const timing = { heartbeatInterval: 200, failureTimeout: 20_000, answerTimeout: 4000, coordinatorTimeout: 8000 }
  const authKey = "5a".repeat(32)

  async function start(id: number) {
    const log: string[] = []
    logs.set(id, log)
    const node = await startHostNode({
      broker: broker.url,
      print: (line) => log.push(line),
      config: {
        nodeId: id, ids, algorithm: Algorithm.ImprovedBully, group: 1, timing, buttonPin: -1, suitability: 0,
        transport: TRANSPORT_MQTT, mqttHost: "127.0.0.1", mqttPort: broker.port, topicPrefix: "electlab-check", authKey,
      },
    })
    await node.ready
    nodes.push(node)
    return node
  }

  beforeAll(async () => {
    broker = new Broker(await freePort())
    await broker.start()
  })
  afterAll(async () => {
    for (const n of nodes) await n.stop()
    await broker.dispose()
  })

  test("a leave of a node nobody receives is taken on the broker's acknowledgement, not after the wait", async () => {
    const one = await start(1)
    const t0 = Date.now()
    // node 3 never connected: the challenge to it finds no subscriber
    await one.driver.peerLeft(3)
    await until("the verdict on 3", () => logs.get(1)!.some((l) => l.includes("left") && l.includes("peer=3 verdict=silent")), timing.answerTimeout / 2)
    expect(Date.now() - t0).toBeLessThan(timing.answerTimeout)
    expect(logs.get(1)!.some((l) => l.includes("hint") && l.includes("unreachable=3"))).toBe(true)
  })

  test("a forged leave of a connected node waits for its proof: the broker delivered the challenge", async () => {
    await start(3)
    const one = nodes[0]
    await until("agreement on 3", () => one.driver.coordinator() === 3, 30_000)
    const before = logs.get(1)!.length
    const late = new HostLateness()
    await one.driver.peerLeft(3)
    await until("the verdict on 3", () => logs.get(1)!.slice(before).some((l) => l.includes("peer=3 verdict=")), 2 * timing.answerTimeout)
    const after = logs.get(1)!.slice(before)
    const at = (l: string | undefined) => Number(/ t=([\d.]+)/.exec(l ?? "")?.[1])
    const hint = after.find((l) => l.includes("left=3 check=challenge"))
    const wait = Number(/wait=(\d+)/.exec(hint ?? "")?.[1])
    const verdict = after.find((l) => l.includes("peer=3 verdict="))!
    const seen = `node 1 after the leave:\n${after.join("\n")}\nnode 3, last lines:\n${logs.get(3)!.slice(-20).join("\n")}\n${late.describe()}`
    await late.stop()
    expect(after.some((l) => l.includes("unreachable=3")), seen).toBe(false)
    // the broker did not end the check: it ran its whole wait, and the proof came within it
    expect(at(verdict) - at(hint), seen).toBeGreaterThanOrEqual(wait - 1)
    expect(verdict, seen).toContain("verdict=alive")
    expect(one.driver.coordinator(), seen).toBe(3)
  }, 30_000)
})
