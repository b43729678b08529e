// Keys from the command line: `electlab keygen`, `settings --key-file`, `node --key-file`.
import { spawnSync } from "node:child_process"
import { mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, test } from "vitest"
import { readKeyFile } from "../sim/auth/keys"

const CLI = join(import.meta.dirname, "..", "bin", "electlab.js")
const run = (args: string[], cwd?: string) => spawnSync(process.execPath, [CLI, ...args], { encoding: "utf8", cwd })

describe("keys", () => {
  const dir = mkdtempSync(join(tmpdir(), "electlab-keys-"))
  const keyFile = join(dir, "group.key")

  test("keygen writes 64 hex digits readable by its owner only, and never overwrites", () => {
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

  test("settings --key-file puts the key in the board's .env.local part only", () => {
    const key = readKeyFile(keyFile, "test")
    const r = run(["settings", "--board", "c3-supermini-a", "--manifest", join(import.meta.dirname, "..", "devicescript.json"), "--key-file", keyFile])
    expect(r.status).toBe(0)
    const [defaults, local] = r.stdout.split("# .env.local")
    expect(local).toContain(`AUTH_KEY=${key}`)
    expect(defaults).not.toContain("AUTH_KEY")
  })

  test("a key file without a key is a clear error naming the file and the flag", () => {
    const bad = join(dir, "bad.key")
    writeFileSync(bad, "# nothing here\nnot-a-key\n")
    const r = run(["node", "--broker", "mqtt://127.0.0.1:1", "--id", "1", "--ids", "1,2", "--key-file", bad])
    expect(r.status).toBe(2)
    expect(r.stderr).toContain(`--key-file: key file '${bad}' does not hold 64 hex digits`)
    expect(readFileSync(bad, "utf8")).toContain("not-a-key")
  })
})
