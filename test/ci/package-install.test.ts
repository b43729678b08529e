// The package as a stranger uses it: packed, installed with npm into a new project outside the
// repository, a board program importing "electlab" built with `devs build` and run through a
// script of the user's by the installed `electlab lab`, images bundled per board, and a Node program
// importing "electlab" joining a lab of VMs (the example application) over MQTT, with the same
// events and tokens on both sides.
import { execFile, execFileSync, spawn } from "node:child_process"
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { promisify } from "node:util"
import { afterAll, beforeAll, describe, expect, test } from "vitest"
import { Algorithm } from "../../src/core/frame"
import { compareTokens } from "../../src/core/fencing"
import { parseToken } from "../../sim/lab/app-tally"
import { Lab } from "../../sim/lab/lab"
import type { LabSummary } from "../../sim/lab/command"
import { ROOT } from "../../sim/config/root"
import { unexplainedOverlaps } from "../overlaps"

const run = promisify(execFile)

/** The user's board program: orders from the coordinator, fenced on every board. */
const APP = `import * as ds from "@devicescript/core"
import { formatToken, startElection } from "electlab"

// the algorithm, ids and timing come from devicescript.json (the lab compiles them in)
const election = await startElection()
election.onMessage((m) => {
    if (m.order) election.log("order", "tok=" + formatToken(m.token) + " msg=" + m.data.toString())
})
election.whileCoordinator(async (duty) => {
    while (duty.active()) {
        await election.broadcast(Buffer.from("valve=open"))
        await ds.sleep(500)
    }
})
`

/** The user's lab script: two crashes of the coordinator and a power cycle. */
const SCRIPT = `repeat 2
  crash coordinator
  wait-agreement
  sleep 700
  recover crashed
  wait-agreement
  sleep 700
end
kill coordinator
wait-agreement
sleep 700
restart killed
wait-agreement
`

/** The user's Node program: joins over MQTT, sends orders while it leads, prints its events; "crash" and "recover" on stdin. */
const JOIN = `import { createInterface } from "node:readline"
import { formatToken, joinElection } from "electlab"
const [broker, id, ids] = process.argv.slice(2)
const election = await joinElection({
  broker, id: Number(id), ids: ids.split(",").map(Number),
  timing: { answerTimeout: 200, coordinatorTimeout: 400, heartbeatInterval: 250, failureTimeout: 800 },
  key: process.env.GROUP_KEY || undefined, mqttUser: process.env.MQTT_USER, mqttPassword: process.env.MQTT_PASSWORD,
})
election.onBecomeCoordinator((t) => console.log("become " + formatToken(t)))
election.onLoseCoordinator((t) => console.log("lose " + formatToken(t)))
election.onMessage((m) => { if (!m.order) console.log("reading from " + m.from) })
// the example application's coordinator duty, written on the host: a summary while leading
election.whileCoordinator(async (duty) => {
  while (duty.active()) {
    await election.broadcast(Buffer.from(JSON.stringify({ boards: 1, min: 1, max: 1, avg: 1 })))
    await new Promise((r) => setTimeout(r, 300))
  }
})
createInterface({ input: process.stdin }).on("line", (line) => election.setCrashed(line === "crash"))
`

/** The environment without the outer npm's settings (npm run sets npm_config_*). */
function cleanEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("npm_")))
}

describe("electlab installed into a new project", () => {
  let project = ""
  const inProject = (file: string, args: string[], timeout = 300_000) =>
    run(file, args, { cwd: project, env: cleanEnv(), timeout, maxBuffer: 64 * 1024 * 1024 })
  const npx = (args: string[], timeout?: number) => inProject("npx", ["--no-install", ...args], timeout)

  beforeAll(async () => {
    project = mkdtempSync(join(tmpdir(), "electlab-user-"))
    const packs = mkdtempSync(join(tmpdir(), "electlab-pack-"))
    execFileSync(process.execPath, [join(ROOT, "scripts", "build-library.mjs")], { cwd: ROOT, stdio: "inherit" })
    const tarball = execFileSync("npm", ["pack", "--ignore-scripts", "--silent", "--pack-destination", packs], { cwd: ROOT, env: cleanEnv(), encoding: "utf8" }).trim()
    const devs = JSON.parse(readFileSync(join(ROOT, "node_modules", "@devicescript", "cli", "package.json"), "utf8")).version
    writeFileSync(join(project, "package.json"), JSON.stringify({ name: "my-boards", version: "1.0.0", private: true, type: "module" }, null, 2))
    await inProject("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline", join(packs, tarball), `@devicescript/cli@${devs}`])
    rmSync(packs, { recursive: true, force: true })
    await npx(["electlab", "init"])
    writeFileSync(join(project, "src", "app.ts"), APP)
  }, 600_000)

  afterAll(() => {
    if (project) rmSync(project, { recursive: true, force: true })
  })

  test("the tarball holds the sources both sides need, the docs text, and no tests", () => {
    const pkg = join(project, "node_modules", "electlab")
    for (const f of ["src/index.ts", "algorithms/bully.ts", "services/electlab.md", "dist/library.js", "dist/library.d.ts", "bin/electlab.js", "LICENSE"])
      expect(statSync(join(pkg, f)).isFile(), f).toBe(true)
    expect(readdirSync(join(pkg, "test"))).toEqual(["scenarios"])
    expect(readdirSync(join(pkg, "docs")).every((f) => f.endsWith(".md"))).toBe(true)
  })

  test("the user's program and init's starter build with devs build", async () => {
    expect(APP.trim().split("\n").length).toBeLessThanOrEqual(20)
    for (const program of ["src/app.ts", "src/main.ts"]) {
      rmSync(join(project, ".devicescript", "bin"), { recursive: true, force: true })
      await npx(["devs", "build", program], 120_000)
      expect(statSync(join(project, ".devicescript", "bin", "bytecode.devs")).size, program).toBeGreaterThan(10_000)
    }
  }, 300_000)

  test("electlab lab runs it through the user's own script: agreement, no two coordinators, no stale order accepted", async () => {
    writeFileSync(join(project, "failovers.txt"), SCRIPT)
    // three of the manifest's five boards
    const { stdout } = await npx(["electlab", "lab", "--boards", "3", "--program", "src/app.ts", "--headless", "--script", "failovers.txt"], 400_000)
    const s = JSON.parse(stdout) as LabSummary
    expect(s.algorithm).toBe("improved-bully")
    expect(s.agreement).toBe(true)
    expect(s.coordinator).toBe(3)
    expect(s.boards.map((b) => b.coordinator)).toEqual([3, 3, 3])
    expect(s.panics).toBe(0)
    // every failover and its way back, in order; the recoveries and restarts are not failovers
    expect(s.transitions.map((t) => [t.trigger, t.coordinatorAfter])).toEqual([
      ...Array(2).fill([["crash 3", 2], ["recover 3", 3]]).flat(),
      ["kill 3", 2],
      ["restart 3", 3],
    ])
    expect(s.failoverStats.count).toBe(3)
    expect(Object.keys(s.statsByTrigger).sort()).toEqual(["crash", "kill", "recover", "restart"])
    expect(unexplainedOverlaps(s.transitions, s.timing.answerTimeout)).toEqual([])
    expect(s.app!.map((b) => b.staleAccepted)).toEqual(s.app!.map(() => 0))
    expect(s.app!.filter((b) => b.accepted > 0).length).toBeGreaterThanOrEqual(2)
  }, 420_000)

  test("electlab bundle writes each board's image with its node id, owner-only; flash names its definition and file", async () => {
    await npx(["electlab", "keygen", "--out", "group.key"])
    // two of init's five boards: each image is a build of its own
    const manifest = JSON.parse(readFileSync(join(project, "devicescript.json"), "utf8")) as { boards: { name: string; nodeId: number; board: string }[] }
    manifest.boards = manifest.boards.slice(0, 2)
    writeFileSync(join(project, "two.json"), JSON.stringify(manifest))
    const { stdout } = await npx(["electlab", "bundle", "--manifest", "two.json", "--bytecode-only", "--key-file", "group.key"], 400_000)
    const key = readFileSync(join(project, "group.key"), "utf8").trim()
    expect(stdout).not.toContain(key)
    const out = join(project, ".electlab", "bundles")
    expect(statSync(out).mode & 0o777).toBe(0o700)
    expect(readdirSync(out).sort()).toEqual(manifest.boards.map((b) => `${b.name}.devs`).sort())
    for (const b of manifest.boards) {
      expect(stdout).toContain(`${b.name}: node ${b.nodeId}, improved-bully`)
      expect(statSync(join(out, `${b.name}.devs`)).mode & 0o777).toBe(0o600)
    }
    // the second board's image runs on its own (the VM's test mode: no bus) and boots as its node, with the manifest's settings
    const second = manifest.boards[1]
    const log = await npx(["devs", "run", join(out, `${second.name}.devs`), "--test", "-T", "5000"], 120_000).then(
      (r) => r.stdout + r.stderr,
      (e: { stdout?: string; stderr?: string }) => `${e.stdout ?? ""}${e.stderr ?? ""}`,
    )
    const ids = manifest.boards.map((b) => b.nodeId).join(",")
    expect(log).toMatch(new RegExp(`EL boot t=\\d+ n=${second.nodeId} alg=improved-bully ids=${ids} group=1`))
    // flash wraps devs flash with the board's definition and its bundle
    for (const b of manifest.boards) writeFileSync(join(out, `${b.name}.bin`), "")
    const dry = await npx(["electlab", "flash", "--manifest", "two.json", "--all", "--dry-run"])
    const lines = dry.stdout.trim().split("\n")
    expect(lines).toEqual(manifest.boards.map((b) => `devs flash esp32 --board ${b.board} --file ${join(out, `${b.name}.bin`)}`))
    await expect(npx(["electlab", "flash", "--manifest", "two.json", "--board", "nowhere", "--dry-run"])).rejects.toThrow(/no board 'nowhere' in the manifest/)
  }, 480_000)

  test("a Node program importing electlab joins a lab of VMs over MQTT: it leads with a newer token, the VMs take its orders, and a newer one after its crash", async () => {
    writeFileSync(join(project, "join.mjs"), JOIN)
    const timing = { answerTimeout: 200, coordinatorTimeout: 400, heartbeatInterval: 250, failureTimeout: 800 }
    // the VMs run the example application; node 3 starts as the lab's own host node and is
    // replaced by the user's program
    const lab = new Lab({ ids: [1, 2, 3], algorithm: Algorithm.ImprovedBully, group: 1, timing, transport: "mqtt", hostNodes: [3], program: "examples/sensor-summary/src/main.ts" })
    const until = async (what: string, ok: () => boolean, ms = 30_000) => {
      const end = Date.now() + ms
      while (!ok()) {
        if (Date.now() > end) throw new Error(`timed out waiting for ${what}`)
        await new Promise((r) => setTimeout(r, 50))
      }
    }
    try {
      await lab.start()
      await lab.waitForAgreement(120_000)
      await lab.kill(3)
      await lab.waitForAgreement(60_000)
      expect(lab.coordinator()).toBe(2)
      const board = (n: number) => lab.app.figures([n])[0]
      await until("1 accepts an order of 2", () => board(1).highestToken?.endsWith(".2") ?? false)
      const vmToken = parseToken(board(1).highestToken!)!

      const login = lab.brokerLogin("node-3")
      const env = { ...cleanEnv(), GROUP_KEY: lab.authKey ?? "", MQTT_USER: login?.username ?? "", MQTT_PASSWORD: login?.password ?? "" }
      // plain node: the installed package's compiled entry, no TypeScript loader
      const host = spawn(process.execPath, ["join.mjs", lab.brokerUrl()!, "3", "1,2,3"], { cwd: project, env })
      let out = ""
      host.stdout.on("data", (d) => (out += d))
      host.stderr.on("data", (d) => (out += d))
      const events = () => out.split("\n").filter((l) => /^(become|lose) /.test(l))
      try {
        const follow3 = () => lab.boards.get(1)!.coordinator === 3 && lab.boards.get(2)!.coordinator === 3
        await until("the host leads", () => events().length === 1 && follow3(), 60_000)
        const first = events()[0].slice("become ".length)
        expect(compareTokens(parseToken(first)!, vmToken), out).toBeGreaterThan(0)
        await until("1 and 2 accept the host's orders", () => board(1).highestToken === first && board(2).highestToken === first)
        await until("readings from the boards reach the host", () => out.includes("reading from 1") && out.includes("reading from 2"))

        host.stdin.write("crash\n")
        await until("the host's crash is seen", () => events().length === 2)
        await lab.waitForAgreement(30_000)
        expect(lab.coordinator()).toBe(2)
        host.stdin.write("recover\n")
        await until("the host leads again", () => events().length === 3)
        const second = events()[2].slice("become ".length)
        expect(compareTokens(parseToken(second)!, parseToken(first)!)).toBeGreaterThan(0)
        expect(events()).toEqual([`become ${first}`, `lose ${first}`, `become ${second}`])
        await until("1 and 2 accept the new token", () => board(1).highestToken === second && board(2).highestToken === second)
        for (const n of [1, 2]) expect(board(n).staleAccepted).toBe(0)
      } finally {
        host.kill()
      }
    } finally {
      await lab.stop()
    }
  }, 300_000)
})
