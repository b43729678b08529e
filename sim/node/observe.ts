// `electlab node --observe`: watch a lab's MQTT traffic and print the cluster's state as
// frames go by. It takes no part in the election.

import mqtt from "mqtt"
import { CodecError, codecErrorName, decodeFrame } from "../../src/core/codec"
import { BROADCAST, Kind, kindName } from "../../src/core/frame"
import { leaveTopic } from "../../src/firmware/topics"

export interface ObserverOptions {
  broker: string
  prefix: string
  group: number
  print?: (line: string) => void
}

export function startObserver(options: ObserverOptions): { stop(): Promise<void> } {
  const print = options.print ?? ((line: string) => process.stdout.write(line + "\n"))
  const t0 = Date.now()
  const at = () => `t=${((Date.now() - t0) / 1000).toFixed(3)}`
  const client = mqtt.connect(options.broker, { clientId: `electlab-observer-${process.pid}`, reconnectPeriod: 500 })
  const heard = new Set<number>()
  let coordinator: number | null = null
  let epoch = -1
  client.on("connect", () => {
    print(`${at()} observing ${options.broker} ${options.prefix}/${options.group}/#`)
    client.subscribe(`${options.prefix}/${options.group}/#`)
  })
  client.on("message", (topic, payload) => {
    if (topic === leaveTopic(options.prefix, options.group)) {
      print(`${at()} ${payload.toString()} dropped off (last will)`)
      return
    }
    const { frame, error } = decodeFrame(payload)
    if (error !== CodecError.None) {
      print(`${at()} malformed frame on ${topic}: ${codecErrorName(error)} (${payload.length} bytes)`)
      return
    }
    heard.add(frame.src)
    const claim = frame.kind === Kind.COORDINATOR || frame.kind === Kind.HEARTBEAT
    if (frame.kind !== Kind.HEARTBEAT)
      print(`${at()} ${frame.src} -> ${frame.dst === BROADCAST ? "all" : frame.dst} ${kindName(frame.kind)} epoch=${frame.epoch}`)
    if (claim && (frame.src !== coordinator || frame.epoch !== epoch)) {
      coordinator = frame.src
      epoch = frame.epoch
      print(`${at()} cluster: coordinator ${coordinator} (epoch ${epoch}); heard from ${[...heard].sort((a, b) => a - b).join(",")}`)
    }
  })
  client.on("error", (e) => print(`${at()} broker error: ${e.message}`))
  return { stop: () => new Promise<void>((resolve) => client.end(true, {}, () => resolve())) }
}
