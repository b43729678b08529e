// The host nodes of a benchmark run as a deployed Node program would: the CLI bundled by
// esbuild (no TypeScript loader at run time), with 1 MB semi-spaces. A SIGKILLed process
// closes its socket only once the kernel has torn down its memory, and the broker publishes
// the last will then: the smaller the process, the sooner (docs/benchmarks.md).

import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { build } from "esbuild"
import { ROOT } from "../config/root"

export interface HostNodeBundle {
  /** Node's arguments before the CLI's own: flags, then the entry. */
  nodeArgs: string[]
  remove(): void
}

/** Bundles the CLI into a fresh folder of the package (one level down: sim/config/root.ts finds the package from there). */
export async function bundleHostNode(): Promise<HostNodeBundle> {
  const dir = mkdtempSync(join(ROOT, ".bench-node-"))
  try {
    await build({
      entryPoints: { cli: join(ROOT, "sim", "cli.ts") },
      outdir: dir,
      bundle: true,
      splitting: true,
      platform: "node",
      format: "esm",
      target: "node20",
      // what a host node never loads, or loads as a native or optional module
      external: ["playwright-core", "@devicescript/*", "esbuild", "bufferutil", "utf-8-validate"],
      // mqtt.js and its dependencies are CommonJS
      banner: { js: 'import { createRequire as electlabRequire } from "node:module"; const require = electlabRequire(import.meta.url);' },
      logLevel: "error",
    })
    const entry = join(dir, "run.mjs")
    writeFileSync(entry, 'import { main } from "./cli.js"\nawait main(process.argv)\n')
    return { nodeArgs: ["--max-semi-space-size=1", entry], remove: () => rmSync(dir, { recursive: true, force: true }) }
  } catch (e) {
    rmSync(dir, { recursive: true, force: true })
    throw e
  }
}
