// Where things are. ROOT is the electlab package: the repository, or node_modules/electlab in a
// user's project. PROJECT is the folder the user works in (the nearest one up from the
// working directory with a package.json): its program, manifest and build folders. In the
// repository both are the same folder.

import { existsSync } from "node:fs"
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

/** The DeviceScript command line, wherever npm put it (the project's node_modules or the package's). */
export function devsCli(): string {
  for (const from of [join(PROJECT, "package.json"), join(ROOT, "package.json")]) {
    try {
      return join(dirname(createRequire(from).resolve("@devicescript/cli/package.json")), "built", "devicescript-cli.cjs")
    } catch {
      // not installed there
    }
  }
  throw new Error("@devicescript/cli is not installed: npm install --save-dev @devicescript/cli")
}
