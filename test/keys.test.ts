// Keys from the command line: `electlab keygen`, `settings --key-file`, `node --key-file`.
import { spawnSync } from "node:child_process"
import { chmodSync, mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect } from "vitest"
import { existsSync } from "node:fs"
import { readKeyFile } from "../sim/auth/keys"
import { configSource, labImageConfig } from "../sim/lab/firmware-image"
import { redact } from "../sim/lab/secret-files"
// this file spans the tiers: `test` is the fast tier's; a test that starts a process is slower (test/tiers.ts)
import { mediumTest, test } from "./tiers"

const CLI = join(import.meta.dirname, "..", "bin", "electlab.js")
const run = (args: string[], cwd?: string) => spawnSync(process.execPath, [CLI, ...args], { encoding: "utf8", cwd })

describe("keys", () => {
  const dir = mkdtempSync(join(tmpdir(), "electlab-keys-"))
  const keyFile = join(dir, "group.key")

  mediumTest("keygen writes 64 hex digits readable by its owner only, and never overwrites", () => {
    const r = run(["keygen", "--out", keyFile])
    expect(r.status).toBe(0)
    const key = readKeyFile(keyFile, "test")
    expect(key).toMatch(/^[0-9a-f]{64}$/)
    expect(statSync(keyFile).mode & 0o777).toBe(0o600)
    const again = run(["keygen", "--out", keyFile])
    expect(again.status).toBe(2)
    expect(again.stderr).toContain(`'${keyFile}' exists`)
    expect(readKeyFile(keyFile, "test")).toBe(key)
  })

  const manifest = join(import.meta.dirname, "..", "devicescript.json")

  mediumTest("settings --key-file without --write says what it would write, never the key", () => {
    const key = readKeyFile(keyFile, "test")
    const r = run(["settings", "--board", "c3-supermini-a", "--manifest", manifest, "--key-file", keyFile])
    expect(r.status).toBe(0)
    expect(r.stdout + r.stderr).not.toContain(key)
    expect(r.stdout).not.toContain("AUTH_KEY=")
    const [defaults, local] = r.stdout.split("# .env.local")
    expect(local).toContain(`# AUTH_KEY: the group key from ${keyFile}, not shown; --write puts it in .env.local (mode 0600)`)
    expect(local).toContain("NODE_ID=")
    expect(defaults).not.toContain("AUTH_KEY")
  })

  mediumTest("settings --write puts the key in .env.local only, readable by its owner only, even over an old file", () => {
    const key = readKeyFile(keyFile, "test")
    const board = mkdtempSync(join(tmpdir(), "electlab-board-"))
    writeFileSync(join(board, ".env.local"), "OLD=1\n", { mode: 0o644 })
    chmodSync(join(board, ".env.local"), 0o644)
    const r = run(["settings", "--board", "c3-supermini-a", "--manifest", manifest, "--key-file", keyFile, "--write"], board)
    expect(r.status).toBe(0)
    expect(r.stdout + r.stderr).not.toContain(key)
    const local = readFileSync(join(board, ".env.local"), "utf8")
    expect(local).toContain(`AUTH_KEY=${key}\n`)
    expect(local).not.toContain("OLD=1")
    expect(statSync(join(board, ".env.local")).mode & 0o777).toBe(0o600)
    expect(readFileSync(join(board, ".env.defaults"), "utf8")).not.toContain(key)
  })

  mediumTest("a key file without a key is a clear error naming the file and the flag", () => {
    const bad = join(dir, "bad.key")
    writeFileSync(bad, "# nothing here\nnot-a-key\n")
    const r = run(["node", "--broker", "mqtt://127.0.0.1:1", "--id", "1", "--ids", "1,2", "--key-file", bad])
    expect(r.status).toBe(2)
    expect(r.stderr).toContain(`--key-file: key file '${bad}' does not hold 64 hex digits`)
    expect(readFileSync(bad, "utf8")).toContain("not-a-key")
  })

  /** A child process that holds a secret folder (as the lab's firmware build does), then ends as `how` says. */
  function holdAndEnd(how: string) {
    const folder = join(mkdtempSync(join(tmpdir(), "electlab-secret-")), "ws")
    const script = `
      import { holdSecretFolder } from ${JSON.stringify(join(import.meta.dirname, "..", "sim", "lab", "secret-files.ts"))}
      import { writeFileSync, statSync } from "node:fs"
      const dir = holdSecretFolder(${JSON.stringify(folder)})
      writeFileSync(dir + "/lab.key", "k\\n", { mode: 0o600 })
      process.stdout.write((statSync(dir).mode & 0o777).toString(8) + "\\n")
      ${how}
    `
    const r = spawnSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], { encoding: "utf8" })
    return { r, folder }
  }

  mediumTest("the lab's secret folder is 0700 and gone after a normal exit, an error and Ctrl-C", () => {
    for (const how of ["", "throw new Error('boom')", "process.kill(process.pid, 'SIGINT'); setTimeout(() => {}, 5000)"]) {
      const { r, folder } = holdAndEnd(how)
      expect(r.stdout, how + r.stderr).toBe("700\n")
      expect(existsSync(folder), how).toBe(false)
    }
  })

  test("the lab's generated firmware source holds the key; errors from its build never show it", () => {
    const key = "ab".repeat(32)
    const source = configSource({
      algorithm: 2, ids: [1, 2], group: 1,
      timing: { answerTimeout: 1, coordinatorTimeout: 2, heartbeatInterval: 0, failureTimeout: 0 },
      authKey: key,
      mqtt: { host: "127.0.0.1", port: 1, prefix: "electlab", logins: [{ username: "node-1", password: "p1" }, { username: "node-2", password: "p2" }] },
    })
    expect(source).toContain(`authKey: "${key}"`)
    expect(source).toContain(`mqttUser: "node-" + nodeId`)
    expect(source).toContain(`mqttPassword: ["p1","p2"][[1, 2].indexOf(nodeId)] ?? ""`)
    expect(source).toContain("labTools: true")
    expect(redact(`lab-main.ts:30 authKey: "${key}" p1`, [key, "p1"])).toBe(`lab-main.ts:30 authKey: "<secret>" <secret>`)
  })

  test("a lab's image configuration carries its key and each node's broker login (the start and retime share it)", () => {
    const key = "cd".repeat(32)
    const credentials = new Map([1, 2].map((id) => [`node-${id}`, { username: `node-${id}`, password: `pw${id}` }]))
    const timing = { answerTimeout: 1, coordinatorTimeout: 2, heartbeatInterval: 0, failureTimeout: 0 }
    const config = labImageConfig({ algorithm: 2, ids: [1, 2], group: 1, timing, authKey: key, broker: { port: 1884, credentials } })
    expect(config.authKey).toBe(key)
    expect(config.mqtt).toEqual({
      host: "127.0.0.1",
      port: 1884,
      prefix: "electlab",
      logins: [{ username: "node-1", password: "pw1" }, { username: "node-2", password: "pw2" }],
    })
    expect(labImageConfig({ algorithm: 2, ids: [1, 2], group: 1, timing, authKey: null }).authKey).toBeUndefined()
  })
})
