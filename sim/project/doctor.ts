// `electlab doctor`: a project checked end to end, one line per check with its fix. Node and
// the DeviceScript command line in the versions electlab needs, the files a build needs (the
// same checks the commands that build make first: check.ts), the group key's file readable
// by its owner only, and over WiFi the broker taking a TCP connection. It never prints a key.

import { existsSync, readdirSync, readFileSync, statSync } from "node:fs"
import { connect } from "node:net"
import { join } from "node:path"
import { readKeyFile } from "../auth/keys"
import type { Manifest } from "../config/manifest"
import { PROJECT, ROOT } from "../config/root"
import { DEFAULT_PROGRAM } from "../lab/program"
import { checkBoardDefinitions, checkDevs, checkManifestFile, checkProgram, checkServiceSpec, type Finding, ok, problem, shown, skip } from "./check"

export interface DoctorFlags {
  manifest?: string
  program?: string
  keyFile?: string
  json?: boolean
}

/** How long the broker has to take a TCP connection. */
export const BROKER_TIMEOUT_MS = 2000

const packageJson = () => JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { engines?: { node?: string } }

/** "20.19.1" as numbers. */
const versionOf = (v: string) => v.replace(/^v/, "").split(".").map((p) => parseInt(p, 10) || 0)

function atLeast(have: number[], need: number[]): boolean {
  for (let i = 0; i < need.length; i++) if ((have[i] ?? 0) !== need[i]) return (have[i] ?? 0) > need[i]
  return true
}

/** Node against package.json's engines (">=20.19"). */
export function checkNode(version = process.versions.node, range = packageJson().engines?.node): Finding {
  const m = range ? /^>=\s*(\d+(?:\.\d+){0,2})$/.exec(range.trim()) : null
  if (!m) return ok("node", `Node ${version}`)
  if (atLeast(versionOf(version), versionOf(m[1]))) return ok("node", `Node ${version} (electlab needs ${range})`)
  return problem("node", `Node ${version} is older than electlab needs (${range}): install Node ${m[1]} or newer`)
}

/** The settings lines that hold secrets in .env.local (electlab settings --write). */
const SECRET_SETTING = /^(?:AUTH_KEY|MQTT_PASS)=/m

/**
 * The files that hold the group key: --key-file, else the project's *.key files (keygen
 * writes electlab.key) and a .env.local holding a secret. Each must be its owner's only; a
 * key file named or made by keygen must hold a key. Nothing of their content is shown.
 */
export function checkKeyFiles(keyFile?: string, project = PROJECT): Finding[] {
  const files: { path: string; holdsKey: boolean }[] = []
  if (keyFile) {
    if (!existsSync(keyFile)) return [problem("key", `${shown(keyFile)} (--key-file) is missing: make one with npx electlab keygen --out ${shown(keyFile)}`)]
    files.push({ path: keyFile, holdsKey: true })
  } else {
    for (const name of readdirSync(project).sort()) if (name.endsWith(".key")) files.push({ path: join(project, name), holdsKey: name === "electlab.key" })
    const env = join(project, ".env.local")
    if (existsSync(env) && SECRET_SETTING.test(readFileSync(env, "utf8"))) files.push({ path: env, holdsKey: false })
  }
  if (files.length === 0) return [skip("key", "key file: none in the project (npx electlab keygen writes electlab.key; without a key frames travel unauthenticated)")]
  const found: Finding[] = []
  for (const { path, holdsKey } of files) {
    const name = shown(path)
    if (process.platform === "win32") {
      found.push(skip("key", `${name}: file modes are not checked on Windows`))
      continue
    }
    const mode = statSync(path).mode & 0o777
    if (mode & 0o077) {
      found.push(problem("key", `${name} holds a secret and is readable by others than its owner (mode ${mode.toString(8)}): chmod 600 ${name}`))
      continue
    }
    if (holdsKey) {
      try {
        readKeyFile(path, name)
      } catch {
        found.push(problem("key", `${name} does not hold a group key (64 hex digits): move it away and run npx electlab keygen --out ${name}`))
        continue
      }
    }
    found.push(ok("key", `${name}: readable by its owner only (mode ${mode.toString(8)})`))
  }
  return found
}

/** Over WiFi: whether the manifest's broker takes a TCP connection within BROKER_TIMEOUT_MS. */
export async function checkBroker(m: Manifest | null, manifestName: string, timeoutMs = BROKER_TIMEOUT_MS): Promise<Finding> {
  if (!m) return skip("broker", `MQTT broker: not checked (no valid manifest)`)
  if (m.transport !== "mqtt" || !m.mqtt) return skip("broker", `MQTT broker: not needed, ${manifestName} uses the bus`)
  const url = new URL(m.mqtt.broker)
  const port = Number(url.port || (url.protocol === "mqtts:" ? 8883 : 1883))
  const host = url.hostname
  const where = `${url.protocol}//${host}:${port}`
  const failure = await new Promise<string | null>((done) => {
    const socket = connect({ host, port })
    const finish = (why: string | null) => {
      socket.destroy()
      done(why)
    }
    socket.setTimeout(timeoutMs, () => finish(`no answer within ${timeoutMs / 1000} s`))
    socket.once("connect", () => finish(null))
    socket.once("error", (e: NodeJS.ErrnoException) => finish(e.code === "ECONNREFUSED" ? "connection refused" : (e.code ?? e.message)))
  })
  if (failure === null) return ok("broker", `MQTT broker ${where} (${manifestName}) takes a TCP connection`)
  return problem("broker", `MQTT broker ${where} (${manifestName}, mqtt.broker): ${failure}: start the broker (mosquitto), or set mqtt.broker in ${manifestName} to where it runs`)
}

/** Every check, in order. */
export async function doctorFindings(flags: DoctorFlags): Promise<Finding[]> {
  const file = flags.manifest ?? "devicescript.json"
  const manifestName = shown(file)
  const { finding, manifest } = checkManifestFile(file, flags.manifest !== undefined)
  const program = flags.program ?? DEFAULT_PROGRAM
  return [
    checkNode(),
    checkDevs(),
    finding,
    checkServiceSpec(),
    ...(manifest ? checkBoardDefinitions(manifest, manifestName) : []),
    checkProgram({
      program,
      given: flags.program !== undefined,
      expected: manifest ? { algorithm: manifest.algorithm, source: "manifest", manifest: manifestName } : undefined,
    }),
    ...checkKeyFiles(flags.keyFile),
    await checkBroker(manifest, manifestName),
  ]
}

/** `electlab doctor`: one line per check (or --json); 0 when nothing is a problem, 1 otherwise. */
export async function runDoctor(flags: DoctorFlags, print: (line: string) => void): Promise<number> {
  const found = await doctorFindings(flags)
  const problems = found.filter((f) => f.status === "problem").length
  if (flags.json) print(JSON.stringify({ ok: problems === 0, checks: found }, null, 2))
  else {
    for (const f of found) print(`${f.status.padEnd(7)}  ${f.text}`)
    print(problems ? `${problems} problem${problems > 1 ? "s" : ""}: fix ${problems > 1 ? "them" : "it"} and run npx electlab doctor again` : "all checks passed")
  }
  return problems ? 1 : 0
}
