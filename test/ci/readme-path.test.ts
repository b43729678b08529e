// The README's "Use it in your own project", word for word, in a project made by `devs init`
// (with npm: the DeviceScript packages it installs), the package installed from its packed
// tarball: no program written by the test. `electlab init` replaces devs init's starter, and
// the lab runs that project's src/main.ts on five boards through failover-10.
import { execFile, execFileSync } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { promisify } from "node:util"
import { afterAll, expect, test } from "vitest"
import type { LabSummary } from "../../sim/lab/command"
import { DEVS_INIT_STARTER } from "../../sim/project/project"
import { ROOT } from "../../sim/config/root"
import { unexplainedOverlaps } from "../overlaps"

const run = promisify(execFile)
const folders: string[] = []
afterAll(() => folders.forEach((f) => rmSync(f, { recursive: true, force: true })))

/** The environment without the outer npm's settings (npm run sets npm_config_*). */
function cleanEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("npm_")))
}

test("devs init, then the README's three steps: the lab runs the project's own program through failover-10", async () => {
  const project = mkdtempSync(join(tmpdir(), "electlab-readme-"))
  const packs = mkdtempSync(join(tmpdir(), "electlab-pack-"))
  folders.push(project, packs)
  const inProject = (file: string, args: string[], timeout: number) =>
    run(file, args, { cwd: project, env: cleanEnv(), timeout, maxBuffer: 64 * 1024 * 1024 })
  execFileSync(process.execPath, [join(ROOT, "scripts", "build-library.mjs")], { cwd: ROOT, stdio: "inherit" })
  const tarball = execFileSync("npm", ["pack", "--ignore-scripts", "--silent", "--pack-destination", packs], { cwd: ROOT, env: cleanEnv(), encoding: "utf8" }).trim()
  const devs = JSON.parse(readFileSync(join(ROOT, "node_modules", "@devicescript", "cli", "package.json"), "utf8")).version
  await inProject("npx", ["--yes", "-p", `@devicescript/cli@${devs}`, "devs", "init"], 300_000)
  expect(readFileSync(join(project, "src", "main.ts"), "utf8")).toBe(DEVS_INIT_STARTER)
  // the README's three steps (the package from its tarball, the lab headless: no terminal here)
  await inProject("npm", ["install", "--no-audit", "--no-fund", join(packs, tarball)], 300_000)
  const init = await inProject("npx", ["--no-install", "electlab", "init"], 60_000)
  expect(init.stdout).toContain("replaced src/main.ts")
  const { stdout } = await inProject("npx", ["--no-install", "electlab", "lab", "--headless", "--script", "failover-10"], 600_000)
  const s = JSON.parse(stdout) as LabSummary
  expect(s.failed).toBeUndefined()
  expect(s.agreement).toBe(true)
  expect(s.coordinator).toBe(5)
  expect(s.panics).toBe(0)
  expect(s.transitions.map((t) => t.trigger.split(" ")[0])).toEqual([...Array(10).fill(["crash", "recover"]).flat(), ...Array(5).fill(["kill", "restart"]).flat()])
  for (const t of s.transitions) expect(t.durationMs, t.trigger).not.toBeNull()
  expect(unexplainedOverlaps(s.transitions, s.timing.answerTimeout)).toEqual([])
}, 1_200_000)
