// Is the project ready to build? The commands that compile firmware in a user's project
// (lab, bundle, size, soak) and flash ask before they start, and `electlab doctor` asks the
// same and more: the DeviceScript CLI installed, the manifest (devicescript.json) there and
// valid, the bus service's specification (services/electlab.md) there and the package's own,
// the board definitions the manifest names, and the program there and handing in the
// algorithm the build configures, where its imports tell. Each problem is one line naming the
// file and the fix. Nothing here builds or starts a process: the checks take milliseconds.

import { existsSync, readdirSync, readFileSync } from "node:fs"
import { createRequire } from "node:module"
import { isAbsolute, join, relative, resolve, sep } from "node:path"
import { descriptorNamed } from "../../src/core/algorithms"
import { InputError } from "../config/input"
import { type Manifest, readManifest } from "../config/manifest"
import { devsCliPackage, PROJECT, ROOT } from "../config/root"
import { handedAlgorithm, labAlgorithmMismatch, programImport } from "../lab/program"

export type Status = "ok" | "problem" | "skip"

/** One check's outcome: `text` names the file, and for a problem the fix. */
export interface Finding {
  check: string
  status: Status
  text: string
}

export const ok = (check: string, text: string): Finding => ({ check, status: "ok", text })
export const problem = (check: string, text: string): Finding => ({ check, status: "problem", text })
/** A check that does not apply here (it passes). */
export const skip = (check: string, text: string): Finding => ({ check, status: "skip", text })

/** A path as typed from the working directory: relative when inside it, else absolute. */
export function shown(path: string): string {
  const rel = relative(process.cwd(), resolve(path))
  return rel && !rel.startsWith("..") && !isAbsolute(rel) ? rel.split(sep).join("/") : resolve(path)
}

/** The init command, as a user types it. */
const INIT = "npx electlab init"

/** The manifest: there and valid (the same checker as every command that reads one). */
export function checkManifestFile(file: string, given: boolean): { finding: Finding; manifest: Manifest | null } {
  const name = shown(file)
  if (!existsSync(file))
    return {
      finding: problem(
        "manifest",
        given ? `${name} (--manifest) is missing: name a manifest that exists, or leave out --manifest for devicescript.json` : `${name} is missing: run ${INIT}`,
      ),
      manifest: null,
    }
  try {
    const m = readManifest(file)
    return { finding: ok("manifest", `${name}: group ${m.group}, ${m.algorithm} over ${m.transport}, ${m.boards.length} boards`), manifest: m }
  } catch (e) {
    if (!(e instanceof InputError)) throw e
    const why = e.where === file ? e.message.slice(file.length + 2) : e.message
    const schema = shown(join(ROOT, "sim", "manifest.schema.json"))
    return { finding: problem("manifest", `${name} is not a valid lab manifest (${why}): fix it (the schema: ${schema}; npx electlab manifest ${name} checks it)`), manifest: null }
  }
}

const SERVICE = join("services", "electlab.md")

const text = (file: string) => readFileSync(file, "utf8").replace(/\r\n/g, "\n")

/** The bus service's specification: DeviceScript reads custom services from the project's services/ only. */
export function checkServiceSpec(project = PROJECT): Finding {
  const mine = join(project, SERVICE)
  const package_ = join(ROOT, SERVICE)
  if (!existsSync(mine)) return problem("service", `${shown(mine)} is missing: run ${INIT}`)
  if (resolve(mine) !== resolve(package_) && text(mine) !== text(package_))
    return problem("service", `${shown(mine)} is not this electlab's bus service: cp ${shown(package_)} ${shown(mine)}`)
  return ok("service", `${shown(mine)}: electlab's bus service`)
}

/** The board definitions DeviceScript has built in (@devicescript/core's list), or null when it cannot be read. */
function devicescriptBoards(project: string): Set<string> | null {
  for (const from of [join(project, "package.json"), join(ROOT, "package.json")]) {
    try {
      const core = createRequire(from).resolve("@devicescript/core/package.json")
      const list = readFileSync(join(core, "..", "src", "devicescript-boards.d.ts"), "utf8")
      return new Set([...list.matchAll(/declare module "@dsboard\/([\w-]+)"/g)].map((m) => m[1]))
    } catch {
      // not there
    }
  }
  return null
}

/** Every board definition the manifest names: in the project's boards/ (init copies electlab's), or one of DeviceScript's. */
export function checkBoardDefinitions(m: Manifest, manifestName: string, project = PROJECT): Finding[] {
  const named = new Map<string, string[]>()
  for (const b of m.boards) if (b.board) named.set(b.board, [...(named.get(b.board) ?? []), b.name])
  if (named.size === 0) return [skip("boards", `board definitions: ${manifestName} names none ("board" of each board: electlab bundle and flash need one)`)]
  const ours = readdirSync(join(ROOT, "boards"))
    .filter((f) => f.endsWith(".board.json"))
    .map((f) => f.replace(/\.board\.json$/, ""))
  let builtIn: Set<string> | null | undefined
  const devicescripts = () => (builtIn === undefined ? (builtIn = devicescriptBoards(project)) : builtIn)
  const found: Finding[] = []
  for (const [id, boards] of named) {
    const file = join(project, "boards", `${id}.board.json`)
    if (existsSync(file)) continue
    const why = `${manifestName} names it for ${boards.join(", ")}`
    if (ours.includes(id)) found.push(problem("boards", `${shown(file)} is missing (${why}): run ${INIT}`))
    else if (devicescripts()?.has(id) === false)
      found.push(problem("boards", `${shown(file)} is missing and '${id}' is no DeviceScript board either (${why}): add the definition, or name one of ${ours.join(", ")}`))
  }
  return found.length ? found : [ok("boards", `board definitions: ${[...named.keys()].join(", ")}`)]
}

/** The package's own development dependencies: the DeviceScript CLI it is built and tested with. */
const devDependencies = () => (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).devDependencies ?? {}) as Record<string, string>

/** The DeviceScript command line: installed, in the minor version electlab is built with (2.16.x). */
export function checkDevs(installed = devsCliPackage(), wanted = devDependencies()["@devicescript/cli"] ?? ""): Finding {
  const minor = /(\d+\.\d+)/.exec(wanted)?.[1]
  const fix = `npm install --save-dev @devicescript/cli@${minor ?? "latest"}`
  if (!installed) return problem("devicescript", `@devicescript/cli is not installed: ${fix}`)
  if (minor && !installed.version.startsWith(minor + "."))
    return problem("devicescript", `@devicescript/cli ${installed.version} is installed, electlab needs ${minor}.x: ${fix}`)
  return ok("devicescript", `@devicescript/cli ${installed.version}${minor ? ` (electlab needs ${minor}.x)` : ""}`)
}

/** Where the algorithm a build configures comes from, for the words of a mismatch. */
export type AlgorithmSource = "lab" | "manifest" | "flag"

export interface ProgramCheck {
  /** The program the build compiles, as given or resolved (src/main.ts). */
  program: string
  /** --program was given. */
  given: boolean
  /** The algorithm the build configures, and where it comes from; absent: none to compare. */
  expected?: { algorithm: string; source: AlgorithmSource; manifest: string }
}

/** The program: there, in the project, and handing in the configured algorithm when its imports tell. */
export function checkProgram(o: ProgramCheck): Finding {
  const name = shown(o.program)
  try {
    programImport(o.program)
  } catch (e) {
    if (!o.given && !existsSync(o.program))
      return problem("program", `${name} is missing: run ${INIT} (it writes a starter program), or name yours with --program`)
    return problem("program", `${name} (--program): ${(e as Error).message.replace(/^--program [^:]*: /, "")}`)
  }
  const handed = handedAlgorithm(o.program)
  const expected = o.expected
  if (!expected) return ok("program", handed ? `${name}: hands ${handed} to the election` : `${name}: hands no algorithm in, runs the one compiled in`)
  const where = expected.source === "flag" ? "--algorithm" : expected.source === "lab" ? "devicescript.json or --algorithm" : expected.manifest
  if (!handed) return ok("program", `${name}: hands no algorithm in, runs ${expected.algorithm} (${where})`)
  if (handed === expected.algorithm) return ok("program", `${name}: hands ${handed} to the election, as ${where} names`)
  if (expected.source === "lab") return problem("program", `${name}: ${labAlgorithmMismatch(expected.algorithm, handed)}`)
  if (expected.source === "flag")
    return problem("program", `${name} hands ${handed} to the election, not ${expected.algorithm} (--algorithm): run it with --algorithm ${handed}`)
  return problem(
    "program",
    `${name} hands ${handed} to the election but ${expected.manifest} names ${expected.algorithm}: set "algorithm": "${handed}" in ${expected.manifest}, or hand ${expected.algorithm} to startElection`,
  )
}

/** What a command that builds asks of the project. */
export interface BuildCheck {
  /** The --manifest flag; absent: devicescript.json. */
  manifest?: string
  /** The program the command compiles, and whether --program named it; null: it compiles none (flash). */
  program: { file: string; given: boolean } | null
  /** Where the algorithm the build configures comes from: the lab (its --algorithm, else the manifest's), the manifest, --algorithm alone, or nowhere. */
  algorithm: { source: AlgorithmSource; flag?: string } | null
}

/** Every check a build needs, in order: the DeviceScript CLI installed, the manifest, the service, the board definitions, the program. */
export function projectFindings(o: BuildCheck): Finding[] {
  const file = o.manifest ?? "devicescript.json"
  const { finding, manifest } = checkManifestFile(file, o.manifest !== undefined)
  // a build needs the DeviceScript CLI; another version than electlab's may do (doctor names it)
  const devs = devsCliPackage()
  const found = devs ? [finding, checkServiceSpec()] : [checkDevs(devs), finding, checkServiceSpec()]
  if (manifest) found.push(...checkBoardDefinitions(manifest, shown(file)))
  if (o.program) {
    const a = o.algorithm
    const flag = a?.flag !== undefined && descriptorNamed(a.flag) ? a.flag : undefined
    const algorithm = a?.source === "manifest" ? manifest?.algorithm : a?.source === "lab" ? (flag ?? manifest?.algorithm) : flag
    // an unknown --algorithm is the command's own error, named by it
    const expected = a && algorithm ? { algorithm, source: a.source, manifest: shown(file) } : undefined
    found.push(checkProgram({ program: o.program.file, given: o.program.given, expected }))
  }
  return found
}

/**
 * The checks before `command` builds (or flashes): each problem printed on one line; false
 * when there is one (the command then stops, having built nothing).
 */
export function checkBeforeBuild(command: string, o: BuildCheck, print: (line: string) => void): boolean {
  const problems = projectFindings(o).filter((f) => f.status === "problem")
  for (const p of problems) print(`electlab: ${command}: ${p.text}`)
  const before = command === "flash" ? "flashing" : "building"
  if (problems.length) print(`electlab: ${command}: stopped before ${before}; npx electlab doctor checks the whole project`)
  return problems.length === 0
}
