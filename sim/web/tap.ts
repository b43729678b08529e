// The live view's tap: election frames seen on the lab's Jacdac bus (at the hub) or on the
// MQTT broker, decoded with the core's codec. A Jacdac frame is a 12-byte header (crc u16,
// data size u8, flags u8, device id 8 bytes) and 4-aligned packets (size u8, service index
// u8, command u16 LE, payload); see https://microsoft.github.io/jacdac-docs/reference/protocol/.
// An election frame rides in the ElectLab service's `frame` command (unicast, addressed to
// the destination's device) or `broadcast` event (from the sender's device).

import { AUTH_CONTROL_MARKER, AUTH_TRAILER_BYTES } from "../../src/core/auth"
import { decodeFrame, type ByteSource } from "../../src/core/codec"
import { BROADCAST, type Frame, kindName } from "../../src/core/frame"

const FLAG_COMMAND = 0x01
const CMD_EVENT_MASK = 0x8000
const CMD_FRAME = 0x80
const EVENT_BROADCAST = 0x81
const HEADER = 12

export interface JacdacPacket {
  /** 16 hex digits, as `devs run --device-id` takes them. */
  deviceId: string
  /** The device id names the destination (a command) rather than the sender (a report). */
  command: boolean
  crc: number
  serviceIndex: number
  serviceCommand: number
  payload: Uint8Array
}

/** The packets of one Jacdac frame (without the hub's length byte); [] when malformed. */
export function jacdacPackets(frame: Uint8Array): JacdacPacket[] {
  if (frame.length < HEADER + 4) return []
  const size = frame[2]
  if (HEADER + size > frame.length) return []
  const flags = frame[3]
  let deviceId = ""
  for (let i = 4; i < 12; i++) deviceId += frame[i].toString(16).padStart(2, "0")
  const crc = frame[0] | (frame[1] << 8)
  const packets: JacdacPacket[] = []
  let at = HEADER
  while (at + 4 <= HEADER + size) {
    const n = frame[at]
    if (at + 4 + n > HEADER + size) break
    packets.push({
      deviceId,
      command: (flags & FLAG_COMMAND) !== 0,
      crc,
      serviceIndex: frame[at + 1],
      serviceCommand: frame[at + 2] | (frame[at + 3] << 8),
      payload: frame.subarray(at + 4, at + 4 + n),
    })
    at += (4 + n + 3) & ~3
  }
  return packets
}

/** One election frame as the live view shows it. */
export interface TappedFrame {
  /** Wall-clock ms (Date.now()) when the tap saw it: the page measures its own delay from it. */
  wall: number
  /** ms since the lab was ready (lab.now()). */
  at: number
  src: number
  /** Destination node, or -1 for a broadcast. */
  dst: number
  kind: string
  epoch: number
  /** Where the tap saw it: the bus hub or the broker. */
  via: "bus" | "mqtt"
}

function toTapped(frame: Frame, via: "bus" | "mqtt", wall: number, at: number): TappedFrame {
  return {
    wall,
    at,
    src: frame.src,
    dst: frame.dst === BROADCAST ? -1 : frame.dst,
    kind: kindName(frame.kind),
    epoch: frame.epoch,
    via,
  }
}

/**
 * Decodes the election frames in the Jacdac frames the hub relays. Jacdac repeats events (and
 * may retry commands) so that one is not lost: repeats of the same event counter, or the
 * same command bytes within `repeatWindowMs`, are one frame.
 */
export class BusTap {
  private recent = new Map<string, number>()
  malformed = 0

  constructor(
    /** Identical command bytes within this time are a retry (events repeat at 20 and 70 ms, keyed by their counter). */
    private repeatWindowMs = 30,
  ) {}

  /** The election frames inside one relayed Jacdac frame. */
  decode(jacdacFrame: Uint8Array, wall: number, at: number): { frame: Frame; tapped: TappedFrame; key: string }[] {
    const out: { frame: Frame; tapped: TappedFrame; key: string }[] = []
    for (const p of jacdacPackets(jacdacFrame)) {
      const isEvent = !p.command && (p.serviceCommand & CMD_EVENT_MASK) !== 0
      const unicast = p.command && p.serviceCommand === CMD_FRAME
      const broadcast = isEvent && (p.serviceCommand & 0xff) === EVENT_BROADCAST
      if (!unicast && !broadcast) continue
      if (p.payload.length > 0 && p.payload[0] === AUTH_CONTROL_MARKER) continue // a challenge or proof
      const decoded = decodeTapped(p.payload)
      if (!decoded.frame) {
        this.malformed++
        continue
      }
      // events repeat with the same counter; a command retry repeats the same bytes
      const key = `${p.deviceId}:${p.serviceIndex}:${p.serviceCommand}:${Buffer.from(p.payload).toString("hex")}`
      const last = this.recent.get(key)
      this.recent.set(key, wall)
      if (last !== undefined && wall - last < (broadcast ? 1000 : this.repeatWindowMs)) continue
      if (this.recent.size > 2000) this.recent.clear()
      out.push({ frame: decoded.frame, tapped: toTapped(decoded.frame, "bus", wall, at), key })
    }
    return out
  }
}

/**
 * A frame as it travels: plain, or sealed with the 16-byte trailer of a lab with a key (the
 * tap only watches: the boards verify the tags, the tap does not).
 */
function decodeTapped(bytes: Uint8Array) {
  const plain = decodeFrame(bytes as unknown as ByteSource)
  if (plain.frame || bytes.length <= AUTH_TRAILER_BYTES) return plain
  return decodeFrame(bytes.subarray(0, bytes.length - AUTH_TRAILER_BYTES) as unknown as ByteSource)
}

/** An election frame published on the broker. */
export function decodeMqttFrame(payload: Uint8Array, wall: number, at: number): TappedFrame | null {
  if (payload.length > 0 && payload[0] === AUTH_CONTROL_MARKER) return null
  const decoded = decodeTapped(payload)
  return decoded.frame ? toTapped(decoded.frame, "mqtt", wall, at) : null
}

const ELECTLAB_SERVICE_CLASS = 0x1e1ec7ab
const REG_GET_NODE_ID = 0x1180

/**
 * Which Jacdac device (and so which hub socket) is which board. The VM's device id on the
 * wire is not the one `devs run --device-id` gives the program, so the map is learnt from the
 * bus: each device's announce names the index of its ElectLab service, and that service's
 * node_id register is read by every peer at binding.
 */
export class DeviceMap {
  private serviceIndex = new Map<string, number>()
  private nodeOf = new Map<string, number>()

  /** Learns from one relayed Jacdac frame; returns the sender's device id when the frame is a report. */
  learn(packets: JacdacPacket[]): string | null {
    let sender: string | null = null
    for (const p of packets) {
      if (p.command) continue
      sender = p.deviceId
      if (p.serviceIndex === 0 && p.serviceCommand === 0 && p.payload.length >= 4) {
        // announce: a u32 of flags, then one u32 service class per service index from 1
        for (let i = 1; 4 * i + 4 <= p.payload.length; i++) {
          const at = 4 * i
          const cls = (p.payload[at] | (p.payload[at + 1] << 8) | (p.payload[at + 2] << 16) | (p.payload[at + 3] << 24)) >>> 0
          if (cls === ELECTLAB_SERVICE_CLASS) this.serviceIndex.set(p.deviceId, i)
        }
      } else if (
        p.serviceCommand === REG_GET_NODE_ID &&
        p.payload.length >= 2 &&
        this.serviceIndex.get(p.deviceId) === p.serviceIndex
      )
        this.nodeOf.set(p.deviceId, p.payload[0] | (p.payload[1] << 8))
    }
    return sender
  }

  node(deviceId: string): number | undefined {
    return this.nodeOf.get(deviceId)
  }
}
