// The WiFi lab's mosquitto with a password per node and per-client topic rights
// (sim/lab/broker-access.ts), with host nodes that log in and a rogue client that tries not to;
// a member's login that tries to publish another node's leave or take its client id.
import mqtt from "mqtt"
import { afterAll, beforeAll, describe, expect, test } from "vitest"
import { Algorithm } from "../src/core/frame"
import { Role } from "../src/core/contract"
import { TRANSPORT_MQTT } from "../src/firmware/config"
import { leaveTopic, leaveTopicId, leaveTopics, leftNode } from "../src/firmware/topics"
import { aclText, nodeUser, OBSERVER_USER } from "../sim/lab/broker-access"
import { Broker, freePort } from "../sim/lab/broker"
import { type HostNode, startHostNode } from "../sim/node/host-node"
import { sleep, until } from "../sim/lab/wait"

const PREFIX = "electlab"
const ids = [1, 2, 3]

test("the ACL gives each node its own topic to read, frames and its own leave to write, nothing else", () => {
  const text = aclText({ prefix: PREFIX, group: 1, ids: [1, 2] })
  const block = text.split("user ")[1]
  expect(block.trim().split("\n")).toEqual([
    "node-1",
    "topic read electlab/1/node/1/frame",
    "topic read electlab/1/all/frame",
    "topic read electlab/1/leave/#",
    "topic write electlab/1/all/frame",
    "topic write electlab/1/node/+/frame",
    "topic write electlab/1/leave/1",
  ])
  expect(text.split("user ")[2]).toContain("topic write electlab/1/leave/2\n")
  expect(text).toContain("user observer\ntopic read electlab/1/#")
  expect(text).toContain("user web\ntopic read electlab/1/#")
})

test("leave topics: one per node; the id comes from the topic and the payload must agree", () => {
  expect(leaveTopic(PREFIX, 1, 3)).toBe("electlab/1/leave/3")
  expect(leaveTopics(PREFIX, 1)).toBe("electlab/1/leave/#")
  expect(leaveTopicId(PREFIX, 1, "electlab/1/leave/12")).toBe(12)
  expect(leaveTopicId(PREFIX, 1, "electlab/2/leave/12")).toBe(-1)
  expect(leaveTopicId(PREFIX, 1, "electlab/1/leave/")).toBe(-1)
  expect(leaveTopicId(PREFIX, 1, "electlab/1/leave/1/x")).toBe(-1)
  expect(leaveTopicId(PREFIX, 1, "electlab/1/leave/65535")).toBe(-1)
  expect(leaveTopicId(PREFIX, 1, "electlab/1/leave")).toBe(-1)
  expect(leftNode(PREFIX, 1, "electlab/1/leave/3", "3")).toBe(3)
  expect(leftNode(PREFIX, 1, "electlab/1/leave/3", "2")).toBe(-1)
  expect(leftNode(PREFIX, 1, "electlab/1/leave/3", "3,2")).toBe(-1)
  expect(leftNode(PREFIX, 1, "electlab/1/leave/3", "")).toBe(-1)
})

describe("a broker that checks passwords and topic rights", () => {
  let broker: Broker
  const nodes: HostNode[] = []
  /** Each host node's "EL left" lines: the leaves it acted on. */
  const lefts: string[][] = ids.map((): string[] => [])
  const timing = { heartbeatInterval: 200, failureTimeout: 1000, answerTimeout: 200, coordinatorTimeout: 400 }

  beforeAll(async () => {
    broker = new Broker(await freePort(), { prefix: PREFIX, group: 1, ids })
    await broker.start()
    for (const id of ids) {
      const c = broker.credentials!.get(nodeUser(id))!
      nodes.push(
        await startHostNode({
          broker: broker.url,
          print: (line) => {
            if (line.startsWith("EL left ")) lefts[id - 1].push(line)
          },
          config: {
            nodeId: id, ids, algorithm: Algorithm.ImprovedBully, group: 1, timing, buttonPin: -1, suitability: 0,
            transport: TRANSPORT_MQTT, mqttHost: "127.0.0.1", mqttPort: broker.port, topicPrefix: PREFIX,
            mqttUser: c.username, mqttPassword: c.password,
          },
        }),
      )
    }
  })
  afterAll(async () => {
    for (const n of nodes.slice(1)) await n.stop()
    await broker.dispose()
  })

  test("nodes with their passwords elect the highest", async () => {
    const t0 = Date.now()
    // 3 names itself while it claims the role: wait for it to hold it (generous: a busy host)
    while (!nodes.every((n) => n.driver.coordinator() === 3) || nodes[2].driver.role() !== Role.Coordinator) {
      if (Date.now() - t0 > 30_000) throw new Error("no agreement on 3")
      await sleep(20)
    }
    expect(nodes[2].driver.role()).toBe(Role.Coordinator)
  })

  test("a client without a password is turned away", async () => {
    const anonymous = mqtt.connect(broker.url, { clientId: "rogue-anonymous", reconnectPeriod: 0 })
    const error = await new Promise<Error>((resolve) => anonymous.once("error", resolve))
    expect(error.message).toMatch(/Not authorized|Bad username or password/i)
    await anonymous.endAsync(true)
  })

  /** The observer's login, subscribed to the whole group: what the broker lets through. */
  async function watch() {
    const obs = broker.credentials!.get(OBSERVER_USER)!
    const observer = await mqtt.connectAsync(broker.url, { clientId: "obs", username: obs.username, password: obs.password })
    const observed: { topic: string; payload: string }[] = []
    observer.on("message", (topic, payload) => observed.push({ topic, payload: payload.toString() }))
    await observer.subscribeAsync(`${PREFIX}/1/#`)
    return { observer, observed }
  }

  test("an anonymous client cannot publish a leave", async () => {
    const anonymous = mqtt.connect(broker.url, { clientId: "electlab-1-3", reconnectPeriod: 0 })
    const error = await new Promise<Error>((resolve) => anonymous.once("error", resolve))
    expect(error.message).toMatch(/Not authorized|Bad username or password/i)
    await anonymous.endAsync(true)
    expect(nodes[2].driver.role()).toBe(Role.Coordinator)
  })

  test("a member's login can publish its own leave, not another node's, and cannot take another node's client id", async () => {
    // node 1's login: the broker gives it node 1's session, so the host node 1 steps aside
    await nodes[0].stop()
    await sleep(300)
    lefts.forEach((l) => (l.length = 0))
    const { observer, observed } = await watch()
    const c = broker.credentials!.get(nodeUser(1))!
    // the client id of node 3: with its will, the old broker would have dropped node 3 and published its will
    const member = await mqtt.connectAsync(broker.url, {
      clientId: "electlab-1-3",
      username: c.username,
      password: c.password,
      reconnectPeriod: 0,
      will: { topic: leaveTopic(PREFIX, 1, 1), payload: Buffer.from("1"), qos: 0, retain: false },
    })
    await member.publishAsync(leaveTopic(PREFIX, 1, 3), Buffer.from("3"))
    await member.publishAsync(leaveTopic(PREFIX, 1, 2), Buffer.from("2"))
    // its own leave topic, but another id in the payload: through the broker, refused by each node
    await member.publishAsync(leaveTopic(PREFIX, 1, 1), Buffer.from("3"))
    await sleep(500)
    await member.publishAsync(leaveTopic(PREFIX, 1, 1), Buffer.from("1"))
    await sleep(1000)
    // a busy host delivers them late: wait for the two leaves and each node's verdict on them
    await until(
      "the leaves and the nodes' verdicts",
      () => (observed.filter((m) => m.topic.includes("/leave/")).length >= 2 && lefts[1].length && lefts[2].length && nodes[1].leavesRefused() && nodes[2].leavesRefused() ? true : null),
      30_000,
      20,
    )
    const leaves = observed.filter((m) => m.topic.includes("/leave/"))
    expect(leaves).toEqual([
      { topic: "electlab/1/leave/1", payload: "3" },
      { topic: "electlab/1/leave/1", payload: "1" },
    ])
    // nodes 2 and 3 kept their sessions and heard only node 1's own leave
    expect(lefts[1]).toHaveLength(1)
    expect(lefts[1][0]).toContain("peer=1")
    expect(lefts[2]).toHaveLength(1)
    expect(lefts[2][0]).toContain("peer=1")
    expect(nodes[1].leavesRefused()).toBe(1)
    expect(nodes[2].leavesRefused()).toBe(1)
    expect(nodes[2].driver.role()).toBe(Role.Coordinator)
    expect(nodes[1].driver.coordinator()).toBe(3)
    await member.endAsync()
    await observer.endAsync()
  })

  test("node 1's login cannot read node 2's frames", async () => {
    const c = broker.credentials!.get(nodeUser(1))!
    const one = await mqtt.connectAsync(broker.url, { clientId: "node-1-spy", username: c.username, password: c.password })
    const seen: string[] = []
    one.on("message", (topic) => seen.push(topic))
    await one.subscribeAsync([`${PREFIX}/1/node/2/frame`, `${PREFIX}/1/all/frame`])
    const { observer, observed } = await watch()
    // a frame for node 2: node 1 may send it (unicast) but not read it
    await one.publishAsync(`${PREFIX}/1/node/2/frame`, Buffer.from([1, 2, 3]))
    await sleep(1000)
    await until(
      "a heartbeat to all and the frame to 2",
      () => (seen.some((t) => t.endsWith("/all/frame")) && observed.some((m) => m.topic === `${PREFIX}/1/node/2/frame`) ? true : null),
      30_000,
      20,
    )
    expect(seen.some((t) => t.endsWith("/all/frame"))).toBe(true) // the group topic: heartbeats of 3
    expect(seen).not.toContain(`${PREFIX}/1/node/2/frame`)
    expect(observed.map((m) => m.topic)).toContain(`${PREFIX}/1/node/2/frame`)
    await one.endAsync()
    await observer.endAsync()
  })
})
