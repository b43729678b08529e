// The driver handles a burst of frames a few at a time, from a bounded inbox: at 12 boards
// every peer's ELECTION reaches a new coordinator at once, and one fiber per frame, each
// holding its frames and replies while its sends wait for the bus, ran the board's 64 KB
// heap out (the VM panicked with OutOfMemory and restarted the program).
import { afterEach, beforeEach, describe, expect, test, vi } from "vitest"
import { encodeFrame } from "../src/core/codec"
import { Algorithm, Kind, makeFrame } from "../src/core/frame"
import { TRANSPORT_BUS, type FirmwareConfig } from "../src/firmware/config"
import { INBOX_HANDLERS, INBOX_LIMIT, NodeDriver, type FrameTransport } from "../src/firmware/driver"

const IDS = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]

function config(nodeId: number): FirmwareConfig {
  return {
    nodeId,
    ids: IDS,
    algorithm: Algorithm.ImprovedBully,
    group: 1,
    timing: { answerTimeout: 200, coordinatorTimeout: 400, heartbeatInterval: 250, failureTimeout: 800 },
    buttonPin: -1,
    suitability: 0,
    transport: TRANSPORT_BUS,
    mqttHost: "",
    mqttPort: 1883,
    topicPrefix: "electlab",
  }
}

/** A bus whose sends wait until the test opens the gate; counts the sends waiting at once. */
class GatedTransport implements FrameTransport {
  waiting = 0
  mostWaiting = 0
  sent = 0
  private gate: Promise<void>
  open!: () => void
  constructor() {
    this.gate = new Promise((resolve) => (this.open = resolve))
  }
  private async pass() {
    this.waiting++
    this.mostWaiting = Math.max(this.mostWaiting, this.waiting)
    await this.gate
    this.waiting--
    this.sent++
  }
  unicast(): Promise<void> {
    return this.pass()
  }
  broadcast(): Promise<void> {
    return this.pass()
  }
}

function election(from: number, to: number): Buffer {
  return Buffer.from(encodeFrame(makeFrame(Kind.ELECTION, Algorithm.ImprovedBully, 1, 0, from, to)).bytes)
}

describe("the driver's inbox", () => {
  beforeEach(() => vi.useFakeTimers())
  afterEach(() => vi.useRealTimers())

  test("a burst is handled a few frames at a time; beyond the bound frames are dropped and counted", async () => {
    let now = 0
    const driver = new NodeDriver(config(11), [], { now: () => now, print: () => {} })
    const bus = new GatedTransport()
    driver.transport = bus
    await driver.start()
    now = 1000
    // 30 ELECTIONs from lower boards at once (each answered with OK, a send that waits)
    const burst = 30
    const arrivals: Promise<void>[] = []
    for (let i = 0; i < burst; i++) arrivals.push(driver.receive(election(1 + (i % 10), 11)))
    await vi.advanceTimersByTimeAsync(0)
    expect(bus.mostWaiting).toBe(INBOX_HANDLERS)
    expect(driver.inboxDropped).toBe(burst - INBOX_HANDLERS - INBOX_LIMIT)
    bus.open()
    await Promise.all(arrivals)
    await vi.advanceTimersByTimeAsync(0)
    // every frame let in was handled, in the end
    expect(driver.framesReceived).toBe(INBOX_HANDLERS + INBOX_LIMIT)
    expect(bus.mostWaiting).toBe(INBOX_HANDLERS)
    expect(driver.errors).toBe(0)
  })
})
