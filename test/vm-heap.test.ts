// The lab's heap figure (sim/lab/vm-heap.cjs), read from the DeviceScript VM's memory, against
// a program whose heap is known: holding a Buffer of 10,000 bytes adds its block (10,000
// bytes and a 12-byte header) to what is live after a collection, and releasing it takes the
// block away again; the other state of the program moves by a few words between collections.
import { execFile } from "node:child_process"
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs"
import { createRequire } from "node:module"
import { join } from "node:path"
import { promisify } from "node:util"
import { afterAll, describe, expect, test } from "vitest"
import { DEVS_CLI, prepareBuildFolder } from "../sim/lab/firmware-image"
import { parseLogLine } from "../sim/lab/board-vm"
import { toBoardEvent } from "../sim/lab/board-event"
import { heapKindsText } from "../sim/lab/lab"
import { ROOT } from "../sim/config/root"

const require = createRequire(import.meta.url)
const { vmFactory } = require("../sim/lab/vm-runner.cjs") as { vmFactory: (cli: string) => () => Promise<Vm> }
const { HeapMeter, heapFigures, HEAP_BYTES, reportOutOfHeap } = require("../sim/lab/vm-heap.cjs") as {
  HeapMeter: new (vm: Vm) => { sample(): { used: number; free: number; live: number } | null; live: number; peak: number; at: number }
  reportOutOfHeap: (vm: Vm, meter: { at: number }, write: (line: string) => void) => void
  heapFigures: (words: Uint32Array, at: number) => { used: number; free: number } | null
  HEAP_BYTES: number
}

interface Vm {
  HEAPU32: Uint32Array
  dmesg: (line: string) => void
  sendPacket: () => void
  devsSetDeviceId(id: string): void
  devsStart(): void
  devsStop(): void
  devsDeploy(image: Uint8Array): number
  _jd_em_process(): number
}

/** Bytes a Buffer of n bytes takes in the heap: a 12-byte header (tag, length, attached map), rounded to words. */
const bufferBlock = (n: number) => 12 + Math.ceil(n / 4) * 4

const folders: string[] = []
afterAll(() => folders.forEach((f) => rmSync(f, { recursive: true, force: true })))

async function build(program: string): Promise<Buffer> {
  mkdirSync(join(ROOT, ".electlab"), { recursive: true })
  const ws = mkdtempSync(join(ROOT, ".electlab", "heap-"))
  folders.push(ws)
  prepareBuildFolder(ws, null)
  copyFileSync(program, join(ws, "main.ts"))
  await promisify(execFile)(process.execPath, [DEVS_CLI, "build", "main.ts"], { cwd: ws })
  return readFileSync(join(ws, ".devicescript", "bin", "bytecode.devs"))
}

describe("the heap meter", () => {
  test("a held Buffer of 10,000 bytes raises the live heap by its block, to within a few words, and its release lowers it again", async () => {
    const image = await build(join(ROOT, "test", "vm", "heap-hold.vm.ts"))
    const vm = await vmFactory(DEVS_CLI)()
    const meter = new HeapMeter(vm)
    // live after each collection, per phase of the program: before the hold, while held, after
    const phases: number[][] = [[], [], []]
    let phase = 0
    vm.dmesg = (line) => {
      if (line.includes("EL hold")) phase = 1
      if (line.includes("EL release")) phase = 2
    }
    vm.sendPacket = () => undefined
    vm.devsSetDeviceId("12abdd2289421234")
    const step = vm._jd_em_process
    let lastUsed = -1
    vm._jd_em_process = function () {
      const next = step.call(this)
      const f = meter.sample()
      // a step that collected: in use now less than a step before, the garbage gone
      if (f && lastUsed >= 0 && f.used < lastUsed) phases[phase].push(f.live)
      if (f) lastUsed = f.used
      return next
    }
    vm.devsStart()
    expect(vm.devsDeploy(image)).toBe(0)
    try {
      const deadline = Date.now() + 20_000
      while ((phase < 2 || phases[2].length < 3) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50))
    } finally {
      vm.devsStop()
    }
    const [before, holding, after] = phases.map((p) => p.slice(1))
    expect(before.length && holding.length && after.length, JSON.stringify(phases)).toBeGreaterThan(0)
    // the least live after a collection: the program's own state, without the garbage of the moment
    const least = (xs: number[]) => Math.min(...xs)
    // the program's other state moves by a few words from one collection to the next (after the
    // release: 776 to 808 bytes in one run): the figure is the block to within 32 bytes
    const seen = JSON.stringify(phases)
    expect(Math.abs(least(holding) - least(before) - bufferBlock(10_000)), seen).toBeLessThanOrEqual(32)
    expect(Math.abs(least(after) - least(before)), seen).toBeLessThanOrEqual(32)
    expect(meter.peak).toBeGreaterThanOrEqual(least(before) + bufferBlock(10_000))
    expect(meter.peak).toBeLessThan(HEAP_BYTES)
    // the whole chunk is accounted for: every block in use or free
    const whole = heapFigures(vm.HEAPU32, meter.at)!
    expect(whole.used + whole.free).toBe(HEAP_BYTES - 12)
  }, 60_000)

  test("out of heap with most of it free in pieces: the report gives the free bytes and the largest block, smaller than the one asked for", async () => {
    const image = await build(join(ROOT, "test", "vm", "heap-split.vm.ts"))
    const vm = await vmFactory(DEVS_CLI)()
    const meter = new HeapMeter(vm)
    const lines: string[] = []
    let panicked = false
    vm.dmesg = (line) => {
      if (line.includes("PANIC") || line.includes("OutOfMemory")) panicked = true
    }
    reportOutOfHeap(vm, meter, (line) => lines.push(line))
    vm.sendPacket = () => undefined
    vm.devsSetDeviceId("12abdd2289421235")
    const step = vm._jd_em_process
    vm._jd_em_process = function () {
      const next = step.call(this)
      meter.sample()
      return next
    }
    vm.devsStart()
    expect(vm.devsDeploy(image)).toBe(0)
    try {
      const deadline = Date.now() + 20_000
      while (!panicked && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50))
    } finally {
      vm.devsStop()
    }
    expect(lines.length, "no report of the panic").toBeGreaterThan(0)
    const e = toBoardEvent(parseLogLine(lines[0], 3, 100)!)
    expect(e).toMatchObject({ node: 3, event: "oom" })
    if (e.event !== "oom") return
    // 150 Buffers of 100 bytes let go between held ones: about 16 KB free, none of it in one
    // piece that holds a Buffer of 1,000 bytes
    expect(e.free, lines[0]).toBeGreaterThan(150 * bufferBlock(100) - 1024)
    expect(e.largest, lines[0]).toBeLessThan(bufferBlock(1000))
    expect(e.largest, lines[0]).toBeGreaterThanOrEqual(bufferBlock(100))
    // the block asked for (the runtime's own figure) is the Buffer's, and larger than any free one
    expect(e.asked, lines[0]).toBeGreaterThanOrEqual(1000)
    expect(e.asked, lines[0]).toBeLessThanOrEqual(bufferBlock(1000))
    expect(e.asked, lines[0]).toBeGreaterThan(e.largest)
    // what held the rest: the held Buffers, by the runtime's kind of block
    expect(e.kinds.buffer?.bytes, lines[0]).toBeGreaterThan(150 * bufferBlock(100))
  }, 60_000)

  test("a panic's note names the block asked for and what held the heap, largest first", () => {
    expect(heapKindsText({ array: { blocks: 3, bytes: 120 }, buffer: { blocks: 2, bytes: 2048 } })).toBe("; in use: buffer 2,048 bytes in 2 blocks, array 120 bytes in 3 blocks")
    expect(heapKindsText({})).toBe("")
  })

  test("the runner's heap line is a typed event", () => {
    const e = toBoardEvent(parseLogLine("EL heap live=21480 peak=30112", 4, 100)!)
    expect(e).toMatchObject({ node: 4, event: "heap", live: 21480, peak: 30112 })
  })
})
