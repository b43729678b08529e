// The firmware's structured log lines are how the lab sees a board: the driver writes them,
// the lab's parser reads them. This drives a real driver through a boot, frames in and out,
// a malformed frame, an election and a misconfiguration, and reads every line it printed as
// the lab does: each must parse, and each typed event must say what the driver did.
import { descriptorOf } from "../src/core/algorithms"
import { afterEach, beforeEach, expect, test, vi } from "vitest"
import { encodeFrame } from "../src/core/codec"
import { Role } from "../src/core/contract"
import { Algorithm, Kind, makeFrame } from "../src/core/frame"
import { configProblems, type FirmwareConfig } from "../src/firmware/config"
import { formatLog, type FrameTransport, NodeDriver } from "../src/firmware/driver"
import { type BoardEvent, toBoardEvent } from "../sim/lab/board-event"
import { parseLogLine } from "../sim/lab/board-vm"
import { busBoardConfig } from "./helpers"

const IDS = [1, 2, 3]

const config = (nodeId: number) => busBoardConfig(nodeId, IDS, Algorithm.Bully)

const quietBus: FrameTransport = { unicast: async () => {}, broadcast: async () => {} }

/** A driver whose printed lines are kept, read back as the lab reads a board's output. */
function loggedDriver(c: FirmwareConfig, problems: string[] = []) {
  const lines: string[] = []
  let now = 0
  const driver = new NodeDriver(c, problems, { now: () => now, print: (line) => lines.push(line) }, descriptorOf(c.algorithm))
  driver.transport = quietBus
  const events = (): BoardEvent[] =>
    lines.map((line) => {
      const parsed = parseLogLine(line, c.nodeId, 0)
      expect(parsed, line).not.toBeNull()
      return toBoardEvent(parsed!)
    })
  return { driver, lines, events, setNow: (t: number) => (now = t) }
}

beforeEach(() => vi.useFakeTimers())
afterEach(() => vi.useRealTimers())

test("every line a board prints parses, and says what the driver did", async () => {
  const { driver, events, setNow } = loggedDriver(config(2))
  await driver.start()
  setNow(100)
  await driver.receive(Buffer.from(encodeFrame(makeFrame(Kind.ELECTION, Algorithm.Bully, 1, 0, 1, 2)).bytes))
  await driver.receive(Buffer.from([1, 2, 3]))
  await vi.advanceTimersByTimeAsync(2000)
  setNow(2100)
  await vi.advanceTimersByTimeAsync(2000)

  const seen = events()
  const names = new Set(seen.map((e) => e.event))
  for (const name of ["boot", "role", "rx", "tx", "drop"]) expect(names, name).toContain(name)
  expect(seen.filter((e) => e.event === "other")).toEqual([])
  for (const e of seen) expect(e.t, JSON.stringify(e.fields)).not.toBeNull()

  // board 2 got 1's ELECTION, answered OK and elected itself up to 3
  const rx = seen.filter((e) => e.event === "rx").map((e) => (e.event === "rx" ? [e.kind, e.fields.from] : null))
  expect(rx).toContainEqual(["ELECTION", "1"])
  const tx = seen.flatMap((e) => (e.event === "tx" ? [e.kind] : []))
  expect(tx).toContain("OK")
  expect(tx).toContain("ELECTION")
  const drop = seen.find((e) => e.event === "drop")!
  expect(drop.fields.why).toBeTruthy()
  expect(drop.fields.len).toBe("3")

  // the last role line is the driver's state, read back typed
  const roles = seen.flatMap((e) => (e.event === "role" ? [e] : []))
  const last = roles[roles.length - 1]
  expect(last).toMatchObject({ role: driver.role(), coordinator: driver.coordinator(), epoch: driver.epoch() })
  expect(driver.role()).not.toBe(Role.Follower)
})

test("a misconfigured board's lines: its problem and its role, typed", async () => {
  const { driver, events } = loggedDriver(config(9), configProblems(config(9)))
  await driver.start()
  const seen = events()
  const problems = seen.flatMap((e) => (e.event === "config" ? [e.problem] : []))
  expect(problems).toEqual(configProblems(config(9)))
  const role = seen.find((e) => e.event === "role")
  expect(role).toMatchObject({ event: "role", role: Role.Misconfigured })
  expect(driver.role()).toBe(Role.Misconfigured)
})

test("free text (an error's message, a problem) runs to the end of its line", () => {
  const line = formatLog("err", 1234.4, "n=2 where=start msg=TypeError: cannot read x=1 of null")
  expect(toBoardEvent(parseLogLine(line, 2, 0)!)).toMatchObject({ event: "err", t: 1234, where: "start", message: "TypeError: cannot read x=1 of null" })
})
