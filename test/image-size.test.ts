// `electlab size` on one small image: its tables account for every byte of function code
// and of string data the compiler reports.
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { expect, test } from "vitest"
import { parseAlgorithm } from "../src/core/algorithms"
import { buildFirmwareImage, MAX_FUNCTION_CODE_END, removeFirmwareImage } from "../sim/lab/firmware-image"
import { censusOf, type DebugInfo, formatCensus, type SizeOptions, sizeImageConfig, sizeOptions } from "../sim/lab/image-size"
import { InputError } from "../sim/config/input"

const sum = (rows: { bytes: number }[]) => rows.reduce((s, r) => s + r.bytes, 0)

test("the per-file and per-package tables add up to the image's function code", async () => {
  const options: SizeOptions = { algorithm: parseAlgorithm("bully"), program: "src/main.ts", transport: "bus", boards: 3, key: true, logins: false, failureDetector: "fixed", ballastKb: 0 }
  const config = sizeImageConfig(options)
  const image = await buildFirmwareImage(config, `size-test-${process.pid}`)
  try {
    const dbg = JSON.parse(readFileSync(join(image.folder, ".devicescript", "bin", "bytecode-dbg.json"), "utf8")) as DebugInfo & { sizes: { header: number; strings: number } }
    const census = censusOf(dbg, readFileSync(image.path), 10, new Map([[config.authKey!, "(the group key)"]]))
    expect(census.codeEnd).toBe(image.codeEnd)
    expect(census.free).toBe(MAX_FUNCTION_CODE_END - image.codeEnd)
    expect(census.header).toBe(dbg.sizes.header)
    expect(dbg.functions.reduce((s, f) => s + f.size, 0)).toBe(census.functionCode)
    expect(sum(census.files)).toBe(census.functionCode)
    expect(sum(census.packages)).toBe(census.functionCode)
    expect(census.files.reduce((n, r) => n + r.count, 0)).toBe(dbg.functions.length)
    expect(census.files.map((r) => r.name)).toContain("src/core/bully.ts")
    expect(census.packages.map((r) => r.name)).toContain("src/core")
    expect(census.functions).toHaveLength(10)
    // the string tables as the compiler counts them; each string's share, alignment aside
    expect(census.strings.bytes).toBe(dbg.sizes.strings)
    expect(sum(census.strings.kinds)).toBeLessThanOrEqual(census.strings.bytes)
    expect(sum(census.strings.kinds)).toBeGreaterThan(census.strings.bytes * 0.9)
    const text = formatCensus(options, census, 10)
    expect(text).toMatch(/bully, src\/main\.ts, 3 boards over the bus, a key, fixed detector: function code ends at \d+ of 65536/)
    expect(text).not.toContain(config.authKey!)
  } finally {
    removeFirmwareImage(image)
  }
}, 120_000)

test("the flags are checked before anything is built", () => {
  const flags = { transport: "mqtt", boards: "12", key: true, logins: true, failureDetector: "adaptive", ballastKb: "0", top: "20" }
  expect(sizeOptions(flags)).toHaveLength(6)
  expect(sizeOptions({ ...flags, algorithm: "ring" })).toHaveLength(1)
  expect(() => sizeOptions({ ...flags, transport: "udp" })).toThrow(InputError)
  expect(() => sizeOptions({ ...flags, algorithm: "raft" })).toThrow(/unknown algorithm 'raft'/)
  expect(() => sizeOptions({ ...flags, boards: "13" })).toThrow(/--boards/)
  expect(() => sizeOptions({ ...flags, program: "nowhere/main.ts" })).toThrow(/--program: no such file/)
})
