// The driver handles a burst of frames one at a time, from a bounded inbox, and never waits
// for the wire: replies are sealed into a bounded outbox that one fiber sends in order. At 12
// boards every peer's ELECTION reaches a new coordinator at once; one fiber per frame, each
// holding its frames and replies while its sends waited for the bus, ran the board's 64 KB
// heap out, and a send that never completed (a peer's role unbound) held back the timers and
// role reports that came after it.
import { descriptorOf } from "../src/core/algorithms"
import { afterEach, beforeEach, describe, expect, test, vi } from "vitest"
import { encodeFrame } from "../src/core/codec"
import { Algorithm, Kind, makeFrame } from "../src/core/frame"
import { Role } from "../src/core/contract"
import { INBOX_BATCH, INBOX_HANDLERS, INBOX_LIMIT, NodeDriver, OUTBOX_LIMIT, type FrameTransport } from "../src/firmware/driver"
import { busBoardConfig } from "./helpers"

const IDS = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]

const config = (nodeId: number) => busBoardConfig(nodeId, IDS, Algorithm.ImprovedBully)

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

describe("the driver's inbox and outbox", () => {
  beforeEach(() => vi.useFakeTimers())
  afterEach(() => vi.useRealTimers())

  test("a burst is handled while the wire is blocked; frames beyond either bound are dropped and counted", async () => {
    let now = 0
    const driver = new NodeDriver(config(11), [], { now: () => now, print: () => {} }, descriptorOf(config(11).algorithm))
    const bus = new GatedTransport()
    driver.transport = bus
    await driver.start()
    now = 1000
    // more ELECTIONs from lower boards at once than the inbox holds, each answered with OK;
    // the bus takes nothing yet
    const burst = INBOX_LIMIT + 14
    const arrivals: Promise<void>[] = []
    for (let i = 0; i < burst; i++) arrivals.push(driver.receive(election(1 + (i % 10), 11)))
    await Promise.all(arrivals)
    expect(driver.framesReceived).toBe(INBOX_BATCH)
    // INBOX_BATCH frames at a turn, the rest a turn later each (a timer of 0 ms: 1 ms in a fake tick)
    for (let turn = 0; turn <= INBOX_LIMIT / INBOX_BATCH; turn++) await vi.advanceTimersByTimeAsync(1)
    expect(driver.inboxDropped).toBe(burst - INBOX_HANDLERS - INBOX_LIMIT)
    // every frame let in was handled, and its answer queued, though no send has completed
    expect(driver.framesReceived).toBe(INBOX_HANDLERS + INBOX_LIMIT)
    expect(bus.sent).toBe(0)
    // one send at a time: the outbox's fiber waits for the wire, nobody else does
    expect(bus.mostWaiting).toBe(1)
    // the node took the role at the first ELECTION and the role report did not wait for the wire
    expect(driver.role()).toBe(Role.Coordinator)
    // every frame answered: the answers beyond the outbox's bound dropped and counted
    const queued = driver.framesSent
    expect(queued).toBeLessThanOrEqual(1 + OUTBOX_LIMIT)
    expect(driver.outboxDropped).toBeGreaterThan(0)
    expect(queued + driver.outboxDropped).toBeGreaterThanOrEqual(driver.framesReceived)
    bus.open()
    await vi.advanceTimersByTimeAsync(0)
    expect(bus.sent).toBe(queued)
    expect(driver.errors).toBe(0)
  })

  test("a wire that never takes a frame: the outbox is bounded, the rest is dropped and counted, the node goes on", async () => {
    let now = 0
    const driver = new NodeDriver(config(11), [], { now: () => now, print: () => {} }, descriptorOf(config(11).algorithm))
    const bus = new GatedTransport()
    driver.transport = bus
    await driver.start()
    for (let round = 0; round < 4; round++) {
      now += 1000
      for (let i = 1; i <= 10; i++) await driver.receive(election(i, 11))
      await vi.advanceTimersByTimeAsync(0)
    }
    expect(driver.framesReceived).toBe(40)
    // one frame is with the wire (waiting); behind it at most OUTBOX_LIMIT frames and timer
    // starts wait; the rest never left
    expect(bus.waiting).toBe(1)
    expect(driver.framesSent).toBeLessThanOrEqual(1 + OUTBOX_LIMIT)
    expect(driver.framesSent).toBeGreaterThan(OUTBOX_LIMIT / 2)
    expect(driver.outboxDropped).toBeGreaterThan(0)
    expect(driver.errors).toBe(0)
  })
})

describe("timers set after frames", () => {
  beforeEach(() => vi.useFakeTimers())
  afterEach(() => vi.useRealTimers())

  test("a timeout counts from when the frames sent before it have left", async () => {
    const now = 0
    // improved bully: board 1 finds coordinator 12 gone, asks 11, and after T without an OK asks 10
    const driver = new NodeDriver(config(1), [], { now: () => now, print: () => {} }, descriptorOf(config(1).algorithm))
    const bus = new GatedTransport()
    driver.transport = bus
    await driver.start()
    await driver.peerLeft(12)
    const T = config(1).timing.answerTimeout
    expect(driver.framesSent).toBe(1)
    // the wire holds the ELECTION for longer than T: the answer timer has not started
    await vi.advanceTimersByTimeAsync(3 * T)
    expect(driver.framesSent).toBe(1)
    bus.open()
    await vi.advanceTimersByTimeAsync(T - 1)
    expect(driver.framesSent).toBe(1)
    await vi.advanceTimersByTimeAsync(1)
    expect(driver.framesSent).toBe(2)
  })
})
