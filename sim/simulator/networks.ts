// Network models for the simulator. The ideal network lives in the core (the VM runs it
// too); the bus and WiFi models are host-side because they draw seeded random numbers.

import { IdealNetwork, type NetworkModel } from "../../src/core/engine"
import { encodedSize } from "../../src/core/codec"
import type { Frame } from "../../src/core/frame"
import type { NetworkName } from "../config/input"
import { Rng } from "./rng"

export interface FaultOptions {
  /** Probability that one message is lost, 0..1. */
  loss: number
}

/**
 * The Jacdac single-wire bus: 1 Mbit/s, one shared medium, so frames queue behind each
 * other and a broadcast is one frame that every board hears at once. Time unit: ms.
 * A Jacdac frame adds 16 bytes of header to the 4-aligned payload; a byte on the wire
 * costs 10 bits (UART 8N1); each frame is preceded by a break and a gap of about 0.1 ms.
 */
export class BusNetwork implements NetworkModel {
  private busFreeAt = 0
  private lastStartFor: Frame | null = null
  private lastArrival = 0

  constructor(
    private rng: Rng,
    private faults: FaultOptions,
    /** Time for a board to process a frame and react, ms. */
    private processingMs = 0.3,
  ) {}

  static frameMs(frame: Frame): number {
    const payload = Math.ceil(encodedSize(frame) / 4) * 4
    return 0.1 + ((16 + payload) * 10) / 1000
  }

  delay(_src: number, _dst: number, frame: Frame, now: number): number {
    // Every destination of one send hears the same transmission (a frame that several
    // sends share, each naming its one receiver, is one transmission each: frames()).
    if (this.lastStartFor !== frame) {
      const start = Math.max(now, this.busFreeAt)
      const end = start + BusNetwork.frameMs(frame)
      this.busFreeAt = end
      this.lastStartFor = frame
      this.lastArrival = end + this.processingMs
    }
    if (this.faults.loss > 0 && this.rng.next() < this.faults.loss) return -1
    return this.lastArrival - now
  }

  /** One frame a send; the engine asks once per send, before its deliveries' delays: the next delay starts a transmission. */
  frames(): number {
    this.lastStartFor = null
    return 1
  }
}

/**
 * WiFi through an MQTT broker: each publish goes to the broker and on to the
 * subscribers, 20-50 ms per hop pair as measured between VMs on loopback. A send to
 * every other node is one publish on the group topic; otherwise one publish per
 * destination topic. Time unit: ms.
 */
export class WifiNetwork implements NetworkModel {
  constructor(
    private rng: Rng,
    private faults: FaultOptions,
    private clusterSize: number,
    private baseMs = 20,
    private jitterMs = 30,
  ) {}

  delay(): number {
    if (this.faults.loss > 0 && this.rng.next() < this.faults.loss) return -1
    return this.baseMs + this.rng.next() * this.jitterMs
  }

  frames(to: number[]): number {
    return to.length === this.clusterSize - 1 ? 1 : to.length
  }
}

/** The ideal network with message loss. */
export class LossyIdealNetwork extends IdealNetwork {
  constructor(
    private rng: Rng,
    private faults: FaultOptions,
  ) {
    super()
  }
  override delay(): number {
    if (this.rng.next() < this.faults.loss) return -1
    return 1
  }
}

export function makeNetwork(
  name: NetworkName,
  seed: number,
  faults: FaultOptions,
  clusterSize: number,
): NetworkModel {
  const rng = new Rng(seed)
  switch (name) {
    case "ideal":
      return faults.loss > 0 ? new LossyIdealNetwork(rng, faults) : new IdealNetwork()
    case "bus":
      return new BusNetwork(rng, faults)
    case "wifi":
      return new WifiNetwork(rng, faults, clusterSize)
  }
}
