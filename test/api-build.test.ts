// A new user's program: the docs' "Use it in your program" example, as written, builds with
// `devs build` against the election API (in a folder of its own, as firmware-image.ts builds,
// where the package is node_modules/electlab).
import { execFile } from "node:child_process"
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { promisify } from "node:util"
import { expect, test } from "vitest"
import { DEVS_CLI, prepareBuildFolder } from "../sim/lab/firmware-image"
import { ROOT } from "../sim/config/root"

/** The first ```ts block of docs/api.md. */
export function docsProgram(): string {
  const text = readFileSync(join(ROOT, "docs", "api.md"), "utf8")
  const m = /```ts\n([\s\S]*?)```/.exec(text)
  if (!m) throw new Error("docs/api.md has no ```ts block")
  return m[1]
}

test("the docs' program builds with devs build", async () => {
  const program = docsProgram()
  expect(program.split("\n").filter((l) => l.trim()).length).toBeLessThanOrEqual(20)
  const ws = join(ROOT, ".electlab", `api-build-${process.pid}`)
  mkdirSync(join(ws, "myapp"), { recursive: true })
  try {
    prepareBuildFolder(ws, null)
    writeFileSync(join(ws, "myapp", "main.ts"), program)
    await promisify(execFile)(process.execPath, [DEVS_CLI, "build", "myapp/main.ts"], { cwd: ws })
    const bytecode = readFileSync(join(ws, ".devicescript", "bin", "bytecode.devs"))
    expect(bytecode.length).toBeGreaterThan(10_000)
  } finally {
    rmSync(ws, { recursive: true, force: true })
  }
}, 120_000)
