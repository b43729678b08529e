#!/usr/bin/env node
// Runs the DeviceScript VM tests: first generates the golden scenario files' data
// (generate-golden.ts), which golden-1.vm.ts and golden-2.vm.ts replay and compares with the files' expected
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

/**
 * Runs one VM test program and counts it; prints its output when it fails. Returns its
 * lines without the VM's colour codes and "WASM> " prefix.
 */
function checkVm(file, about) {
  // a generous limit: the VM runs with GC stress, on a machine other jobs share
  const run = spawnSync(devs, ["run", file, "--test", "--test-self-exit", "-T", "600000"], { cwd: root, encoding: "utf8" })
  const out = (run.stdout + run.stderr).replace(/\x1b\[[0-9;]*m/g, "")
  const lines = out.split("\n").map((l) => l.replace(/^WASM> /, "").trim())
  const summary = lines.find((l) => l.startsWith("tests: ")) ?? "no summary"
  check(run.status === 0, `DeviceScript VM tests (${file}${about}): ${summary}`)
  if (run.status !== 0) console.log(out)
  return lines
}

// The golden files, in two images (one would pass the VM's limit on function code).
checkVm("test/vm/golden-1.vm.ts", ", golden files, first half")
checkVm("test/vm/golden-2.vm.ts", ", golden files, second half")
// The codec and the checker.
checkVm("test/vm/core.vm.ts", "")
// The firmware's adapters (config, LED scheme, the node driver with real timers).
checkVm("test/vm/firmware.vm.ts", "")
// The adaptive failure detector: the same delays as in Node.
checkVm("test/vm/detector.vm.ts", "")
// The early probe of a late coordinator, with a key.
checkVm("test/vm/probe.vm.ts", "")

// Authenticated frames: the VM's tags must be Node's, byte for byte (test/vm/auth-vectors.ts).
const { authVectorLines } = await import("./auth-vectors.ts")
const { nodeMac } = await import("../../sim/auth/keys.ts")
const authLines = checkVm("test/vm/auth.vm.ts", "")
const nodeTags = authVectorLines(nodeMac)
const vmTags = authLines.filter((l) => l.startsWith("ELECTLAB-AUTH "))
const sameTags = nodeTags.length === vmTags.length && nodeTags.every((l, i) => l === vmTags[i])
check(sameTags, "VM agrees with Node on frame keys, sealed frames, challenge and proof (HMAC-SHA256)")
if (!sameTags) console.log(`  node: ${nodeTags.join("\n        ")}\n  vm:   ${vmTags.join("\n        ")}`)

console.log(`${passed} passed, ${failed} failed`)
process.exitCode = failed ? 1 : 0
