// The live view's feed: election frames tapped at the bus hub (or the broker), the boards'
// state and the failovers from the lab, pushed to every open page as Server-Sent Events the
// moment they happen; and the page's clicks, carried out through the lab's own functions.

import type { IncomingMessage, ServerResponse } from "node:http"
import type net from "node:net"
import { performance } from "node:perf_hooks"
import mqtt from "mqtt"
import { WEB_USER } from "../lab/broker-access"
import { algorithmName } from "../../src/core/algorithms"
import { roleName } from "../../src/core/contract"
import { DEFAULT_TOPIC_PREFIX } from "../../src/firmware/topics"
import { InputError } from "../config/input"
import type { Lab } from "../lab/lab"
import type { LiveAction } from "./export"
import { BusTap, decodeMqttFrame, DeviceMap, jacdacPackets, type TappedFrame } from "./tap"

/**
 * Slow motion: the election timers (answer, coordinator) this many times longer so that
 * "electing" lasts seconds; the failure detector only SLOW_DETECTOR_FACTOR times, so the class
 * does not wait long for a crash to be noticed; every bus frame held SLOW_DELAY_MS at the hub.
 */
export const SLOW_FACTOR = 10
export const SLOW_DETECTOR_FACTOR = 2
export const SLOW_DELAY_MS = 150

interface Client {
  res: ServerResponse
}

export class LiveFeed {
  private clients = new Set<Client>()
  private frames: TappedFrame[] = []
  readonly actions: LiveAction[] = []
  private tap = new BusTap()
  private devices = new DeviceMap()
  private socketDevice = new Map<net.Socket, string>()
  /** The sender of an election frame is its `src`: a second way to know a socket's board. */
  private socketNode = new Map<net.Socket, number>()
  private decoded = new WeakMap<Buffer, { src: number; dst: number }[]>()
  /** "drop the next frame from A to B", armed until a matching frame passes the hub. */
  private dropNext: { src: number; dst: number } | null = null
  /** The unicast being dropped: every copy the hub would relay of it. */
  private droppingUnicast: Buffer | null = null
  private mqttClient: mqtt.MqttClient | null = null
  private boardTimer: NodeJS.Timeout | null = null
  private lastFailovers = 0
  private slow = false
  private normalTiming: Lab["options"]["timing"]
  private busy = false
  private clockOrigin: number | null = null

  constructor(private lab: Lab) {
    this.normalTiming = { ...lab.options.timing }
    const hub = lab.hub
    hub.tap = (frame, from) => this.onBusFrame(frame, from)
    hub.dropCopy = (frame, from, to) => this.shouldDrop(frame, to)
    lab.onChange(() => this.scheduleBoards())
  }

  /** Over MQTT the broker carries the election frames: subscribe to the group's topics. */
  async start(): Promise<void> {
    const url = this.lab.brokerUrl()
    if (!url) return
    const prefix = `${DEFAULT_TOPIC_PREFIX}/${this.lab.options.group}/`
    // a lab with a key: the broker's read-only login for the web view
    const login = this.lab.brokerLogin(WEB_USER)
    const client = mqtt.connect(url, {
      clientId: `electlab-web-${process.pid}`,
      reconnectPeriod: 500,
      username: login?.username,
      password: login?.password,
    })
    this.mqttClient = client
    client.on("message", (topic, payload) => {
      if (!topic.endsWith("/frame")) return
      const f = decodeMqttFrame(payload, Date.now(), Math.round(this.lab.now()))
      if (f) this.pushFrame(f)
    })
    client.on("connect", () => client.subscribe(`${prefix}#`))
  }

  close() {
    for (const c of this.clients) c.res.end()
    this.clients.clear()
    this.mqttClient?.end(true)
    if (this.boardTimer) clearTimeout(this.boardTimer)
    this.lab.hub.tap = null
    this.lab.hub.dropCopy = null
  }

  /** The election frames the tap saw so far (the page receives the same list). */
  recorded(): readonly TappedFrame[] {
    return this.frames
  }

  /** GET /api/live: the state so far, then every change. */
  subscribe(req: IncomingMessage, res: ServerResponse) {
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-store", connection: "keep-alive" })
    const client = { res }
    this.clients.add(client)
    req.on("close", () => this.clients.delete(client))
    this.sendTo(client, "hello", this.hello())
    this.sendTo(client, "frames", this.frames)
    this.sendTo(client, "state", this.state())
  }

  private hello() {
    const o = this.lab.options
    return {
      algorithm: algorithmName(o.algorithm),
      ids: o.ids,
      transport: o.transport ?? "bus",
      timing: o.timing,
      suitability: o.suitability,
      normalTiming: this.normalTiming,
      slow: this.slow,
      slowFactor: SLOW_FACTOR,
      hostNodes: o.hostNodes ?? [],
    }
  }

  private state() {
    this.followClock()
    const o = this.lab.options
    return {
      now: Math.round(this.lab.now()),
      // the page reads roles by name ("coordinator", "booting", ...)
      boards: [...this.lab.boards.values()].map((b) => ({ ...b, role: b.role === null ? "booting" : roleName(b.role) })),
      agreement: this.lab.agreement(),
      failovers: this.lab.transitions,
      log: this.lab.log.slice(-30),
      hub: { loss: o.loss ?? 0, delayMs: o.delayMs ?? 0, frames: this.lab.hub.frames, dropped: this.lab.hub.dropped },
      dropNext: this.dropNext,
      actions: this.actions,
      slow: this.slow,
      busy: this.busy,
      timing: o.timing,
    }
  }

  private sendTo(client: Client, event: string, data: unknown) {
    client.res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`)
  }

  private broadcast(event: string, data: unknown) {
    for (const c of this.clients) this.sendTo(c, event, data)
  }

  /** Board changes come in bursts (every log line): send the state at most every 50 ms. */
  private scheduleBoards() {
    if (this.boardTimer) return
    this.boardTimer = setTimeout(() => {
      this.boardTimer = null
      this.broadcast("state", this.state())
    }, 50)
  }

  /**
   * lab.now() counts from the lab's start until the boards first agree, then from that
   * moment: when its origin moves, the frames seen so far move with it and the pages reload them.
   */
  private followClock() {
    const origin = performance.now() - this.lab.now()
    if (this.clockOrigin !== null && Math.abs(origin - this.clockOrigin) > 1) {
      const shift = Math.round(this.clockOrigin - origin)
      for (const f of this.frames) f.at += shift
      this.broadcast("frames", this.frames)
    }
    this.clockOrigin = origin
  }

  private pushFrame(f: TappedFrame) {
    this.followClock()
    this.frames.push(f)
    if (this.frames.length > 5000) this.frames.splice(0, 1000)
    // no batching: the page must see a frame within 100 ms of the tap
    this.broadcast("frame", f)
    if (this.lab.transitions.length !== this.lastFailovers) {
      this.lastFailovers = this.lab.transitions.length
      this.scheduleBoards()
    }
  }

  private onBusFrame(raw: Buffer, from: net.Socket) {
    const frame = raw.subarray(1)
    // a report's device id is its sender's: learn which socket is which board
    const sender = this.devices.learn(jacdacPackets(frame))
    if (sender) this.socketDevice.set(from, sender)
    const found = this.tap.decode(frame, Date.now(), Math.round(this.lab.now()))
    for (const f of found) this.socketNode.set(from, f.frame.src)
    this.decoded.set(raw, found.map((f) => ({ src: f.frame.src, dst: f.tapped.dst })))
    for (const f of found) this.pushFrame(f.tapped)
  }

  private shouldDrop(raw: Buffer, to: net.Socket): boolean {
    if (raw === this.droppingUnicast) return true
    const want = this.dropNext
    if (!want) return false
    const frames = this.decoded.get(raw)
    if (!frames) return false
    const device = this.socketDevice.get(to)
    const toNode = this.socketNode.get(to) ?? (device === undefined ? undefined : this.devices.node(device))
    // a unicast to B is lost for everybody (only B would act on it); a broadcast only on B's copy
    const hit = frames.some((f) => f.src === want.src && (f.dst === want.dst || (f.dst === -1 && toNode === want.dst)))
    if (!hit) return false
    this.dropNext = null
    if (frames.some((f) => f.dst === want.dst)) this.droppingUnicast = raw
    this.lab.note(`web: dropped a frame from ${want.src} to ${want.dst} at the hub`)
    this.scheduleBoards()
    return true
  }

  /** POST /api/live/action: {action, node?, src?, dst?, loss?, delayMs?, on?}. */
  async act(body: string): Promise<string> {
    let a: { action?: string; node?: number; src?: number; dst?: number; loss?: number; delayMs?: number; on?: boolean }
    try {
      a = JSON.parse(body)
    } catch {
      throw new InputError("the action is not JSON", "/api/live/action")
    }
    const lab = this.lab
    const node = Number(a.node)
    const at = Math.round(lab.now())
    switch (a.action) {
      case "crash":
      case "recover":
      case "kill":
      case "restart":
        if (!lab.boards.has(node)) throw new InputError(`no board ${a.node}`, "node")
        this.actions.push({ at, action: a.action, node })
        await lab[a.action](node)
        this.scheduleBoards()
        return `${a.action} ${node}`
      case "hub": {
        const loss = Number(a.loss ?? lab.options.loss ?? 0)
        const delayMs = Number(a.delayMs ?? lab.options.delayMs ?? 0)
        if (!(loss >= 0 && loss <= 0.9)) throw new InputError(`loss ${a.loss} is out of range 0..0.9`, "loss")
        if (!(delayMs >= 0 && delayMs <= 10_000)) throw new InputError(`delay ${a.delayMs} is out of range 0..10000 ms`, "delayMs")
        lab.hub.setFaults(loss, delayMs)
        lab.options.loss = loss
        lab.options.delayMs = delayMs
        lab.note(`web: hub loss ${loss}, delay ${delayMs} ms`)
        this.scheduleBoards()
        return `hub loss ${loss} delay ${delayMs}`
      }
      case "drop": {
        const src = Number(a.src)
        const dst = Number(a.dst)
        if (!lab.boards.has(src) || !lab.boards.has(dst) || src === dst)
          throw new InputError(`drop needs two different boards, got ${a.src} and ${a.dst}`, "drop")
        if (lab.options.transport === "mqtt")
          throw new InputError("over MQTT the frames go through mosquitto, not the hub: cannot drop one", "drop")
        this.dropNext = { src, dst }
        this.scheduleBoards()
        return `the next frame from ${src} to ${dst} will be dropped`
      }
      case "slow":
        return this.setSlow(!!a.on)
      default:
        throw new InputError(`unknown action '${a.action}'; known: crash, recover, kill, restart, hub, drop, slow`, "action")
    }
  }

  /** Slow motion: every board reboots with its timers stretched, and the hub holds each frame. */
  private async setSlow(on: boolean): Promise<string> {
    if (on === this.slow) return on ? "slow motion already on" : "slow motion already off"
    if (this.busy) throw new InputError("the boards are still rebooting", "slow")
    this.busy = true
    this.scheduleBoards()
    try {
      const t = this.normalTiming
      const k = on ? SLOW_FACTOR : 1
      const kd = on ? SLOW_DETECTOR_FACTOR : 1
      this.slow = on
      this.lab.hub.setFaults(this.lab.options.loss ?? 0, on ? SLOW_DELAY_MS : 0)
      this.lab.options.delayMs = on ? SLOW_DELAY_MS : 0
      await this.lab.retime({
        answerTimeout: t.answerTimeout * k,
        coordinatorTimeout: t.coordinatorTimeout * k,
        heartbeatInterval: t.heartbeatInterval * kd,
        failureTimeout: t.failureTimeout * kd,
      })
      this.broadcast("hello", this.hello())
      return on
        ? `slow motion: election timers ×${SLOW_FACTOR}, failure detector ×${SLOW_DETECTOR_FACTOR}, hub delay ${SLOW_DELAY_MS} ms`
        : "normal speed"
    } finally {
      this.busy = false
      this.scheduleBoards()
    }
  }
}
