// The WiFi lab's mosquitto with a password per node and per-client topic rights
// (sim/lab/broker-access.ts), with host nodes that log in and a rogue client that tries not to.
import mqtt from "mqtt"
import { afterAll, beforeAll, describe, expect, test } from "vitest"
import { Algorithm } from "../src/core/frame"
import { Role } from "../src/core/node"
import { TRANSPORT_MQTT } from "../src/firmware/config"
import { aclText, nodeUser, OBSERVER_USER } from "../sim/lab/broker-access"
import { Broker, freePort } from "../sim/lab/broker"
import { type HostNode, startHostNode } from "../sim/node/host-node"
import { sleep } from "../sim/wait"

const PREFIX = "electlab"
const ids = [1, 2, 3]

test("the ACL gives each node its own topic to read and frames to write, nothing else", () => {
  const text = aclText({ prefix: PREFIX, group: 1, ids: [1, 2] })
  const block = text.split("user ")[1]
  expect(block.trim().split("\n")).toEqual([
    "node-1",
    "topic read electlab/1/node/1/frame",
    "topic read electlab/1/all/frame",
    "topic readwrite electlab/1/leave",
    "topic write electlab/1/all/frame",
    "topic write electlab/1/node/+/frame",
  ])
  expect(text).toContain("user observer\ntopic read electlab/1/#")
})

describe("a broker that checks passwords and topic rights", () => {
  let broker: Broker
  const nodes: HostNode[] = []
  const timing = { heartbeatInterval: 200, failureTimeout: 1000, answerTimeout: 200, coordinatorTimeout: 400 }

  beforeAll(async () => {
    broker = new Broker(await freePort(), { prefix: PREFIX, group: 1, ids })
    await broker.start()
    for (const id of ids) {
      const c = broker.credentials!.get(nodeUser(id))!
      nodes.push(
        await startHostNode({
          broker: broker.url,
          print: () => undefined,
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
    for (const n of nodes) await n.stop()
    await broker.dispose()
  })

  test("nodes with their passwords elect the highest", async () => {
    const t0 = Date.now()
    // 3 names itself while it claims the role: wait for it to hold it
    while (!nodes.every((n) => n.driver.coordinator() === 3) || nodes[2].driver.role() !== Role.Coordinator) {
      if (Date.now() - t0 > 8000) throw new Error("no agreement on 3")
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

  test("node 1's login cannot read node 2's frames", async () => {
    const c = broker.credentials!.get(nodeUser(1))!
    const one = await mqtt.connectAsync(broker.url, { clientId: "node-1-spy", username: c.username, password: c.password })
    const seen: string[] = []
    one.on("message", (topic) => seen.push(topic))
    await one.subscribeAsync([`${PREFIX}/1/node/2/frame`, `${PREFIX}/1/all/frame`])
    const obs = broker.credentials!.get(OBSERVER_USER)!
    const observer = await mqtt.connectAsync(broker.url, { clientId: "obs", username: obs.username, password: obs.password })
    const observed: string[] = []
    observer.on("message", (topic) => observed.push(topic))
    await observer.subscribeAsync(`${PREFIX}/1/#`)
    // a frame for node 2: node 1 may send it (unicast) but not read it
    await one.publishAsync(`${PREFIX}/1/node/2/frame`, Buffer.from([1, 2, 3]))
    await sleep(1000)
    expect(seen.some((t) => t.endsWith("/all/frame"))).toBe(true) // the group topic: heartbeats of 3
    expect(seen).not.toContain(`${PREFIX}/1/node/2/frame`)
    expect(observed).toContain(`${PREFIX}/1/node/2/frame`)
    await one.endAsync()
    await observer.endAsync()
  })
})
