// The commands for a user's own project, one that has electlab as a dependency:
//   init    a manifest, the bus service's specification, the board definitions and a starter program
//   bundle  for every board of the manifest, the program's image with that board's settings
//   flash   `devs flash` with a board's definition and its bundle
// They write into the project folder only, never into node_modules.

import { execFile, spawn } from "node:child_process"
import { chmodSync, copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs"
import { join, relative, resolve } from "node:path"
import { createInterface } from "node:readline/promises"
import { promisify } from "node:util"
import { parseAlgorithm } from "../../src/core/algorithms"
import { readKeyFile } from "../auth/keys"
import { InputError } from "../config/input"
import { buildFirmwareImage, DEVS_CLI, type ImageConfig, removeFirmwareImage } from "../lab/firmware-image"
import { programImport } from "../lab/program"
import { type Manifest, manifestTiming, readManifest } from "../config/manifest"
import { PROJECT, ROOT } from "../config/root"
import { BOOT_BUTTON_PIN } from "./settings"

/** What `init` wrote, what it left as it was, and what it replaced (`devs init`'s untouched starter). */
export interface InitReport {
  wrote: string[]
  kept: string[]
  replaced: string[]
}

/** The program `devs init` (DeviceScript 2.16) writes to src/main.ts: it starts no election. */
export const DEVS_INIT_STARTER = `import * as ds from "@devicescript/core"

setInterval(async () => {
    console.log(":)")
}, 1000)
`

/** Where init puts its starter when the project's src/main.ts is the user's own. */
export const STARTER_BESIDE = "src/electlab-main.ts"

const STARTER = `// An ElectLab board program: the LED shows this board's role (solid while coordinator), the
// BOOT button crashes the board and, pressed again, recovers it. The algorithm, node ids and
// timing come from devicescript.json (the lab and \`electlab bundle\` compile them in).
import { createElection } from "electlab"
import { bootButton } from "electlab/src/firmware/button"
import { StatusLed } from "electlab/src/firmware/led"

const election = await createElection()
const led = new StatusLed()
led.start()
election.onChange((s) => led.roleChanged(s.role, s.coordinator, s.epoch))
const button = bootButton(election.driver.config.buttonPin, election.id)
if (button) button.down.subscribe(async () => await election.setCrashed(!election.crashed()))
election.whileCoordinator(async (duty) => {
    election.log("app", "msg=leading: the coordinator's work goes here")
    duty.onStop(() => election.log("app", "msg=no longer leading"))
})
await election.start()
`

/**
 * Prepares `dir` for ElectLab: devicescript.json (the repository's five-board manifest), the
 * bus service's specification (DeviceScript reads custom services from the project's
 * services/ only), the board definitions, devsconfig.json and src/main.ts when missing.
 */
export function initProject(dir: string): InitReport {
  const report: InitReport = { wrote: [], kept: [], replaced: [] }
  const put = (name: string, text: string | Buffer) => {
    const path = join(dir, name)
    if (existsSync(path)) {
      report.kept.push(name)
      return
    }
    mkdirSync(join(path, ".."), { recursive: true })
    writeFileSync(path, text)
    report.wrote.push(name)
  }
  const manifest = JSON.parse(readFileSync(join(ROOT, "devicescript.json"), "utf8"))
  manifest.$schema = "./node_modules/electlab/sim/manifest.schema.json"
  put("devicescript.json", JSON.stringify(manifest, null, 2) + "\n")
  for (const [folder, suffix] of [["services", ".md"], ["boards", ".board.json"]])
    for (const name of readdirSync(join(ROOT, folder)).filter((n) => n.endsWith(suffix)))
      put(`${folder}/${name}`, readFileSync(join(ROOT, folder, name)))
  put("devsconfig.json", "{}\n")
  const main = join(dir, "src", "main.ts")
  const program = existsSync(main) ? readFileSync(main, "utf8").replace(/\r\n/g, "\n").trim() : null
  if (program === DEVS_INIT_STARTER.trim()) {
    writeFileSync(main, STARTER)
    report.replaced.push("src/main.ts")
  } else if (program === STARTER.trim()) report.kept.push("src/main.ts")
  else if (program !== null) {
    // the user's own program stays; the starter goes beside it
    report.kept.push("src/main.ts")
    put(STARTER_BESIDE, STARTER)
  } else put("src/main.ts", STARTER)
  return report
}

export interface BundleFlags {
  manifest: string
  program: string
  keyFile?: string
  out: string
  bytecodeOnly?: boolean
}

/** A board's image: the manifest's settings with this board's node id and button compiled in. */
export function boardImageConfig(m: Manifest, boardName: string, program: string, authKey?: string): ImageConfig {
  const board = m.boards.find((b) => b.name === boardName)
  if (!board) throw new InputError(`no board '${boardName}' in the manifest; boards: ${m.boards.map((b) => b.name).join(", ")}`, "--board")
  const broker = m.mqtt ? new URL(m.mqtt.broker) : null
  return {
    algorithm: parseAlgorithm(m.algorithm),
    ids: m.boards.map((b) => b.nodeId),
    group: m.group,
    timing: manifestTiming(m),
    suitability: m.boards.map((b) => b.suitability ?? 0),
    mqtt:
      m.transport === "mqtt" && broker
        ? { host: broker.hostname, port: Number(broker.port || 1883), prefix: m.mqtt?.topicPrefix ?? "electlab" }
        : undefined,
    authKey,
    program,
    board: { nodeId: board.nodeId, buttonPin: board.board ? (BOOT_BUTTON_PIN[board.board] ?? -1) : -1 },
  }
}

/** Where a board's files go: <out>/<name>.devs (the program) and <out>/<name>.bin (runtime, program and settings, to flash). */
export function bundlePaths(out: string, boardName: string) {
  return { bytecode: join(out, `${boardName}.devs`), flash: join(out, `${boardName}.bin`) }
}

/**
 * Builds every board's image, one after another: the bytecode always, then (unless
 * bytecodeOnly) `devs bundle`, which adds the DeviceScript runtime for the board's definition
 * (downloaded from the DeviceScript releases, so it needs the internet once a day). The files
 * hold the key: the folder and each file are the owner's only.
 */
export async function bundleBoards(flags: BundleFlags, print: (line: string) => void): Promise<number> {
  const m = readManifest(flags.manifest)
  const authKey = flags.keyFile ? readKeyFile(flags.keyFile, "--key-file") : undefined
  try {
    programImport(flags.program)
  } catch (e) {
    throw new InputError((e as Error).message.replace(/^--program [^:]*: /, ""), "--program")
  }
  const out = resolve(flags.out)
  mkdirSync(out, { recursive: true, mode: 0o700 })
  chmodSync(out, 0o700)
  let failed = 0
  for (const board of m.boards) {
    const paths = bundlePaths(out, board.name)
    const image = await buildFirmwareImage(boardImageConfig(m, board.name, flags.program, authKey), `bundle-${board.name}-${process.pid}`)
    try {
      copyFileSync(image.path, paths.bytecode)
      chmodSync(paths.bytecode, 0o600)
      let line = `${board.name}: node ${board.nodeId}, ${m.algorithm}, ${image.bytes} bytes of bytecode in ${relative(PROJECT, paths.bytecode)}`
      if (!flags.bytecodeOnly) {
        if (!board.board) throw new InputError(`board '${board.name}' names no board definition ("board" in the manifest): devs bundle needs one`, flags.manifest)
        const problem = await devsBundle(image.folder, board.board, paths.flash)
        if (problem) {
          failed++
          line += `; no flash image: ${problem}`
        } else line += ` and ${relative(PROJECT, paths.flash)} to flash`
      }
      print(line)
    } finally {
      removeFirmwareImage(image)
    }
  }
  return failed ? 1 : 0
}

/** `devs bundle` in a build folder; the runtime download is cached in the project's .devicescript/cache. */
async function devsBundle(folder: string, boardDefinition: string, flashFile: string): Promise<string | null> {
  const cache = join(PROJECT, ".devicescript", "cache")
  mkdirSync(cache, { recursive: true })
  mkdirSync(join(folder, ".devicescript"), { recursive: true })
  const link = join(folder, ".devicescript", "cache")
  if (!existsSync(link)) symlinkSync(cache, link)
  try {
    await promisify(execFile)(process.execPath, [DEVS_CLI, "bundle", "lab-main.ts", "--board", boardDefinition, "--flash-file", flashFile], { cwd: folder })
    chmodSync(flashFile, 0o600)
    return null
  } catch (e) {
    const err = e as { stdout?: string; stderr?: string; message: string }
    const text = `${err.stdout ?? ""}${err.stderr ?? ""}` || err.message
    const fetch = /can't fetch[^\n]*|fetch failed[^\n]*|ENOTFOUND[^\n]*/.exec(text)
    if (fetch) return `devs bundle could not download the DeviceScript runtime for ${boardDefinition} (${fetch[0].trim()}); it needs the internet`
    return `devs bundle failed: ${text.trim().split("\n").slice(-3).join(" ")}`
  }
}

export interface FlashFlags {
  manifest: string
  board?: string
  all?: boolean
  out: string
  port?: string
  dryRun?: boolean
}

/** The `devs flash` command line for one board: its definition and its bundle. */
export function flashCommand(m: Manifest, boardName: string, out: string, port?: string): string[] {
  const board = m.boards.find((b) => b.name === boardName)
  if (!board) throw new InputError(`no board '${boardName}' in the manifest; boards: ${m.boards.map((b) => b.name).join(", ")}`, "--board")
  if (!board.board) throw new InputError(`board '${boardName}' names no board definition ("board" in the manifest)`, "--board")
  const file = bundlePaths(resolve(out), boardName).flash
  if (!existsSync(file)) throw new InputError(`no bundle for '${boardName}' at ${relative(PROJECT, file)}: run electlab bundle first`, "--board")
  return [DEVS_CLI, "flash", "esp32", "--board", board.board, "--file", file, ...(port ? ["--port", port] : [])]
}

/** Flashes one board, or every board one after another, asking to plug in the next. */
export async function flashBoards(flags: FlashFlags, print: (line: string) => void): Promise<number> {
  if (!flags.board === !flags.all) throw new InputError("name one board (--board NAME) or --all", "--board")
  const m = readManifest(flags.manifest)
  const names = flags.all ? m.boards.map((b) => b.name) : [flags.board!]
  const commands = names.map((name) => ({ name, args: flashCommand(m, name, flags.out, flags.port) }))
  for (const { name, args } of commands) {
    const shown = ["devs", ...args.slice(1)].join(" ")
    if (flags.dryRun) {
      print(shown)
      continue
    }
    if (flags.all) {
      const rl = createInterface({ input: process.stdin, output: process.stdout })
      await rl.question(`plug in ${name}, then press Enter `)
      rl.close()
    }
    print(`${name}: ${shown}`)
    const code = await new Promise<number>((done) => spawn(process.execPath, args, { stdio: "inherit" }).on("exit", (c) => done(c ?? 1)))
    if (code !== 0) {
      print(`${name}: devs flash failed (exit ${code})`)
      return code
    }
  }
  return 0
}
