// A user's project checked before a build, and by `electlab doctor`: in a project made as
// `devs init` and `electlab init` leave it, each missing or wrong file named with its fix,
// the command stopped with exit code 1 before anything is built, a key never printed.
import { spawnSync } from "node:child_process"
import { appendFileSync, chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { createServer, type Server } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, test } from "vitest"
import { writeKeyFile } from "../sim/auth/keys"
import { type Manifest, readManifest } from "../sim/config/manifest"
import { ROOT } from "../sim/config/root"
import { handedAlgorithm } from "../sim/lab/program"
import { type BuildCheck, checkBoardDefinitions, checkDevs, checkManifestFile, checkProgram, checkServiceSpec, projectFindings } from "../sim/project/check"
import { checkBroker, checkKeyFiles, checkNode } from "../sim/project/doctor"
import { DEVS_INIT_STARTER, initProject } from "../sim/project/project"

const bin = join(ROOT, "bin", "electlab.js")
const folders: string[] = []
afterAll(() => folders.forEach((f) => rmSync(f, { recursive: true, force: true })))

/** A project as `devs init` then `electlab init` leave it. */
function project(): string {
  const dir = mkdtempSync(join(tmpdir(), "electlab-project-"))
  folders.push(dir)
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "my-boards", version: "1.0.0", private: true, type: "module" }, null, 2))
  initProject(dir)
  return dir
}

/** `electlab ARGS` run in `cwd` as a user runs it: exit code, output, seconds. */
function electlab(args: string[], cwd: string) {
  const t0 = Date.now()
  const r = spawnSync(process.execPath, [bin, ...args], { cwd, encoding: "utf8", timeout: 60_000 })
  return { status: r.status, stdout: r.stdout, stderr: r.stderr, seconds: (Date.now() - t0) / 1000 }
}

const problems = (o: BuildCheck) => projectFindings(o).filter((f) => f.status === "problem").map((f) => f.text)

describe("the checks before a build", () => {
  test("in this repository they pass, for every command that builds", () => {
    const program = { file: join(ROOT, "src", "main.ts"), given: false }
    expect(problems({ program, algorithm: { source: "lab" } })).toEqual([])
    expect(problems({ program, algorithm: { source: "lab", flag: "echo" } })).toEqual([])
    expect(problems({ program: { file: "src/main.ts", given: true }, algorithm: { source: "manifest" } })).toEqual([])
    expect(problems({ program: { file: "examples/sensor-summary/src/main.ts", given: true }, algorithm: { source: "flag", flag: "bully" } })).toEqual([])
    expect(problems({ program: null, algorithm: null })).toEqual([])
  })

  test("without services/electlab.md, electlab lab names it with npx electlab init and exits 1 within seconds, having built nothing", () => {
    const dir = project()
    rmSync(join(dir, "services", "electlab.md"))
    const r = electlab(["lab", "--headless"], dir)
    expect(r.status, r.stderr).toBe(1)
    expect(r.stderr).toContain("electlab: lab: services/electlab.md is missing: run npx electlab init")
    expect(r.stderr).toContain("stopped before building")
    expect(r.stdout).toBe("")
    // a build takes tens of seconds and leaves its folder in .electlab/
    expect(r.seconds).toBeLessThan(10)
    expect(existsSync(join(dir, ".electlab"))).toBe(false)
  })

  test("a service specification other than the package's is named with the copy that fixes it", () => {
    const dir = project()
    expect(checkServiceSpec(dir).status).toBe("ok")
    appendFileSync(join(dir, "services", "electlab.md"), "\n## An edit\n")
    const f = checkServiceSpec(dir)
    expect(f.status).toBe("problem")
    expect(f.text).toMatch(/services\/electlab\.md is not this electlab's bus service: cp \S*services\/electlab\.md \S*services\/electlab\.md$/)
  })

  test("a missing board definition is named with the boards that use it and npx electlab init; one DeviceScript has built in is fine", () => {
    const dir = project()
    const m = readManifest(join(dir, "devicescript.json"))
    expect(checkBoardDefinitions(m, "devicescript.json", dir).map((f) => f.status)).toEqual(["ok"])
    rmSync(join(dir, "boards", "electlab_esp32_devkitc.board.json"))
    const found = checkBoardDefinitions(m, "devicescript.json", dir)
    expect(found.map((f) => f.status)).toEqual(["problem"])
    expect(found[0].text).toMatch(/boards\/electlab_esp32_devkitc\.board\.json is missing \(devicescript\.json names it for devkitc-a, devkitc-b\): run npx electlab init$/)
    const other: Manifest = { ...m, boards: [{ name: "a", board: "esp32c3_supermini", nodeId: 1 }, { name: "b", board: "no_such_board", nodeId: 2 }] }
    const texts = checkBoardDefinitions(other, "devicescript.json", dir).map((f) => `${f.status} ${f.text}`)
    expect(texts).toHaveLength(1)
    expect(texts[0]).toMatch(/^problem \S*boards\/no_such_board\.board\.json is missing and 'no_such_board' is no DeviceScript board either/)
  })

  test("a manifest missing or not valid is named with its fix", () => {
    const dir = project()
    const file = join(dir, "devicescript.json")
    rmSync(file)
    expect(checkManifestFile(file, false).finding.text).toMatch(/devicescript\.json is missing: run npx electlab init$/)
    expect(checkManifestFile(file, true).finding.text).toContain("(--manifest) is missing")
    writeFileSync(file, JSON.stringify({ group: 1, algorithm: "paxos", transport: "bus", boards: [{ name: "a", nodeId: 1 }, { name: "b", nodeId: 2 }] }))
    const bad = checkManifestFile(file, false)
    expect(bad.manifest).toBeNull()
    expect(bad.finding.status).toBe("problem")
    expect(bad.finding.text).toContain("is not a valid lab manifest (algorithm: must be equal to one of the allowed values (bully, improved-bully")
    expect(bad.finding.text).toContain("manifest.schema.json")
  })

  test("the program's algorithm, where its own imports tell, against the lab's, the manifest's or --algorithm", () => {
    expect(handedAlgorithm("test/programs/other-algorithm.ts")).toBe("bid-ring")
    expect(handedAlgorithm("src/images/bully.ts")).toBe("bully")
    // chosen in a module it imports, or none: the checks cannot tell
    expect(handedAlgorithm("test/programs/other-algorithm-elsewhere.ts")).toBeNull()
    expect(handedAlgorithm("examples/sensor-summary/src/main.ts")).toBeNull()
    const program = { file: "test/programs/other-algorithm.ts", given: true }
    // the lab's words, as a board's refusal is explained after a build
    expect(problems({ program, algorithm: { source: "lab", flag: "improved-bully" } })).toEqual([
      "test/programs/other-algorithm.ts: the lab runs improved-bully (devicescript.json or --algorithm) and the program hands bid-ring to the election; run the lab with --algorithm bid-ring, or hand improved-bully to startElection",
    ])
    expect(problems({ program, algorithm: { source: "lab", flag: "bid-ring" } })).toEqual([])
    expect(problems({ program, algorithm: { source: "manifest" } })).toEqual([
      `test/programs/other-algorithm.ts hands bid-ring to the election but devicescript.json names improved-bully: set "algorithm": "bid-ring" in devicescript.json, or hand improved-bully to startElection`,
    ])
    expect(problems({ program, algorithm: { source: "flag", flag: "echo" } })).toEqual([
      "test/programs/other-algorithm.ts hands bid-ring to the election, not echo (--algorithm): run it with --algorithm bid-ring",
    ])
    // size without --algorithm measures every one: nothing to compare
    expect(problems({ program, algorithm: null })).toEqual([])
  })

  test("a missing program is named with init's starter and --program", () => {
    const dir = project()
    const main = join(dir, "src", "main.ts")
    expect(readFileSync(main, "utf8")).not.toBe(DEVS_INIT_STARTER)
    rmSync(main)
    expect(checkProgram({ program: main, given: false }).text).toMatch(/src\/main\.ts is missing: run npx electlab init \(it writes a starter program\), or name yours with --program$/)
    expect(checkProgram({ program: "nowhere.ts", given: true }).text).toBe("nowhere.ts (--program): no such file")
  })
})

describe("electlab doctor", () => {
  test("a complete project: every check passes, one line each, exit 0", () => {
    const dir = project()
    const r = electlab(["doctor"], dir)
    expect(r.status, r.stdout + r.stderr).toBe(0)
    const lines = r.stdout.trim().split("\n")
    expect(lines.at(-1)).toBe("all checks passed")
    for (const line of lines.slice(0, -1)) expect(line).toMatch(/^(ok|skip) /)
    for (const what of ["Node ", "@devicescript/cli 2.16.", "devicescript.json: group 1", "services/electlab.md", "board definitions:", "src/main.ts", "key file: none", "MQTT broker: not needed"])
      expect(r.stdout).toContain(what)
  })

  test("a key file readable by others: named with chmod 600, exit 1, and the key never printed", () => {
    const dir = project()
    const key = writeKeyFile(join(dir, "electlab.key"))
    chmodSync(join(dir, "electlab.key"), 0o644)
    const r = electlab(["doctor"], dir)
    expect(r.status).toBe(1)
    expect(r.stdout).toContain("problem  electlab.key holds a secret and is readable by others than its owner (mode 644): chmod 600 electlab.key")
    expect(r.stdout.trim().split("\n").at(-1)).toBe("1 problem: fix it and run npx electlab doctor again")
    expect(r.stdout + r.stderr).not.toContain(key)
  })

  test("key files: owner-only is fine, a secret in .env.local counts, a key file must hold a key; none is no problem", () => {
    const dir = project()
    expect(checkKeyFiles(undefined, dir).map((f) => f.status)).toEqual(["skip"])
    const key = writeKeyFile(join(dir, "electlab.key"))
    writeFileSync(join(dir, ".env.local"), `NODE_ID=1\nAUTH_KEY=${key}\n`, { mode: 0o640 })
    chmodSync(join(dir, ".env.local"), 0o640)
    writeFileSync(join(dir, "other.key"), "not a key\n", { mode: 0o600 })
    const found = checkKeyFiles(undefined, dir)
    expect(found.map((f) => [f.status, f.text.split(" ")[0].replace(/:$/, "")])).toEqual([
      ["ok", join(dir, "electlab.key")],
      ["ok", join(dir, "other.key")],
      ["problem", join(dir, ".env.local")],
    ])
    expect(found[2].text).toContain(`chmod 600 ${join(dir, ".env.local")}`)
    expect(JSON.stringify(found)).not.toContain(key)
    writeFileSync(join(dir, "bad.key"), "# no key here\n", { mode: 0o600 })
    const named = checkKeyFiles(join(dir, "bad.key"), dir)
    expect(named.map((f) => f.status)).toEqual(["problem"])
    expect(named[0].text).toContain("does not hold a group key (64 hex digits)")
    expect(checkKeyFiles(join(dir, "gone.key"), dir)[0].text).toContain("(--key-file) is missing")
  })

  test("the broker: a port with nothing listening is a problem, a listening one passes, a manifest on the bus skips it", async () => {
    const server: Server = createServer((socket) => socket.end())
    await new Promise<void>((done) => server.listen(0, "127.0.0.1", done))
    const port = (server.address() as { port: number }).port
    const m = readManifest("devicescript.json")
    const over = (p: number): Manifest => ({ ...m, transport: "mqtt", mqtt: { broker: `mqtt://127.0.0.1:${p}` } })
    try {
      expect(await checkBroker(over(port), "devicescript.json")).toMatchObject({ status: "ok" })
    } finally {
      await new Promise((done) => server.close(done))
    }
    const t0 = Date.now()
    const closed = await checkBroker(over(port), "devicescript.json")
    expect(closed.status).toBe("problem")
    expect(closed.text).toBe(
      `MQTT broker mqtt://127.0.0.1:${port} (devicescript.json, mqtt.broker): connection refused: start the broker (mosquitto), or set mqtt.broker in devicescript.json to where it runs`,
    )
    expect(Date.now() - t0).toBeLessThan(2500)
    expect(await checkBroker(m, "devicescript.json")).toMatchObject({ status: "skip" })
  })

  test("Node and the DeviceScript CLI against the versions electlab needs", () => {
    expect(checkNode("20.19.0", ">=20.19").status).toBe("ok")
    expect(checkNode("22.1.0", ">=20.19").status).toBe("ok")
    expect(checkNode("20.18.3", ">=20.19")).toMatchObject({ status: "problem", text: "Node 20.18.3 is older than electlab needs (>=20.19): install Node 20.19 or newer" })
    expect(checkDevs({ dir: "x", version: "2.16.4" }, "^2.16.4").status).toBe("ok")
    expect(checkDevs({ dir: "x", version: "2.15.0" }, "^2.16.4")).toMatchObject({
      status: "problem",
      text: "@devicescript/cli 2.15.0 is installed, electlab needs 2.16.x: npm install --save-dev @devicescript/cli@2.16",
    })
    expect(checkDevs(null, "^2.16.4").text).toBe("@devicescript/cli is not installed: npm install --save-dev @devicescript/cli@2.16")
  })
})
