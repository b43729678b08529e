// `electlab size`: what a board image spends its 64 KB of function code on. It builds the
// image as the lab does (firmware-image.ts) and reads the compiler's debug file beside it
// (bytecode-dbg.json: every function's name, size and place in the sources) and the
// image's string tables. docs/image-size.md.

import { randomBytes } from "node:crypto"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { algorithmName, ALGORITHMS } from "../../src/core/algorithms"
import type { Timing } from "../../src/core/contract"
import { MAX_NODES } from "../../src/core/limits"
import { InputError, parseAlgorithmName, parseInteger } from "../config/input"
import { nodeUser } from "./broker-access"
import { PROJECT, ROOT } from "../config/root"
import { buildFirmwareImage, functionCodeEnd, type ImageConfig, MAX_FUNCTION_CODE_END, removeFirmwareImage } from "./firmware-image"
import { DEFAULT_PROGRAM, programImport } from "./program"

/** What the compiler's bytecode-dbg.json holds that the census reads. */
export interface DebugInfo {
  functions: { name: string; size: number; location: [number, number]; slots?: unknown[] }[]
  sources: { path: string; length: number; index: number }[]
}

export interface Row {
  name: string
  bytes: number
  /** Functions (files, packages) or strings (string kinds). */
  count: number
}

export interface ImageCensus {
  /** Where the function code ends: the image's header plus every function. */
  codeEnd: number
  /** The VM refuses an image whose function code ends past this. */
  limit: number
  free: number
  /** The image's header (before the first function). */
  header: number
  /** Every function's bytes, descriptor included: codeEnd - header. */
  functionCode: number
  /** The whole image (flash): code, numbers, strings, service specs. */
  imageBytes: number
  /** Function code per source file, biggest first. The compiler's own functions count under the entry file. */
  files: Row[]
  /** Function code per package (node_modules/<package>) or project folder. */
  packages: Row[]
  /** Every function, biggest first; `name` is "file: function". */
  functions: Row[]
  /** String data: total bytes (tables and text), and per kind. */
  strings: { bytes: number; count: number; kinds: Row[]; largest: Row[] }
  /** The largest call frames: heap bytes one call of the function asks for in one block; `count` is its slots. */
  callFrames: Row[]
}

/**
 * The heap block a call asks for (DeviceScript 2.16.4's fibers.c): the activation's 24-byte
 * record and 8 bytes a slot (arguments, locals, temporaries); a try block adds 4. In a heap
 * in pieces, a call whose frame finds no free block that large runs the board out of heap.
 */
export function callFrameBytes(slots: number): number {
  return 24 + 8 * slots
}

// the compiler's two functions of the whole image, placed at the entry file's start
const IMAGE_FUNCTIONS: Record<string, string> = {
  main: "(top-level code of every module)",
  prototype: "(class table: every method of every class)",
}

function sortRows(rows: Map<string, Row> | Row[]): Row[] {
  return [...rows.values()].sort((a, b) => b.bytes - a.bytes || a.name.localeCompare(b.name))
}

function add(rows: Map<string, Row>, name: string, bytes: number) {
  const row = rows.get(name) ?? { name, bytes: 0, count: 0 }
  row.bytes += bytes
  row.count++
  rows.set(name, row)
}

/** In the repository the package's own files go by their path in it (src/core/bully.ts), as the build folder's node_modules/electlab hides. */
function ownPath(path: string): string {
  return PROJECT === ROOT ? path.replace(/^node_modules\/electlab\//, "") : path
}

/** A node_modules path -> its package ("@devicescript/net"); a project path -> its folder ("src/core"); the generated entry -> "(generated entry)". */
export function packageOf(path: string): string {
  const m = /^node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(path)
  if (m) return m[1]
  if (path.startsWith("(")) return "(compiler)"
  const slash = path.lastIndexOf("/")
  return slash < 0 ? "(generated entry)" : path.slice(0, slash)
}

/** The image's string literals, property and function names, read from its sections (the compiler's format). */
export function imageStrings(bytecode: Buffer): { text: string; kind: string; bytes: number }[] {
  const section = (i: number) => {
    const off = bytecode.readUInt32LE(32 + i * 8)
    return bytecode.subarray(off, off + bytecode.readUInt32LE(36 + i * 8))
  }
  const [ascii, utf8, buffers, data] = [section(4), section(5), section(6), section(7)]
  const out: { text: string; kind: string; bytes: number }[] = []
  for (let i = 0; i + 2 <= ascii.length; i += 2) {
    const start = ascii.readUInt16LE(i)
    if (i > 0 && start === 0) break // the table's alignment padding
    const end = data.indexOf(0, start)
    const text = data.subarray(start, end).toString("latin1")
    // descriptor, text and its NUL
    out.push({ text, kind: /^[A-Za-z_$][\w$]*$/.test(text) ? "names" : "text", bytes: 2 + text.length + 1 })
  }
  for (let i = 0; i + 4 <= utf8.length; i += 4) {
    const start = utf8.readUInt32LE(i)
    const size = data.readUInt16LE(start)
    const jumps = data.readUInt16LE(start + 2) >> 4
    out.push({ text: data.subarray(start + 4 + jumps * 2, start + 4 + jumps * 2 + size).toString("utf8"), kind: "text (utf-8)", bytes: 4 + 4 + jumps * 2 + size })
  }
  for (let i = 0; i + 8 <= buffers.length; i += 8) {
    const size = buffers.readUInt32LE(i + 4)
    out.push({ text: `<${size}-byte buffer>`, kind: "buffers", bytes: 8 + size })
  }
  return out
}

/**
 * The census of a built image: its debug file and its bytecode. A string found in `secrets`
 * is listed by its label (the group key, a broker password), never its text.
 */
export function censusOf(dbg: DebugInfo, bytecode: Buffer, top = 20, secrets = new Map<string, string>()): ImageCensus {
  const sources = [...dbg.sources].sort((a, b) => a.index - b.index)
  const starts: number[] = []
  let offset = 0
  for (const s of sources) {
    starts.push(offset)
    offset += s.length
  }
  const fileAt = (position: number) => {
    let i = 0
    while (i + 1 < sources.length && starts[i + 1] <= position) i++
    return ownPath(sources[i].path)
  }
  const files = new Map<string, Row>()
  const packages = new Map<string, Row>()
  const functions: Row[] = []
  const callFrames: Row[] = []
  for (const f of dbg.functions) {
    const file = IMAGE_FUNCTIONS[f.name] ?? fileAt(f.location[0])
    add(files, file, f.size)
    add(packages, packageOf(file), f.size)
    functions.push({ name: IMAGE_FUNCTIONS[f.name] ? file : `${file}: ${f.name}`, bytes: f.size, count: 1 })
    const slots = f.slots?.length ?? 0
    callFrames.push({ name: IMAGE_FUNCTIONS[f.name] ? file : `${file}: ${f.name}`, bytes: callFrameBytes(slots), count: slots })
  }
  const codeEnd = functionCodeEnd(bytecode)
  const functionCode = dbg.functions.reduce((sum, f) => sum + f.size, 0)
  const strings = imageStrings(bytecode)
  const kinds = new Map<string, Row>()
  for (const s of strings) add(kinds, s.kind, s.bytes)
  // the sections of strings: tables and data, alignment included
  let stringBytes = 0
  for (let i = 4; i <= 7; i++) stringBytes += bytecode.readUInt32LE(36 + i * 8)
  return {
    codeEnd,
    limit: MAX_FUNCTION_CODE_END,
    free: MAX_FUNCTION_CODE_END - codeEnd,
    header: codeEnd - functionCode,
    functionCode,
    imageBytes: bytecode.length,
    files: sortRows(files),
    packages: sortRows(packages),
    functions: sortRows(functions).slice(0, top),
    strings: {
      bytes: stringBytes,
      count: strings.length,
      kinds: sortRows(kinds),
      largest: sortRows(strings.map((s) => ({ name: secrets.get(s.text) ?? JSON.stringify(s.text), bytes: s.bytes, count: 1 }))).slice(0, top),
    },
    callFrames: sortRows(callFrames).slice(0, top),
  }
}

export interface SizeOptions {
  algorithm: number
  program: string
  transport: "bus" | "mqtt"
  boards: number
  key: boolean
  /** Broker logins compiled in (mqtt only). */
  logins: boolean
  failureDetector: "fixed" | "adaptive"
  ballastKb: number
}

/** The image configuration `electlab size` builds: fresh random secrets, as long as the lab's. */
export function sizeImageConfig(o: SizeOptions): ImageConfig {
  const ids = Array.from({ length: o.boards }, (_, i) => i + 1)
  const timing: Timing = { answerTimeout: 200, coordinatorTimeout: 400, heartbeatInterval: 250, failureTimeout: 800, failureDetector: o.failureDetector }
  return {
    algorithm: o.algorithm,
    ids,
    group: 1,
    timing,
    mqtt:
      o.transport === "mqtt"
        ? {
            host: "127.0.0.1",
            port: 1883,
            prefix: "electlab",
            logins: o.logins ? ids.map((id) => ({ username: nodeUser(id), password: randomBytes(12).toString("hex") })) : undefined,
          }
        : undefined,
    authKey: o.key ? randomBytes(32).toString("hex") : undefined,
    program: o.program,
    ballastKb: o.ballastKb || undefined,
  }
}

/** Builds the image of `o` and takes its census; the build folder (it holds the key) is removed. */
export async function measureImage(o: SizeOptions, top = 20): Promise<ImageCensus> {
  const config = sizeImageConfig(o)
  const secrets = new Map<string, string>()
  if (config.authKey) secrets.set(config.authKey, "(the group key)")
  for (const login of config.mqtt?.logins ?? []) secrets.set(login.password, "(a broker password)")
  const image = await buildFirmwareImage(config, `size-${process.pid}`)
  try {
    const dbg = JSON.parse(readFileSync(join(image.folder, ".devicescript", "bin", "bytecode-dbg.json"), "utf8")) as DebugInfo
    return censusOf(dbg, readFileSync(image.path), top, secrets)
  } finally {
    removeFirmwareImage(image)
  }
}

export interface SizeFlags {
  algorithm?: string
  program?: string
  transport: string
  boards: string
  key: boolean
  logins: boolean
  failureDetector: string
  ballastKb: string
  top: string
  json?: boolean
}

/** The flags as options, one per algorithm asked for (every algorithm when none is named). */
export function sizeOptions(flags: SizeFlags): SizeOptions[] {
  const transport = flags.transport
  if (transport !== "bus" && transport !== "mqtt") throw new InputError(`unknown transport '${transport}'; known: bus, mqtt`, "--transport")
  const failureDetector = flags.failureDetector
  if (failureDetector !== "fixed" && failureDetector !== "adaptive")
    throw new InputError(`unknown failure detector '${failureDetector}'; known: fixed, adaptive`, "--failure-detector")
  const program = flags.program ?? DEFAULT_PROGRAM
  try {
    programImport(program)
  } catch (e) {
    throw new InputError((e as Error).message.replace(/^--program [^:]*: /, ""), "--program")
  }
  const algorithms = flags.algorithm ? [parseAlgorithmName(flags.algorithm, "--algorithm")] : ALGORITHMS.map((d) => d.algorithm)
  return algorithms.map((algorithm) => ({
    algorithm,
    program,
    transport,
    boards: parseInteger(flags.boards, "--boards", 2, MAX_NODES),
    key: flags.key,
    logins: flags.logins,
    failureDetector,
    ballastKb: parseInteger(flags.ballastKb, "--ballast-kb", 0, 64),
  }))
}

const kb = (bytes: number) => (bytes / 1024).toFixed(1)

function table(title: string, rows: Row[], what: string, total: number): string[] {
  const lines = [`${title}:`, `  ${"bytes".padStart(6)}  ${"share".padStart(5)}  ${what.padStart(5)}  name`]
  for (const r of rows) lines.push(`  ${String(r.bytes).padStart(6)}  ${((100 * r.bytes) / total).toFixed(1).padStart(4)}%  ${String(r.count).padStart(5)}  ${r.name}`)
  return lines
}

/** The summary line of one image. */
export function formatSummary(o: SizeOptions, c: ImageCensus): string {
  const what = `${algorithmName(o.algorithm)}, ${o.program}, ${o.boards} boards over ${o.transport === "mqtt" ? `WiFi${o.logins ? " with broker logins" : ""}` : "the bus"}, ${o.key ? "a key" : "no key"}, ${o.failureDetector} detector`
  return `${what}: function code ends at ${c.codeEnd} of ${c.limit}, ${c.free} bytes (${kb(c.free)} KB) free; image ${c.imageBytes} bytes, strings ${c.strings.bytes}`
}

/** The census as text: where the code ends, then the tables. */
export function formatCensus(o: SizeOptions, c: ImageCensus, top: number): string {
  const lines = [
    formatSummary(o, c),
    "",
    ...table("function code per package or folder", c.packages, "funcs", c.functionCode),
    "",
    ...table("function code per file", c.files.slice(0, top), "funcs", c.functionCode),
    ...(c.files.length > top ? [`  (${c.files.length - top} more files: --top N)`] : []),
    "",
    ...table(`the ${c.functions.length} largest functions`, c.functions, "", c.functionCode),
    "",
    ...table(`strings (${c.strings.count}, ${c.strings.bytes} bytes with their tables; not function code)`, c.strings.kinds, "count", c.strings.bytes),
    "",
    ...table(`the ${c.strings.largest.length} largest strings`, c.strings.largest, "", c.strings.bytes),
    "",
    `the ${c.callFrames.length} largest call frames (heap bytes one call asks for in one block):`,
    `  ${"bytes".padStart(6)}  ${"slots".padStart(5)}  name`,
    ...c.callFrames.map((r) => `  ${String(r.bytes).padStart(6)}  ${String(r.count).padStart(5)}  ${r.name}`),
  ]
  return lines.join("\n") + "\n"
}

export async function runSizeCommand(flags: SizeFlags): Promise<number> {
  const all = sizeOptions(flags)
  const top = parseInteger(flags.top, "--top", 1, 10_000)
  const results: { options: SizeOptions; census: ImageCensus }[] = []
  for (const options of all) {
    const census = await measureImage(options, top).catch((e: Error) => {
      throw new InputError(e.message, "size")
    })
    results.push({ options, census })
    if (!flags.json && all.length > 1) process.stdout.write(formatSummary(options, census) + "\n")
  }
  if (flags.json) {
    const out = results.map((r) => ({ ...r.options, algorithm: algorithmName(r.options.algorithm), ...r.census }))
    process.stdout.write(JSON.stringify(flags.algorithm ? out[0] : out, null, 2) + "\n")
  } else {
    // with every algorithm: the tables of the image with the least room
    const tightest = results.reduce((a, b) => (b.census.free < a.census.free ? b : a))
    if (all.length > 1) process.stdout.write(`\nthe least room: ${algorithmName(tightest.options.algorithm)}\n\n`)
    process.stdout.write(formatCensus(tightest.options, tightest.census, top))
  }
  return results.every((r) => r.census.free >= 0) ? 0 : 3
}
