// Compiles the real firmware for the virtual lab. The lab's settings (algorithm, ids,
// timing, key, broker logins) go into a generated entry file; each VM's node id comes from
// its device id. The build runs in its own folder (.electlab/ws-*, symlinks to the sources)
// so that its output never races another `devs` run in the project folder. The entry file and
// the bytecode hold the key: the folder is the owner's only (0700) and is removed at exit.
//
// The build folder sees the electlab package as node_modules/electlab, in the repository as in
// a user's project, and the generated files import it by that name: the DeviceScript compiler
// tells modules apart by path, so a module reached by two paths would run twice.

import { execFile } from "node:child_process"
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { promisify } from "node:util"
import type { Timing } from "../../src/core/contract"
import { descriptorOf } from "../../src/core/algorithms"
import { type Credentials, nodeUser } from "./broker-access"
import { holdSecretFolder, redact, removeSecretFolder } from "./secret-files"
import { devsCli, PROJECT, ROOT } from "../config/root"
import { defaultProgram, PACKAGE, programImport } from "./program"

export const DEVS_CLI = devsCli()

export interface ImageConfig {
  algorithm: number
  ids: number[]
  group: number
  timing: Timing
  /** bid-ring: each board's suitability, aligned with `ids` (absent: all 0). */
  suitability?: number[]
  /** Frames over MQTT through this broker instead of over the bus. */
  mqtt?: {
    host: string
    port: number
    prefix: string
    /** Each board's broker login, aligned with `ids` (absent: the broker takes anonymous clients). */
    logins?: Credentials[]
  }
  /** Group key (64 hex digits): frames authenticated. */
  authKey?: string
  /** The rogue's own key (another wrong one). */
  rogueKey?: string
  /** The board with this id (not a member) is a rogue: it forges frames with `authKey` (a wrong key). */
  rogue?: number
  /** The program every board runs, a .ts file inside the project on the election API (default src/main.ts). */
  program?: string
  /** KB of heap each board holds from boot on (headroom measurements); absent: none. */
  ballastKb?: number
  /** An image for one real board (`electlab bundle`): its node id and BOOT button compiled in, no lab tools. */
  board?: { nodeId: number; buttonPin: number }
}

/** Everything of a lab that its firmware depends on. */
export interface LabFirmware {
  algorithm: number
  ids: number[]
  group: number
  timing: Timing
  suitability?: number[]
  /** The lab's group key; null: frames unauthenticated. */
  authKey: string | null
  /** Frames over MQTT through the lab's broker on 127.0.0.1 (with its logins when it checks them). */
  broker?: { port: number; credentials: Map<string, Credentials> | null } | null
  /** The program every board runs (default src/main.ts). */
  program?: string
  ballastKb?: number
}

export const LAB_TOPIC_PREFIX = "electlab"

/**
 * The image configuration of a lab, key and broker logins included: the one place that
 * turns a lab into firmware settings (the lab's start and the web view's slow motion).
 */
export function labImageConfig(lab: LabFirmware): ImageConfig {
  const broker = lab.broker
  const credentials = broker?.credentials
  return {
    algorithm: lab.algorithm,
    ids: lab.ids,
    group: lab.group,
    timing: lab.timing,
    suitability: lab.suitability,
    mqtt: broker
      ? {
          host: "127.0.0.1",
          port: broker.port,
          prefix: LAB_TOPIC_PREFIX,
          logins: credentials ? lab.ids.map((id) => credentials.get(nodeUser(id))!) : undefined,
        }
      : undefined,
    authKey: lab.authKey ?? undefined,
    program: lab.program,
    ballastKb: lab.ballastKb,
  }
}

/** Builds the firmware of a lab (see labImageConfig). */
export function buildLabFirmware(lab: LabFirmware, name?: string): Promise<FirmwareImage> {
  return buildFirmwareImage(labImageConfig(lab), name)
}

export interface FirmwareImage {
  /** The compiled bytecode (.devs). */
  path: string
  /** Bytecode size in bytes. */
  bytes: number
  /** The build folder, removed when the lab stops. */
  folder: string
  mqtt?: ImageConfig["mqtt"]
  /** Where the image's function code ends (functionCodeEnd). */
  codeEnd: number
}

/**
 * The DeviceScript verifier refuses an image whose function code ends past 64 KB (error
 * 1051; `devs build` fails with it): docs/devicescript.md.
 */
export const MAX_FUNCTION_CODE_END = 0x10000

/** Where a .devs image's function code ends: the functions section's offset plus its length (header words 10 and 11). */
export function functionCodeEnd(bytecode: Buffer): number {
  return bytecode.readUInt32LE(40) + bytecode.readUInt32LE(44)
}

function linkInto(folder: string, name: string, target: string) {
  const link = join(folder, name)
  if (!existsSync(link)) symlinkSync(target, link)
}

/** Links every entry of `from` whose name passes `keep` into `folder` (made if missing). */
function linkEntries(folder: string, from: string, keep: (name: string) => boolean) {
  mkdirSync(folder, { recursive: true })
  if (!existsSync(from)) return
  for (const name of readdirSync(from)) if (keep(name)) linkInto(folder, name, join(from, name))
}

/**
 * Fills a build folder: the project's node_modules with the electlab package among them, the
 * service specifications and board definitions of the package and of the project, the
 * project's package.json and devsconfig.json, and the program's top-level folder.
 */
export function prepareBuildFolder(ws: string, program: string | null) {
  const modules = existsSync(join(PROJECT, "node_modules", "@devicescript")) ? join(PROJECT, "node_modules") : join(ROOT, "node_modules")
  linkEntries(join(ws, "node_modules"), modules, () => true)
  linkInto(join(ws, "node_modules"), PACKAGE, ROOT)
  for (const [folder, suffix] of [["services", ".md"], ["boards", ".board.json"]]) {
    const keep = (name: string) => name.endsWith(suffix) && name !== "README.md"
    linkEntries(join(ws, folder), join(ROOT, folder), keep)
    if (PROJECT !== ROOT) linkEntries(join(ws, folder), join(PROJECT, folder), keep)
  }
  linkInto(ws, "package.json", join(PROJECT, "package.json"))
  linkInto(ws, "devsconfig.json", existsSync(join(PROJECT, "devsconfig.json")) ? join(PROJECT, "devsconfig.json") : join(ROOT, "devsconfig.json"))
  const top = program?.startsWith("./") ? program.slice(2).split("/")[0] : null
  if (top) linkInto(ws, top, join(PROJECT, top))
}

/** A node's broker login, picked by its node id at run time (none for a non-member: the rogue). */
function loginSource(config: ImageConfig, field: "username" | "password"): string {
  const logins = config.mqtt?.logins
  if (!logins) return `""`
  // a user name follows from the node id (nodeUser): no table of them in the image, whose code area is nearly full
  if (field === "username" && logins.every((l, i) => l.username === nodeUser(config.ids[i]))) return `"${nodeUser(0).replace(/0$/, "")}" + nodeId`
  return `${JSON.stringify(logins.map((l) => l[field]))}[[${config.ids.join(", ")}].indexOf(nodeId)] ?? ""`
}

/**
 * The firmware's settings as an object literal, evaluated on the board (`nodeId` in scope):
 * the one list of fields both generated sources hand over. `ids` and `authKey` are
 * expressions, so that the rogue can pick its own.
 */
function settingsSource(config: ImageConfig, ids: string, authKey: string): string {
  const t = config.timing
  // each board picks its own suitability by its node id (0 for a non-member: the rogue)
  const suitability = config.suitability?.some((x) => x !== 0)
    ? `[${config.suitability.join(", ")}][[${config.ids.join(", ")}].indexOf(nodeId)] ?? 0`
    : "0"
  return `{
    nodeId: nodeId,
    ids: ${ids},
    algorithm: ${config.algorithm},
    group: ${config.group},
    timing: { answerTimeout: ${t.answerTimeout}, coordinatorTimeout: ${t.coordinatorTimeout}, heartbeatInterval: ${t.heartbeatInterval}, failureTimeout: ${t.failureTimeout}, failureDetector: "${t.failureDetector ?? "fixed"}" },
    buttonPin: ${config.board?.buttonPin ?? -1},
    suitability: ${suitability},
    transport: ${config.mqtt ? 1 : 0},
    mqttHost: "${config.mqtt?.host ?? ""}",
    mqttPort: ${config.mqtt?.port ?? 1883},
    topicPrefix: "${config.mqtt?.prefix ?? "electlab"}",
    mqttUser: ${loginSource(config, "username")},
    mqttPassword: ${loginSource(config, "password")},
    labTools: ${config.board ? "false" : "true"},
    ballastKb: ${config.ballastKb ?? 0},
    authKey: ${authKey},
}`
}

/**
 * Where an algorithm's descriptor lives for an import: its module (src/core/<name>.ts) and
 * its export (bid-ring: bidRingDescriptor). The image imports that module alone.
 */
export function descriptorImport(algorithm: number): { module: string; name: string } {
  const d = descriptorOf(algorithm)
  if (!d) throw new Error(`no such algorithm: ${algorithm}`)
  return { module: `src/core/${d.name}`, name: d.name.replace(/-(.)/g, (_, c: string) => c.toUpperCase()) + "Descriptor" }
}

/** The generated files' common head: the ballast first, then this board's node id. */
function headSource(config: ImageConfig, imports: string): string {
  const algorithm = descriptorImport(config.algorithm)
  return `// generated by electlab lab: do not edit
import * as ds from "@devicescript/core"
import { nodeIdFromDeviceId } from "${PACKAGE}/src/firmware/config"
import { ${algorithm.name} as algorithm } from "${PACKAGE}/${algorithm.module}"
${imports}
${config.ballastKb ? `import { holdBallast } from "${PACKAGE}/src/firmware/ballast"\nholdBallast(${config.ballastKb})` : ""}

const nodeId = ${config.board ? config.board.nodeId : `nodeIdFromDeviceId(ds.deviceIdentifier("self"))`}
`
}

/**
 * The generated configuration module: the lab's settings handed to the election API, so
 * that a program's createElection() uses them. A module of its own, imported before the
 * program, so that it runs first.
 */
export function configSource(config: ImageConfig): string {
  const settings = settingsSource(config, `[${config.ids.join(", ")}]`, `"${config.authKey ?? ""}"`)
  return headSource(config, `import { provideConfig } from "${PACKAGE}/src/election"`) + `provideConfig(${settings}, algorithm)\n`
}

/** The generated entry file: the lab's settings compiled in, then the program (or the rogue's firmware). */
export function entrySource(config: ImageConfig): string {
  const rogue = config.rogue
  if (rogue === undefined)
    return `// generated by electlab lab: do not edit
import "./lab-config"
import "${programImport(config.program ?? defaultProgram())}"
`
  // the rogue counts itself a member, or its firmware would refuse to run; it forges with its own key
  const ids = `nodeId === ${rogue} ? [${[...config.ids, rogue].join(", ")}] : [${config.ids.join(", ")}]`
  const authKey = `nodeId === ${rogue} ? "${config.rogueKey ?? ""}" : "${config.authKey ?? ""}"`
  const imports = `import { runFirmware } from "${PACKAGE}/src/firmware/run"\nimport { forgeForever } from "${PACKAGE}/src/attacks/rogue"`
  return (
    headSource(config, imports) +
    `const driver = await runFirmware(${settingsSource(config, ids, authKey)}, algorithm)\n` +
    `if (nodeId === ${rogue}) await forgeForever(driver, [${config.ids.join(", ")}])\n`
  )
}

/** Builds in .electlab/ws-<pid>: two labs (or a lab and a test run) never share a build folder. */
export async function buildFirmwareImage(config: ImageConfig, name = `ws-${process.pid}`): Promise<FirmwareImage> {
  const ws = holdSecretFolder(join(PROJECT, ".electlab", name))
  const secrets = [config.authKey, config.rogueKey, ...(config.mqtt?.logins ?? []).map((l) => l.password)]
  try {
    prepareBuildFolder(ws, config.rogue === undefined ? programImport(config.program ?? defaultProgram()) : null)
    // both generated files hold the key
    const entry = join(ws, "lab-main.ts")
    const configFile = join(ws, "lab-config.ts")
    writeFileSync(configFile, configSource(config), { mode: 0o600 })
    writeFileSync(entry, entrySource(config), { mode: 0o600 })
    chmodSync(configFile, 0o600)
    chmodSync(entry, 0o600)
    const bin = join(ws, ".devicescript", "bin", "bytecode.devs")
    rmSync(bin, { force: true })
    try {
      await promisify(execFile)(process.execPath, [DEVS_CLI, "build", "lab-main.ts"], { cwd: ws })
    } catch (e) {
      const err = e as { stdout?: string; stderr?: string; message: string }
      const text = err.stderr || err.stdout || err.message
      if (text.includes("verification error: -1051"))
        throw new Error(`the lab firmware's code ends past the ${MAX_FUNCTION_CODE_END} bytes the DeviceScript VM accepts (devs build: verification error -1051): make the program smaller`)
      // a compiler message may quote the generated source: never the key
      throw new Error(`devs build of the lab firmware failed: ${redact(text, secrets)}`)
    }
    if (!existsSync(bin)) throw new Error(`devs build wrote no bytecode at ${bin}`)
    chmodSync(bin, 0o600)
    const bytecode = readFileSync(bin)
    return { path: bin, bytes: bytecode.length, folder: ws, mqtt: config.mqtt, codeEnd: functionCodeEnd(bytecode) }
  } catch (e) {
    removeSecretFolder(ws)
    throw e
  }
}

export function removeFirmwareImage(image: FirmwareImage) {
  removeSecretFolder(image.folder)
}
