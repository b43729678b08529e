// Builds the package's entry for Node programs (`import { joinElection } from "electlab"`):
// dist/library.js, one ES module bundled by esbuild (dependencies stay imports), and
// dist/library.d.ts with the declarations tsc emits beside it, so that no TypeScript loader is
// needed at run time.
import { execFileSync } from "node:child_process"
import { existsSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { build } from "esbuild"

const root = join(dirname(fileURLToPath(import.meta.url)), "..")
const dist = join(root, "dist")
// Built beside dist and swapped in at the end: a program importing the package while it is
// rebuilt sees the old entry or the new one, never a folder half-written.
const staging = join(root, `dist.building-${process.pid}`)
rmSync(staging, { recursive: true, force: true })

await build({
  entryPoints: [join(root, "sim", "node", "library.ts")],
  outfile: join(staging, "library.js"),
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  packages: "external",
  logLevel: "warning",
})

const tsc = join(dirname(createRequire(import.meta.url).resolve("typescript/package.json")), "bin", "tsc")
execFileSync(process.execPath, [tsc, "-p", join(root, "tsconfig.library.json"), "--outDir", join(staging, "types")], { stdio: "inherit" })

// The sources import without extensions (as DeviceScript wants); a Node program's TypeScript
// (module resolution node16 or bundler) wants "./x.js" in declarations of an ES module package.
function addExtensions(folder) {
  for (const name of readdirSync(folder)) {
    const path = join(folder, name)
    if (statSync(path).isDirectory()) addExtensions(path)
    else if (name.endsWith(".d.ts"))
      writeFileSync(
        path,
        readFileSync(path, "utf8").replace(/(from |import\()"(\.{1,2}\/[^"]+)"/g, (all, head, spec) => {
          if (/\.js$/.test(spec)) return all
          const file = join(folder, spec)
          const target = existsSync(file + ".d.ts") ? spec + ".js" : existsSync(join(file, "index.d.ts")) ? spec + "/index.js" : spec
          return `${head}"${target}"`
        }),
      )
  }
}
addExtensions(join(staging, "types"))
writeFileSync(join(staging, "library.d.ts"), 'export * from "./types/sim/node/library.js"\n')
// Another build may swap its own in between the two renames: then set that one aside too.
const old = join(root, `dist.old-${process.pid}`)
for (let tries = 0; ; tries++) {
  rmSync(old, { recursive: true, force: true })
  if (existsSync(dist)) renameSync(dist, old)
  try {
    renameSync(staging, dist)
    break
  } catch (e) {
    if (tries === 5 || !["ENOTEMPTY", "EEXIST"].includes(e.code)) throw e
  }
}
rmSync(old, { recursive: true, force: true })
