#!/usr/bin/env node
// `npm run bench:auth-vm`: runs test/vm/auth-bench.vm.ts in the DeviceScript VM outside test mode
// and prints its figures, with the host's own time between the VM's start and end markers as a
// cross-check. `devs run --tcp` wants a Jacdac proxy on 127.0.0.1:8082: a listener that reads
// nothing stands in, so run it inside a private network namespace:
//   unshare -n sh -c 'ip link set lo up && flock /tmp/electlab-heavy.lock npm run bench:auth-vm'
import { spawn } from "node:child_process"
import net from "node:net"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { performance } from "node:perf_hooks"

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..")
const proxy = net.createServer((s) => s.on("data", () => {})).listen(8082, "127.0.0.1")
proxy.on("error", (e) => {
  console.error(`cannot listen on 127.0.0.1:8082 (${e.message}): run inside unshare -n`)
  process.exit(2)
})
const vm = spawn(join(root, "node_modules", ".bin", "devs"), ["run", "--tcp", "test/vm/auth-bench.vm.ts"], { cwd: root })
const marks = {}
let pending = ""
const timer = setTimeout(() => finish("no result within 10 minutes"), 600_000)
vm.stdout.on("data", (chunk) => {
  pending += chunk.toString()
  const lines = pending.split("\n")
  pending = lines.pop()
  for (const raw of lines) {
    const line = raw.replace(/\x1b\[[0-9;]*m/g, "").replace(/^WASM> /, "").trim()
    const mark = /^ELECTLAB-BENCH-MARK (\w+)/.exec(line)
    if (mark) marks[mark[1]] = performance.now()
    if (line.startsWith("ELECTLAB-AUTH-TIME ")) {
      console.log(line)
      const n = Number(/ n=(\d+)/.exec(line)[1])
      // four batches of n frames each (empty, seal, open, encode+decode), as one wall-clock span
      console.log(`host: ${Math.round(marks.end - marks.start)} ms between the markers for 4 × ${n} iterations`)
      finish(null)
    }
  }
})
vm.stderr.on("data", (chunk) => process.stderr.write(chunk))
vm.on("exit", (code) => finish(`the VM exited (${code}) before its result`))

function finish(problem) {
  clearTimeout(timer)
  vm.removeAllListeners("exit")
  vm.kill("SIGTERM")
  proxy.close()
  if (problem) {
    console.error(problem)
    process.exitCode = 1
  }
}
