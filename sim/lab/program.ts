// The program every board runs: where it is, how a build folder imports it, and which
// algorithm it hands to the election when its imports tell. Read without building anything,
// so that the checks before a build (sim/project/check.ts) and the build itself
// (firmware-image.ts) agree on it, and a program that hands in another algorithm than the
// lab's is named in the same words before the build as a board names it after.

import { existsSync, readFileSync } from "node:fs"
import { isAbsolute, join, relative, resolve, sep } from "node:path"
import { descriptorNamed } from "../../src/core/algorithms"
import { PROJECT, ROOT } from "../config/root"

/** The default program: the firmware's own, on the election API. */
export const DEFAULT_PROGRAM = "src/main.ts"

/** How generated files import the package's own modules ("electlab/src/firmware/config"). */
export const PACKAGE = "electlab"

/** The program every board runs by default: the project's src/main.ts, else the package's own firmware. */
export function defaultProgram(): string {
  return PROJECT !== ROOT && existsSync(join(PROJECT, DEFAULT_PROGRAM)) ? join(PROJECT, DEFAULT_PROGRAM) : join(ROOT, DEFAULT_PROGRAM)
}

/**
 * A program path as the build folder imports it: a file of the package by the package's name
 * ("electlab/src/main"), any other by its path in the project ("./examples/x/main"), whose
 * top-level folder the build folder links.
 */
export function programImport(program: string): string {
  const full = resolve(program)
  if (!full.endsWith(".ts")) throw new Error(`--program ${program}: a .ts file is needed, e.g. src/main.ts`)
  if (!existsSync(full)) throw new Error(`--program ${program}: no such file`)
  const inPackage = relative(join(ROOT, "src"), full)
  if (!inPackage.startsWith("..") && !isAbsolute(inPackage)) return `${PACKAGE}/src/${inPackage.split(sep).join("/").replace(/\.ts$/, "")}`
  const rel = relative(PROJECT, full)
  if (rel.startsWith("..") || isAbsolute(rel) || !rel.includes(sep))
    throw new Error(`--program ${program}: a .ts file in a folder of the project (${PROJECT}) is needed, e.g. src/main.ts`)
  return "./" + rel.split(sep).join("/").replace(/\.ts$/, "")
}

/** Import and re-export statements at the start of a line, and the module each names. */
const IMPORT_FROM = /^[ \t]*(?:import|export)\s[^;]*?\bfrom\s*["']([^"']+)["']/gm

/**
 * The algorithm a program hands to the election, as far as its own imports tell: the one
 * algorithm module it imports ("electlab/algorithms/bully", or a descriptor's module
 * "electlab/src/core/bully"); null when it imports none (the configured one runs), several,
 * or cannot be read. Modules the program imports are not followed.
 */
export function handedAlgorithm(program: string): string | null {
  let text: string
  try {
    text = readFileSync(program, "utf8")
  } catch {
    return null
  }
  const names = new Set<string>()
  for (const m of text.matchAll(IMPORT_FROM)) {
    const parts = m[1].replace(/\.ts$/, "").split("/")
    const [folder, name] = parts.slice(-2)
    if ((folder === "algorithms" || folder === "core") && descriptorNamed(name)) names.add(name)
  }
  return names.size === 1 ? [...names][0] : null
}

/** A lab whose algorithm is not the program's: what it runs, what the program hands in, and the two ways out. */
export function labAlgorithmMismatch(configured: string, handed: string): string {
  return (
    `the lab runs ${configured} (devicescript.json or --algorithm) and the program hands ${handed} to the election; ` +
    `run the lab with --algorithm ${handed}, or hand ${configured} to startElection`
  )
}
