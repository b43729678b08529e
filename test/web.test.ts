// The web lab's replay: the engine stepped for the page gives the golden files' traces, the
// clicks re-run from the seed, the exports, the bus tap's decoding; then the page itself in
// headless Chromium (Debian's package through playwright-core). The live page's browser tests
// need the lab's bus: they are in lab.test.ts and, the failover zoom, in ci/web-live.test.ts.
import { readFileSync } from "node:fs"
import { join } from "node:path"
import type { Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, test } from "vitest"
import { encodeFrame } from "../src/core/codec"
import { Algorithm, Kind, makeFrame } from "../src/core/frame"
import { parseScenario } from "../sim/simulator/scenario"
import { launchChromium } from "../sim/web/browser"
import { liveScenario, replayScenario, replayShiviz, shivizLog } from "../sim/web/export"
import { countsUpTo, inFlight, runReplay, traceUpTo } from "../sim/web/replay"
import { parseWebPort, scenarioFiles, startWebServer, type WebServer } from "../sim/web/server"
import { BusTap, DeviceMap, jacdacPackets } from "../sim/web/tap"

const DIR = join(import.meta.dirname, "scenarios")
const source = (name: string) => {
  const file = join(DIR, `${name}.txt`)
  return { name, file, text: readFileSync(file, "utf8") }
}

describe("replay on the core's engine", () => {
  test("every golden scenario, stepped one event at a time, prints exactly its expected output", () => {
    const { scenarios } = scenarioFiles()
    expect(scenarios.length).toBeGreaterThanOrEqual(18)
    for (const { name } of scenarios) {
      const src = source(name)
      const run = runReplay(src)
      expect(run.error, name).toBeNull()
      expect(run.complete, name).toBe(true)
      const expected = parseScenario(src.text, src.file).flatMap((b) => b.expected ?? [])
      expect(traceUpTo(run, run.steps.length - 1), name).toEqual(expected)
      for (const s of run.summaries) expect(s.actual, name).toBe(s.expected)
    }
  })

  test("Tanenbaum: ELECTION 6, OK 3, COORDINATOR 6, and 6 wins", () => {
    const run = runReplay(source("tanenbaum-bully"))
    const end = run.steps.length - 1
    expect(countsUpTo(run, end)).toEqual({ ELECTION: 6, OK: 3, COORDINATOR: 6 })
    expect(run.steps[end].processes.filter((p) => p.role === "coordinator").map((p) => p.id)).toEqual([6])
  })

  test("going back re-runs from the seed: any prefix equals the same steps of the whole run", () => {
    const src = source("silberschatz-bully")
    const whole = runReplay(src)
    expect(whole.steps.length).toBeGreaterThan(8)
    for (const k of [0, 3, 7, whole.steps.length - 2]) {
      const part = runReplay(src, [], k)
      expect(part.steps.length).toBe(k + 1)
      expect(part.steps).toEqual(whole.steps.slice(0, k + 1))
    }
  })

  test("dropping 5's OK to 4 in flight: 4 hears only 6's OK, the winner stays 6", () => {
    const src = source("tanenbaum-bully")
    const run = runReplay(src)
    // step 3 is t=1: 5 and 6 answer 4
    const ok = inFlight(run, 3).find((m) => m.src === 5 && m.dst === 4 && m.kind === "OK")!
    expect(ok).toBeDefined()
    const dropped = runReplay(src, [{ kind: "drop", message: ok.index, atStep: 3 }])
    expect(traceUpTo(dropped, 1e9)).toContain("t=1 5 -> 4 OK lost")
    expect(countsUpTo(dropped, dropped.steps.length - 1)).toEqual({ ELECTION: 6, OK: 3, COORDINATOR: 6 })
    expect(dropped.messages[ok.index]).toMatchObject({ lost: true, droppedByUser: true })
  })

  test("crashing 6 at t=2 hands the election to 5 (ELECTION 11, OK 4, COORDINATOR 5)", () => {
    const src = source("tanenbaum-bully")
    const run = runReplay(src, [{ kind: "crash", node: 6, atStep: 4 }])
    expect(run.steps[5].lines).toEqual(["t=2 6 crashes"])
    expect(run.summaries[0].actual).toMatch(/^coordinator 5 · agreement yes · messages 20 \(ELECTION 11, OK 4, COORDINATOR 5\)/)
    expect(run.summaries[0].expected).not.toBe(run.summaries[0].actual)
  })

  test("exports: the scenario re-runs with the crash; the ShiViz log carries vector clocks", () => {
    const src = source("tanenbaum-bully")
    const interventions = [{ kind: "crash" as const, node: 6, atStep: 4 }]
    const run = runReplay(src, interventions)
    const text = replayScenario(src, run, interventions)
    expect(text.split("\n").slice(2, 5)).toEqual(["cluster algorithm=bully ids=0..7", "at 2 crash 6", "crash 7"])
    const again = runReplay({ name: "exported", text })
    expect(again.error).toBeNull()
    expect(again.summaries[0].actual).toMatch(/^coordinator 5 · agreement yes/)
    const log = replayShiviz(runReplay(src), 1e9).split("\n")
    // 4's ELECTION to 5 then 5's OK back: 5's receipt merges 4's clock
    expect(log.slice(0, 2)).toEqual(["7 crashes", 'P7 {"P7":1}'])
    const okAt4 = log.findIndex((l) => l === "receive OK from 5")
    expect(JSON.parse(log[okAt4 + 1].slice(3))).toEqual({ P4: 6, P5: 2 })
  })

  test("ShiViz: a receipt takes the maximum of both clocks, then ticks", () => {
    const log = shivizLog([
      { node: 1, type: "send", message: 0, text: "a" },
      { node: 2, type: "local", message: -1, text: "b" },
      { node: 2, type: "local", message: -1, text: "c" },
      { node: 2, type: "receive", message: 0, text: "d" },
    ])
    expect(log).toBe('a\nP1 {"P1":1}\nb\nP2 {"P2":1}\nc\nP2 {"P2":2}\nd\nP2 {"P1":1,"P2":3}\n')
  })

  test("a live run exports as a scenario the simulator runs on the bus model", () => {
    const text = liveScenario(
      { algorithm: "bully", ids: [1, 2, 3], transport: "bus", timing: { answerTimeout: 200, coordinatorTimeout: 400, heartbeatInterval: 250, failureTimeout: 800 } },
      [{ at: 1000, action: "kill", node: 3 }],
      5000,
    )
    expect(text).toContain("# kill\nat 1000 crash 3\nrun until=5000")
    const run = runReplay({ name: "live", text })
    expect(run.error).toBeNull()
    expect(run.summaries[0].actual).toMatch(/^coordinator 2 · agreement yes/)
  })
})

describe("--web", () => {
  test("8090 by default, 0 turns the page off, a bad port is named", () => {
    expect(parseWebPort(undefined)).toBe(8090)
    expect(parseWebPort("0")).toBe(0)
    expect(parseWebPort("9001")).toBe(9001)
    expect(() => parseWebPort("http")).toThrow("--web: 'http' is not a port (0 turns the page off)")
    expect(() => parseWebPort("70000")).toThrow("--web: '70000' is not a port")
  })
})

describe("bus tap", () => {
  const election = encodeFrame({ ...makeFrame(Kind.ELECTION, Algorithm.Bully, 1, 0, 4, 5) }).bytes!
  /** A Jacdac frame with one packet, as the hub relays it (without the length byte). */
  const jacdac = (flags: number, device: number[], command: number, payload: number[]) => {
    const n = payload.length
    const packet = [n, 1, command & 0xff, command >> 8, ...payload]
    while (packet.length % 4) packet.push(0)
    return Uint8Array.from([0x12, 0x34, packet.length, flags, ...device, ...packet])
  }
  const device5 = [0xe1, 0xec, 0x7a, 0xb0, 0, 0, 0, 5]

  test("a unicast command carries the frame: decoded with the core's codec", () => {
    const tap = new BusTap()
    const packets = jacdacPackets(jacdac(1, device5, 0x80, election))
    expect(packets).toHaveLength(1)
    expect(packets[0]).toMatchObject({ deviceId: "e1ec7ab000000005", command: true, serviceCommand: 0x80 })
    const [f] = tap.decode(jacdac(1, device5, 0x80, election), 1000, 10)
    expect(f.tapped).toMatchObject({ src: 4, dst: 5, kind: "ELECTION", epoch: 0, at: 10 })
  })

  test("a repeated event is one frame; a garbled one is counted, not shown", () => {
    const tap = new BusTap()
    const event = jacdac(0, device5, 0x8000 | (3 << 8) | 0x81, election)
    expect(tap.decode(event, 1000, 0)).toHaveLength(1)
    expect(tap.decode(event, 1020, 0)).toHaveLength(0)
    expect(tap.decode(jacdac(0, device5, 0x8000 | (4 << 8) | 0x81, election), 1030, 0)).toHaveLength(1)
    expect(tap.decode(jacdac(0, device5, 0x8000 | (5 << 8) | 0x81, [1, 2, 3]), 1040, 0)).toHaveLength(0)
    expect(tap.malformed).toBe(1)
    expect(jacdacPackets(Uint8Array.from([1, 2, 3]))).toEqual([])
  })
})

test("the device map: the announce names the service's index, the node_id reading names the board", () => {
  const map = new DeviceMap()
  const device = [0xd8, 0x22, 0x49, 0xa7, 0xc5, 0x61, 0xbf, 0x19]
  const report = (serviceIndex: number, command: number, payload: number[]) => {
    const packet = [payload.length, serviceIndex, command & 0xff, command >> 8, ...payload]
    while (packet.length % 4) packet.push(0)
    return jacdacPackets(Uint8Array.from([0, 0, packet.length, 0, ...device, ...packet]))
  }
  const le32 = (x: number) => [x & 255, (x >> 8) & 255, (x >> 16) & 255, (x >>> 24) & 255]
  // node_id of service 2 before the announce: not trusted yet
  expect(map.learn(report(2, 0x1180, [3, 0]))).toBe("d82249a7c561bf19")
  expect(map.node("d82249a7c561bf19")).toBeUndefined()
  map.learn(report(0, 0, [...le32(0x100), ...le32(0x12345678), ...le32(0x1e1ec7ab)]))
  map.learn(report(1, 0x1180, [9, 0])) // another service's register 0x180
  expect(map.node("d82249a7c561bf19")).toBeUndefined()
  map.learn(report(2, 0x1180, [3, 0]))
  expect(map.node("d82249a7c561bf19")).toBe(3)
})

describe("the replay page in headless Chromium", () => {
  let server: WebServer
  let chromium: Awaited<ReturnType<typeof launchChromium>>
  let page: Page

  beforeAll(async () => {
    server = await startWebServer({ port: 0 })
    chromium = await launchChromium()
    page = await chromium.browser.newPage({ viewport: { width: 1280, height: 900 } })
  }, 60_000)
  afterAll(async () => {
    await chromium?.close()
    await server?.close()
  })

  test("/?scenario=tanenbaum-bully: ELECTION 6, OK 3, COORDINATOR 6, winner 6, the summary line", async () => {
    const errors: string[] = []
    page.on("pageerror", (e) => errors.push(e.message))
    await page.goto(server.url + "?scenario=tanenbaum-bully")
    await page.waitForSelector("body[data-ready=true]")
    expect(await page.textContent("#counts")).toBe("ELECTION 6, OK 3, COORDINATOR 6")
    expect(await page.textContent("#winner")).toBe("6")
    expect(await page.textContent(".summary-line")).toBe(
      "coordinator 6 · agreement yes · messages 15 (ELECTION 6, OK 3, COORDINATOR 6) · frames 7 · heartbeats 0 · election time 5 · violations none",
    )
    expect(await page.locator(".summary .ok").count()).toBe(1)
    expect(await page.locator('.arrow[data-kind="COORDINATOR"]').count()).toBe(6)
    expect(errors).toEqual([])
  })

  test("stepping back then forward gives the same trace", async () => {
    const trace = async () => (await page.textContent("#trace"))!.split("\n")
    const atEnd = await trace()
    for (let i = 0; i < 4; i++) await page.click("#back")
    expect(await page.textContent("#step")).toBe("step 5/9 · t=2")
    const back = await trace()
    expect(back).toEqual(atEnd.slice(0, back.length))
    expect(back.length).toBeLessThan(atEnd.length)
    for (let i = 0; i < 4; i++) await page.click("#forward")
    expect(await trace()).toEqual(atEnd)
    await page.click("#rewind")
    expect(await page.textContent("#step")).toBe("step 0/9 · t=0")
    expect(await trace()).toEqual(["bully on ideal: ids 0..7; coordinator 7"])
  })

  test("clicking a process crashes it at the current step; clicking a message in flight drops it", async () => {
    await page.goto(server.url + "?scenario=tanenbaum-bully&step=4")
    await page.waitForSelector("body[data-ready=true]")
    await page.click('.board[data-node="6"]')
    expect(await page.getAttribute('.board[data-node="6"]', "data-role")).toBe("crashed")
    await page.click("#end")
    expect(await page.textContent("#winner")).toBe("5")
    expect(await page.textContent("#counts")).toBe("ELECTION 11, OK 4, COORDINATOR 5")
    // back to t=1 on a fresh run: drop the OK from 5 to 4 while it flies
    await page.goto(server.url + "?scenario=tanenbaum-bully&step=3")
    await page.waitForSelector("body[data-ready=true]")
    await page.locator('.in-flight[data-src="5"][data-dst="4"]').dispatchEvent("click")
    expect(await page.textContent("#trace")).toContain("t=1 5 -> 4 OK lost")
  })

  test("every golden scenario loads in the page and matches its golden summary", async () => {
    const { scenarios } = scenarioFiles()
    for (const { name } of scenarios) {
      await page.goto(`${server.url}?scenario=${name}`)
      await page.waitForSelector("body[data-ready=true]")
      expect(await page.locator("#error").count(), name).toBe(0)
      const summaries = await page.locator(".summary").count()
      expect(await page.locator(".summary .ok").count(), name).toBe(summaries)
    }
  }, 60_000)

  test("the form follows the address, and the address the form; the legend names the kinds", async () => {
    await page.goto(`${server.url}?algorithm=echo&n=9&topology=grid:3x3`)
    await page.waitForSelector("body[data-ready=true]")
    expect(await page.inputValue("#algorithm")).toBe("echo")
    expect(await page.inputValue("#n")).toBe("9")
    expect(await page.inputValue("#topology")).toBe("grid:3x3")
    expect(await page.locator(".board").count()).toBe(9)
    expect(await page.locator("#replay-legend .kind").allTextContents()).toEqual(["ELECTION", "COORDINATOR", "ACK", "ECHO"])
    await page.fill("#n", "6")
    await page.selectOption("#topology", "grid:2x3")
    expect(new URL(page.url()).search).toBe("?algorithm=echo&n=6&topology=grid:2x3")
    expect(await page.locator(".board").count()).toBe(6)
    await page.selectOption("#algorithm", "bully")
    expect(new URL(page.url()).search).toBe("?algorithm=bully&n=6")
    await page.click("#end")
    expect(await page.textContent("#winner")).toBe("5")
    // a reload shows what the address says
    await page.reload()
    await page.waitForSelector("body[data-ready=true]")
    expect([await page.inputValue("#algorithm"), await page.inputValue("#n")]).toEqual(["bully", "6"])
    await page.selectOption("#scenario", "tanenbaum-bully")
    expect(new URL(page.url()).search).toBe("?scenario=tanenbaum-bully")
  })

  test("large type: ?large=1 and the toggle, which keeps the address in step", async () => {
    await page.goto(`${server.url}?scenario=tanenbaum-bully&large=1`)
    await page.waitForSelector("body[data-ready=true]")
    expect(await page.evaluate("document.body.classList.contains('large')")).toBe(true)
    const big = await page.evaluate("getComputedStyle(document.body).fontSize")
    await page.click("#large")
    expect(await page.evaluate("document.body.classList.contains('large')")).toBe(false)
    expect(new URL(page.url()).search).toBe("?scenario=tanenbaum-bully")
    expect([big, await page.evaluate("getComputedStyle(document.body).fontSize")]).toEqual(["19px", "14px"])
  })

  test("a made-up cluster: echo on a 3x3 grid", async () => {
    await page.goto(`${server.url}?algorithm=echo&n=9&topology=grid:3x3`)
    await page.waitForSelector("body[data-ready=true]")
    await page.click("#end")
    expect(await page.textContent("#winner")).toBe("8")
    expect(await page.locator(".board").count()).toBe(9)
  })
})
