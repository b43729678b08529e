// Where things are. ROOT is the electlab package: the repository, or node_modules/electlab in a
// user's project. PROJECT is the folder the user works in (the nearest one up from the
// working directory with a package.json): its program, manifest and build folders. In the
// repository both are the same folder.

import { existsSync, readFileSync } from "node:fs"
import { createRequire } from "node:module"
import { dirname, join, resolve } from "node:path"
import { fileURLToPath } from "node:url"

// the nearest folder up from this file's with a package.json: from sim/config/ in the sources,
// from dist/ in the bundled dist/library.js, from a benchmark's bundle of the CLI
export const ROOT = projectOf(dirname(fileURLToPath(import.meta.url)))

function projectOf(start: string): string {
  for (let dir = resolve(start); ; dir = dirname(dir)) {
    if (existsSync(join(dir, "package.json"))) return dir
    if (dirname(dir) === dir) return resolve(start)
  }
}

export const PROJECT = projectOf(process.cwd())

/** The installed DeviceScript command line's package folder and version (the project's, else the package's), or null. */
export function devsCliPackage(): { dir: string; version: string } | null {
  for (const from of [join(PROJECT, "package.json"), join(ROOT, "package.json")]) {
    try {
      const file = createRequire(from).resolve("@devicescript/cli/package.json")
      return { dir: dirname(file), version: String(JSON.parse(readFileSync(file, "utf8")).version) }
    } catch {
      // not installed there
    }
  }
  return null
}

/** The DeviceScript command line, wherever npm put it (the project's node_modules or the package's). */
export function devsCli(): string {
  const cli = devsCliPackage()
  if (!cli) throw new Error("@devicescript/cli is not installed: npm install --save-dev @devicescript/cli")
  return join(cli.dir, "built", "devicescript-cli.cjs")
}
