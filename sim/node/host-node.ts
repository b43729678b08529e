// `electlab node`: the firmware's node driver and the same core, run in Node over MQTT
// (mqtt.js), so a laptop takes part in the boards' election. It logs the boards' structured
// lines ("EL role t=.. n=.. r=.. c=.. e=..") on stdout.

import { performance } from "node:perf_hooks"
import { createInterface } from "node:readline"
import mqtt from "mqtt"
import { Backoff, FIRST_BACKOFF_MS } from "../../src/firmware/backoff"
import { type FirmwareConfig, configProblems, TRANSPORT_MQTT } from "../../src/firmware/config"
import { type FrameTransport, NodeDriver, type Platform } from "../../src/firmware/driver"
import { groupTopic, leaveTopic, nodeTopic } from "../../src/firmware/topics"
import { nodeMac, nodeRandom32 } from "../auth/keys"

export interface HostNodeOptions {
  config: FirmwareConfig
  /** mqtt://host:port */
  broker: string
  /** Read "crash" and "recover" lines on stdin (the virtual lab drives host nodes so). */
  stdinControl?: boolean
  print?: (line: string) => void
}

class MqttJsTransport implements FrameTransport {
  constructor(
    private client: mqtt.MqttClient,
    private driver: NodeDriver,
  ) {}

  private get config(): FirmwareConfig {
    return this.driver.config
  }

  async unicast(dst: number, bytes: Buffer) {
    this.publish(nodeTopic(this.config.topicPrefix, this.config.group, dst), bytes)
  }

  async broadcast(bytes: Buffer) {
    this.publish(groupTopic(this.config.topicPrefix, this.config.group), bytes)
  }

  private publish(topic: string, bytes: Buffer) {
    if (!this.client.connected) {
      this.driver.log("lost", `n=${this.config.nodeId} topic=${topic} why=offline`)
      return
    }
    this.client.publish(topic, Buffer.from(bytes), { qos: 0 })
  }
}

export interface HostNode {
  driver: NodeDriver
  stop(): Promise<void>
}

export async function startHostNode(options: HostNodeOptions): Promise<HostNode> {
  const config = { ...options.config, transport: TRANSPORT_MQTT }
  const print = options.print ?? ((line: string) => process.stdout.write(line + "\n"))
  const t0 = performance.now()
  const platform: Platform = { now: () => performance.now() - t0, print, makeMac: nodeMac, random32: nodeRandom32 }
  const driver = new NodeDriver(config, configProblems(config), platform)
  const { topicPrefix: prefix, group, nodeId } = config
  const client = mqtt.connect(options.broker, {
    clientId: `electlab-${group}-${nodeId}`,
    username: config.mqttUser || undefined,
    password: config.mqttPassword || undefined,
    keepalive: 3,
    reconnectPeriod: FIRST_BACKOFF_MS,
    connectTimeout: 5000,
    will: { topic: leaveTopic(prefix, group), payload: Buffer.from(String(nodeId)), qos: 0, retain: false },
  })
  driver.transport = new MqttJsTransport(client, driver)
  let started = false
  const backoff = new Backoff()
  client.on("connect", () => {
    // small frames must not wait for Nagle's algorithm
    const stream = client.stream as { setNoDelay?: (on: boolean) => void }
    stream.setNoDelay?.(true)
    backoff.reset()
    client.options.reconnectPeriod = backoff.next
    driver.log("mqtt", `n=${nodeId} state=connected`)
    client.subscribe([nodeTopic(prefix, group, nodeId), groupTopic(prefix, group), leaveTopic(prefix, group)])
    if (!started) {
      started = true
      void driver.start()
    }
  })
  client.on("close", () => {
    // reconnection with exponential backoff
    backoff.failed()
    client.options.reconnectPeriod = backoff.next
    driver.log("mqtt", `n=${nodeId} state=closed`)
  })
  client.on("error", (e) => {
    const code = (e as NodeJS.ErrnoException).code
    driver.log("mqtt", `n=${nodeId} state=error msg=${(code ?? e.message).replace(/\s+/g, "_")}`)
  })
  client.on("message", (topic, payload) => {
    if (topic === leaveTopic(prefix, group)) {
      const id = Number(payload.toString())
      if (Number.isInteger(id)) void driver.peerLeft(id)
    } else void driver.receive(payload)
  })
  if (options.stdinControl) {
    createInterface({ input: process.stdin }).on("line", (line) => {
      const command = line.trim()
      if (command === "crash" || command === "recover") {
        driver.log("action", `n=${nodeId} crashed=${command === "crash" ? 1 : 0}`)
        void driver.setCrashed(command === "crash")
      }
    })
  }
  return {
    driver,
    stop: () => new Promise<void>((resolve) => client.end(true, {}, () => resolve())),
  }
}
