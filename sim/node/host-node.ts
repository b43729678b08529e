// `electlab node`: the firmware's node driver and the same core, run in Node over MQTT
// (mqtt.js), so a laptop takes part in the boards' election. It logs the boards' structured
// lines ("EL role t=.. n=.. r=.. c=.. e=..") on stdout.

import { performance } from "node:perf_hooks"
import { createInterface } from "node:readline"
import mqtt from "mqtt"
import { Backoff, FIRST_BACKOFF_MS } from "../../src/firmware/backoff"
import { type FirmwareConfig, configProblems, TRANSPORT_MQTT } from "../../src/firmware/config"
import { type FrameTransport, NodeDriver, type Platform, peerUnreachable } from "../../src/firmware/driver"
import { probeLateCoordinator } from "../../src/firmware/probe"
import { AUTH_CONTROL_MARKER, CONTROL_CHALLENGE } from "../../src/core/auth"
import { groupTopic, leaveTopic, leaveTopics, leftNode, nodeTopic } from "../../src/firmware/topics"
import { nodeMac, nodeRandom32 } from "../auth/keys"
import { FRAME_HEADER_BYTES, Kind } from "../../src/core/frame"
import { descriptorOf } from "../../src/core/algorithms"

export interface HostNodeOptions {
  config: FirmwareConfig
  /** mqtt://host:port */
  broker: string
  /** Read "crash" and "recover" lines on stdin (the virtual lab drives host nodes so). */
  stdinControl?: boolean
  print?: (line: string) => void
  /**
   * Log heartbeats too (sent: "EL hbtx", received: "EL hb" with the suspicion delay that
   * follows), with 0.1 ms times and a "clock" line that places t=0 on the wall clock, so
   * the failover benchmark can break a failover down across processes. Also on with
   * ELECTLAB_TRACE_HEARTBEATS=1 in the environment.
   */
  traceHeartbeats?: boolean
  /** Run this driver (made with the same config) instead of a new one: the election API builds on it. */
  driver?: NodeDriver
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
    const topic = nodeTopic(this.config.topicPrefix, this.config.group, dst)
    // a challenge goes with QoS 1: the broker's acknowledgement says whether anybody
    // receives `dst`'s frames, and a check of a leave need not wait when nobody does
    this.publish(topic, bytes, isChallenge(bytes) ? dst : undefined)
  }

  async broadcast(bytes: Buffer) {
    this.publish(groupTopic(this.config.topicPrefix, this.config.group), bytes)
  }

  /** Called with every heartbeat this node publishes (tracing). */
  onHeartbeatSent: (() => void) | null = null

  /** Challenges in flight with QoS 1, by MQTT packet id: the node each went to. */
  private challenged = new Map<number, number>()

  /** `probed`: the node a challenge goes to (QoS 1), else undefined (QoS 0). */
  private publish(topic: string, bytes: Buffer, probed?: number) {
    if (!this.client.connected) {
      this.driver.log("lost", `topic=${topic} why=offline`)
      return
    }
    if (this.onHeartbeatSent && isHeartbeat(bytes)) this.onHeartbeatSent()
    if (probed === undefined) {
      this.client.publish(topic, Buffer.from(bytes), { qos: 0 })
      return
    }
    const done = () => {}
    this.client.publish(topic, Buffer.from(bytes), { qos: 1 }, done)
    // the packet id, when mqtt.js sent the packet at once (not queued behind its store)
    const id = this.client.getLastMessageId()
    if (this.client.outgoing[id]?.cb === done) this.challenged.set(id, probed)
  }

  /**
   * The broker's PUBACK for a challenge: reason 16 (MQTT 5: no matching subscribers) says
   * nobody receives the node's frames, so nobody can prove it alive. The broker is the one
   * that reports a leave in the first place; a key holder cannot make it say this of a
   * connected node.
   */
  acknowledged(packetId: number, reasonCode: number | undefined) {
    const node = this.challenged.get(packetId)
    if (node === undefined) return
    this.challenged.delete(packetId)
    if (reasonCode === NO_MATCHING_SUBSCRIBERS) void peerUnreachable(this.driver, node)
  }

  /** A new connection: challenges in flight on the old one get no answer. */
  reset() {
    this.challenged.clear()
  }
}

/** MQTT 5's PUBACK reason code when the broker found no subscriber for the topic. */
const NO_MATCHING_SUBSCRIBERS = 16

/** A sealed control frame's marker and type (src/core/auth.ts). */
function isChallenge(bytes: Buffer): boolean {
  return bytes.length >= 2 && bytes[0] === AUTH_CONTROL_MARKER && bytes[1] === CONTROL_CHALLENGE
}

/** An unsealed frame's kind is its second byte, its sender bytes 8-9 (see codec.ts). */
function isHeartbeat(bytes: { readonly length: number; [i: number]: number }): boolean {
  return bytes.length >= FRAME_HEADER_BYTES && bytes[1] === Kind.HEARTBEAT
}

export interface HostNode {
  driver: NodeDriver
  /** Leave messages refused: the payload's id is not the one in the topic. */
  leavesRefused(): number
  /** Settles once the broker answered and the election started on this node. */
  ready: Promise<void>
  stop(): Promise<void>
}

/**
 * A node driver on the host: it runs whichever algorithm the config names (the host has all
 * six), with the early probe of a late coordinator (no image to fit in).
 */
export function hostDriver(config: FirmwareConfig, platform: Platform, problems = configProblems(config)): NodeDriver {
  const driver = new NodeDriver(config, problems, platform, descriptorOf(config.algorithm))
  driver.watchArmed = probeLateCoordinator
  return driver
}

/** What the driver needs, in Node: milliseconds since now, HMAC and randomness from node:crypto. */
export function hostPlatform(print: (line: string) => void): Platform {
  const t0 = performance.now()
  return {
    now: () => performance.now() - t0,
    print,
    makeMac: nodeMac,
    random32: nodeRandom32,
    // not a timer of 0 ms: Node makes that 1 ms, paid by every frame sent
    defer: (fiber) => void setImmediate(fiber),
  }
}

export async function startHostNode(options: HostNodeOptions): Promise<HostNode> {
  const config = { ...options.config, transport: TRANSPORT_MQTT }
  const print = options.print ?? ((line: string) => process.stdout.write(line + "\n"))
  const platform = options.driver?.platform ?? hostPlatform(print)
  const driver = options.driver ?? hostDriver(config, platform)
  const { topicPrefix: prefix, group, nodeId } = config
  const client = mqtt.connect(options.broker, {
    clientId: `electlab-${group}-${nodeId}`,
    username: config.mqttUser || undefined,
    password: config.mqttPassword || undefined,
    // MQTT 5: a PUBACK says when a topic has no subscriber (see MqttJsTransport.acknowledged)
    protocolVersion: 5,
    keepalive: 3,
    reconnectPeriod: FIRST_BACKOFF_MS,
    connectTimeout: 5000,
    will: { topic: leaveTopic(prefix, group, nodeId), payload: Buffer.from(String(nodeId)), qos: 0, retain: false },
  })
  const transport = new MqttJsTransport(client, driver)
  driver.transport = transport
  const trace = options.traceHeartbeats ?? process.env.ELECTLAB_TRACE_HEARTBEATS === "1"
  const traceLine = (event: string, t: number, fields: string) => print(`EL ${event} t=${t.toFixed(1)} n=${nodeId} ${fields}`)
  if (trace) {
    traceLine("clock", 0, `origin=${(performance.timeOrigin + performance.now() - platform.now()).toFixed(3)}`)
    transport.onHeartbeatSent = () => traceLine("hbtx", platform.now(), "")
  }
  let started = false
  let leavesRefused = 0
  let ready: () => void = () => {}
  const readyPromise = new Promise<void>((resolve) => (ready = resolve))
  const backoff = new Backoff()
  client.on("connect", () => {
    // small frames must not wait for Nagle's algorithm
    const stream = client.stream as { setNoDelay?: (on: boolean) => void }
    stream.setNoDelay?.(true)
    backoff.reset()
    transport.reset()
    client.options.reconnectPeriod = backoff.next
    driver.log("mqtt", `state=connected`)
    client.subscribe([nodeTopic(prefix, group, nodeId), groupTopic(prefix, group), leaveTopics(prefix, group)])
    if (!started) {
      started = true
      void driver.start().then(() => ready())
    }
  })
  client.on("close", () => {
    // reconnection with exponential backoff
    backoff.failed()
    client.options.reconnectPeriod = backoff.next
    driver.log("mqtt", `state=closed`)
  })
  client.on("error", (e) => {
    const code = (e as NodeJS.ErrnoException).code
    driver.log("mqtt", `state=error msg=${(code ?? e.message).replace(/\s+/g, "_")}`)
  })
  client.on("packetreceive", (packet) => {
    if (packet.cmd === "puback") transport.acknowledged(packet.messageId!, packet.reasonCode)
  })
  const mine = nodeTopic(prefix, group, nodeId)
  const all = groupTopic(prefix, group)
  client.on("message", (topic, payload) => {
    if (topic !== mine && topic !== all) {
      // a leave is only a hint (the driver checks it); a payload that names another id than the topic is refused
      const id = leftNode(prefix, group, topic, payload.toString())
      if (id >= 0) void driver.peerLeft(id)
      else leavesRefused++
    } else if (trace && isHeartbeat(payload) && payload[8] * 256 + payload[9] !== nodeId) {
      const at = platform.now()
      void driver.receive(payload).then(() =>
        traceLine("hb", at, `from=${payload[8] * 256 + payload[9]} d=${driver.node.suspicionDelay().toFixed(1)}`),
      )
    } else void driver.receive(payload)
  })
  if (options.stdinControl) {
    createInterface({ input: process.stdin }).on("line", (line) => {
      const command = line.trim()
      if (command === "crash" || command === "recover") {
        driver.log("action", `crashed=${command === "crash" ? 1 : 0}`)
        void driver.setCrashed(command === "crash")
      }
    })
  }
  return {
    driver,
    leavesRefused: () => leavesRefused,
    ready: readyPromise,
    stop: () => new Promise<void>((resolve) => client.end(true, {}, () => resolve())),
  }
}
