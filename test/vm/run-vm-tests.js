#!/usr/bin/env node
// Runs the DeviceScript VM tests: first generates the golden scenario files' data
// (generate-golden.ts), which core.vm.ts replays and compares with the files' expected
// output and the host's trace digest. Prints "N passed, N failed" and exits non-zero on any failure.
import { spawnSync } from "node:child_process"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { register } from "tsx/esm/api"

register()
const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..")
const { writeGolden } = await import("./generate-golden.ts")
console.log(`golden data from ${writeGolden().length} files in test/scenarios`)

const devs = join(root, "node_modules", ".bin", "devs")
let passed = 0
let failed = 0
const check = (ok, what) => {
  if (ok) passed++
  else failed++
  console.log(`${ok ? "ok  " : "FAIL"} ${what}`)
}

const vm = spawnSync(devs, ["run", "test/vm/core.vm.ts", "--test", "--test-self-exit", "-T", "120000"], {
  cwd: root,
  encoding: "utf8",
})
// Strip the VM's colour codes and its "WASM> " prefix.
const vmOut = (vm.stdout + vm.stderr).replace(/\x1b\[[0-9;]*m/g, "")
const vmLines = vmOut.split("\n").map((l) => l.replace(/^WASM> /, "").trim())
const summary = vmLines.find((l) => l.startsWith("tests: "))
check(vm.status === 0, `DeviceScript VM tests (test/vm/core.vm.ts, the golden files among them): ${summary ?? "no summary"}`)
if (vm.status !== 0) console.log(vmOut)

// The firmware's adapters (config, LED scheme, the node driver with real timers).
const fw = spawnSync(devs, ["run", "test/vm/firmware.vm.ts", "--test", "--test-self-exit", "-T", "120000"], {
  cwd: root,
  encoding: "utf8",
})
const fwOut = (fw.stdout + fw.stderr).replace(/\x1b\[[0-9;]*m/g, "")
const fwSummary = fwOut.split("\n").map((l) => l.replace(/^WASM> /, "").trim()).find((l) => l.startsWith("tests: "))
check(fw.status === 0, `DeviceScript VM tests (test/vm/firmware.vm.ts): ${fwSummary ?? "no summary"}`)
if (fw.status !== 0) console.log(fwOut)

// The adaptive failure detector: the same delays as in Node.
const fd = spawnSync(devs, ["run", "test/vm/detector.vm.ts", "--test", "--test-self-exit", "-T", "120000"], {
  cwd: root,
  encoding: "utf8",
})
const fdOut = (fd.stdout + fd.stderr).replace(/\x1b\[[0-9;]*m/g, "")
const fdSummary = fdOut.split("\n").map((l) => l.replace(/^WASM> /, "").trim()).find((l) => l.startsWith("tests: "))
check(fd.status === 0, `DeviceScript VM tests (test/vm/detector.vm.ts): ${fdSummary ?? "no summary"}`)
if (fd.status !== 0) console.log(fdOut)

// Authenticated frames: the VM's tags must be Node's, byte for byte (test/vm/auth-vectors.ts).
const { authVectorLines } = await import("./auth-vectors.ts")
const { nodeMac } = await import("../../sim/auth/keys.ts")
const auth = spawnSync(devs, ["run", "test/vm/auth.vm.ts", "--test", "--test-self-exit", "-T", "120000"], {
  cwd: root,
  encoding: "utf8",
})
const authLines = (auth.stdout + auth.stderr).replace(/\x1b\[[0-9;]*m/g, "").split("\n").map((l) => l.replace(/^WASM> /, "").trim())
const authSummary = authLines.find((l) => l.startsWith("tests: "))
check(auth.status === 0, `DeviceScript VM tests (test/vm/auth.vm.ts): ${authSummary ?? "no summary"}`)
const nodeTags = authVectorLines(nodeMac)
const vmTags = authLines.filter((l) => l.startsWith("ELECTLAB-AUTH "))
const sameTags = nodeTags.length === vmTags.length && nodeTags.every((l, i) => l === vmTags[i])
check(sameTags, "VM agrees with Node on sealed frames, challenge and proof (HMAC-SHA256 tags)")
if (!sameTags) console.log(`  node: ${nodeTags.join("\n        ")}\n  vm:   ${vmTags.join("\n        ")}`)

console.log(`${passed} passed, ${failed} failed`)
process.exitCode = failed ? 1 : 0
