// `electlab init` in a DeviceScript project: what it writes, keeps and replaces.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach, describe, expect, test } from "vitest"
import { DEVS_INIT_STARTER, initProject, STARTER_BESIDE } from "../sim/project/project"

const folders: string[] = []
afterEach(() => folders.splice(0).forEach((f) => rmSync(f, { recursive: true, force: true })))

/** A project folder with src/main.ts holding `main` (none when null). */
function project(main: string | null): string {
  const dir = mkdtempSync(join(tmpdir(), "electlab-init-"))
  folders.push(dir)
  if (main !== null) {
    mkdirSync(join(dir, "src"))
    writeFileSync(join(dir, "src", "main.ts"), main)
  }
  return dir
}

const readMain = (dir: string) => readFileSync(join(dir, "src", "main.ts"), "utf8")

describe("electlab init", () => {
  test("replaces devs init's untouched starter (it starts no election) with a program that runs the election", () => {
    const dir = project(DEVS_INIT_STARTER.replace(/\n/g, "\r\n"))
    const r = initProject(dir)
    expect(r.replaced).toEqual(["src/main.ts"])
    expect(readMain(dir)).toContain("await createElection()")
    expect(r.wrote).toContain("devicescript.json")
    expect(r.wrote).toContain("services/electlab.md")
    expect(existsSync(join(dir, STARTER_BESIDE))).toBe(false)
  })

  test("keeps a program the user wrote, even one edited from the starter, and puts its starter beside it", () => {
    const mine = DEVS_INIT_STARTER.replace(":)", ":D")
    const dir = project(mine)
    const r = initProject(dir)
    expect(readMain(dir)).toBe(mine)
    expect(r.kept).toContain("src/main.ts")
    expect(r.replaced).toEqual([])
    expect(r.wrote).toContain(STARTER_BESIDE)
    expect(readFileSync(join(dir, STARTER_BESIDE), "utf8")).toContain("await createElection()")
  })

  test("writes the starter where there is no program; a second run keeps everything", () => {
    const dir = project(null)
    expect(initProject(dir).wrote).toContain("src/main.ts")
    const again = initProject(dir)
    expect(again.wrote).toEqual([])
    expect(again.replaced).toEqual([])
    expect(again.kept).toContain("src/main.ts")
  })
})
