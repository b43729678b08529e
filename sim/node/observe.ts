// `electlab node --observe`: watch a lab's MQTT traffic and print the cluster's state as
// frames go by. It takes no part in the election.

import mqtt from "mqtt"
import { CodecError, codecErrorName, decodeFrame } from "../../src/core/codec"
import { BROADCAST, Kind, kindName } from "../../src/core/frame"
import { Backoff as ReconnectBackoff } from "../../src/firmware/backoff"
import { leaveTopicId, leftNode } from "../../src/firmware/topics"

export interface ObserverOptions {
  broker: string
  prefix: string
  group: number
  /** Broker login, when the broker checks passwords (the lab's `observer` user reads everything). */
  username?: string
  password?: string
  print?: (line: string) => void
  /** A node not heard from for this long leaves the "heard from" list, ms. */
  forgetMs?: number
  now?: () => number
}

/** Who was heard from lately: a last will or a long silence takes a node off. */
export class HeardFrom {
  private last = new Map<number, number>()
  constructor(private forgetMs: number) {}
  heard(id: number, at: number) {
    this.last.set(id, at)
  }
  left(id: number) {
    this.last.delete(id)
  }
  list(at: number): number[] {
    for (const [id, t] of this.last) if (at - t > this.forgetMs) this.last.delete(id)
    return [...this.last.keys()].sort((a, b) => a - b)
  }
}

/** Reconnection delays: 0.5 s doubling to 8 s, back to 0.5 s once connected (a watcher is in no hurry). */
export class Backoff extends ReconnectBackoff {
  constructor() {
    super(500)
  }
}

export function startObserver(options: ObserverOptions): { stop(): Promise<void> } {
  const print = options.print ?? ((line: string) => process.stdout.write(line + "\n"))
  const now = options.now ?? Date.now
  const t0 = now()
  const at = () => `t=${((now() - t0) / 1000).toFixed(3)}`
  const backoff = new Backoff()
  const client = mqtt.connect(options.broker, {
    clientId: `electlab-observer-${process.pid}`,
    username: options.username || undefined,
    password: options.password || undefined,
    reconnectPeriod: backoff.next,
    connectTimeout: 5000,
  })
  const heard = new HeardFrom(options.forgetMs ?? 10_000)
  let coordinator: number | null = null
  let epoch = -1
  let lastError = ""
  client.on("connect", () => {
    backoff.reset()
    client.options.reconnectPeriod = backoff.next
    lastError = ""
    print(`${at()} observing ${options.broker} ${options.prefix}/${options.group}/#`)
    client.subscribe(`${options.prefix}/${options.group}/#`)
  })
  client.on("close", () => {
    // the next attempt waits longer; one line per attempt, not one every 0.5 s forever
    const wait = backoff.failed()
    client.options.reconnectPeriod = wait
    print(`${at()} no connection to ${options.broker}${lastError ? ` (${lastError})` : ""}; retrying in ${(wait / 1000).toFixed(1)} s`)
  })
  client.on("error", (e) => {
    lastError = (e as NodeJS.ErrnoException).code ?? e.message
  })
  client.on("message", (topic, payload) => {
    if (leaveTopicId(options.prefix, options.group, topic) >= 0) {
      const id = leftNode(options.prefix, options.group, topic, payload.toString())
      if (id < 0) {
        print(`${at()} refused a leave on ${topic}: its payload names another node`)
        return
      }
      heard.left(id)
      print(`${at()} ${payload.toString()} dropped off (last will); heard from ${heard.list(now()).join(",") || "nobody"}`)
      return
    }
    const { frame, error } = decodeFrame(payload)
    if (error !== CodecError.None) {
      print(`${at()} malformed frame on ${topic}: ${codecErrorName(error)} (${payload.length} bytes)`)
      return
    }
    heard.heard(frame.src, now())
    const claim = frame.kind === Kind.COORDINATOR || frame.kind === Kind.HEARTBEAT
    if (frame.kind !== Kind.HEARTBEAT)
      print(`${at()} ${frame.src} -> ${frame.dst === BROADCAST ? "all" : frame.dst} ${kindName(frame.kind)} epoch=${frame.epoch}`)
    if (claim && (frame.src !== coordinator || frame.epoch !== epoch)) {
      coordinator = frame.src
      epoch = frame.epoch
      print(`${at()} cluster: coordinator ${coordinator} (epoch ${epoch}); heard from ${heard.list(now()).join(",")}`)
    }
  })
  return { stop: () => new Promise<void>((resolve) => client.end(true, {}, () => resolve())) }
}
