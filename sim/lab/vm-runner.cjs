// One board of the virtual lab: DeviceScript's VM running an image, on the lab's bus.
//   node vm-runner.cjs DEVICESCRIPT_CLI.cjs IMAGE.devs DEVICE_ID
// It does what `devs run IMAGE --tcp --device-id ID` does, without the rest of DeviceScript's
// command line: that is one 28 MB bundle (the compiler and TypeScript with it), and loading it
// cost each board about 1.5 s of CPU and 240 MB at every boot. The VM module inside the bundle
// (emscripten's loader with the WebAssembly inlined) stands on its own: this evaluates that
// part only. Where the installed bundle does not have it where 2.16.4 does, it runs
// `devs run` instead (docs/devicescript.md).
"use strict"
const { readFileSync, writeFileSync, mkdirSync } = require("node:fs")
const { dirname, join } = require("node:path")
const { runInThisContext } = require("node:vm")
const { reportHeap, reportOutOfHeap } = require("./vm-heap.cjs")

const [cli, image, deviceId] = process.argv.slice(2)

const START = "var require_devicescript_vm = __commonJS({"
const END = "\n// dap/built/"

/**
 * Bytes an ESP32 board reads from its socket at once: DeviceScript's ESP32 build receives into
 * a 128-byte buffer and hands each read to the program as one chunk. Node hands over whatever
 * arrived, kilobytes in a burst, which a board's heap would have to hold in one block.
 */
const BOARD_READ_BYTES = 128

/** node:net as the VM's sockets see it: the program's connections deliver data as a board's would. */
function boardNet() {
  const net = require("node:net")
  return {
    ...net,
    createConnection(...args) {
      const socket = net.createConnection(...args)
      // the program's sockets ({ host, port }); the bus connection (port, host) stays as it is
      if (typeof args[0] === "object") readLikeABoard(socket)
      return socket
    },
  }
}

function readLikeABoard(socket) {
  const emit = socket.emit
  socket.emit = function (event, ...rest) {
    const data = rest[0]
    if (event !== "data" || data.length <= BOARD_READ_BYTES) return emit.call(this, event, ...rest)
    for (let at = 0; at < data.length; at += BOARD_READ_BYTES) emit.call(this, "data", data.subarray(at, at + BOARD_READ_BYTES))
    return true
  }
}

/** What the VM module's require gives: node:net as a board reads it, the rest as it is. */
function vmRequire(name) {
  return name === "net" || name === "node:net" ? boardNet() : require(name)
}

/** The VM module's factory, evaluated from the CLI bundle `cli`; null when it is laid out otherwise. */
function vmFactory(cli) {
  const text = readFileSync(cli, "utf8")
  const start = text.indexOf(START)
  const end = start < 0 ? -1 : text.indexOf(END, start)
  if (start < 0 || end < 0) return null
  // the bundle's own CommonJS wrapper, in its smallest form
  const commonJs = "var __commonJS = (cb, mod) => () => (mod || cb[Object.getOwnPropertyNames(cb)[0]]((mod = { exports: {} }).exports, mod), mod.exports);"
  const wrapper = `(function (require, __filename, __dirname) { ${commonJs}\n${text.slice(start, end)}\nreturn require_devicescript_vm(); })`
  return runInThisContext(wrapper, { filename: cli })(vmRequire, cli, dirname(cli))
}

/** `devs run`'s dmesg printing: marked lines only, prefixed as the lab reads them. */
function dmesg(line) {
  const m = /^\s*([*!?>#]) (.*)/.exec(line)
  if (m) console.log("WASM> " + m[2])
}

async function main() {
  const factory = vmFactory(cli)
  if (!factory) {
    console.error(`vm-runner: ${cli} has no VM module where 2.16.4 has it; running devs run`)
    // in this process, so that killing it (a power cycle) stops the VM
    process.argv = [process.argv[0], cli, "run", image, "--tcp", "--device-id", deviceId]
    await require(cli).mainCli()
    return
  }
  const inst = await factory()
  inst.dmesg = dmesg
  inst.devsGcStress(false)
  await inst.setupNodeTcpSocketTransport(require, "127.0.0.1", 8082)
  // the flash file devs run keeps (.devicescript/flash/sim.bin of the working folder)
  const flash = join(".devicescript", "flash", "sim.bin")
  mkdirSync(dirname(flash), { recursive: true })
  inst.flashLoad = () => {
    try {
      return new Uint8Array(readFileSync(flash))
    } catch {
      return new Uint8Array(0)
    }
  }
  inst.flashSave = (buf) => writeFileSync(flash, buf)
  inst.devsSetDeviceId(deviceId)
  // the program's heap after each collection, for the lab's figures (sim/lab/vm-heap.cjs)
  const meter = reportHeap(inst, (line) => console.log(line))
  // out of heap: whether the space ran out or lay in pieces too small (the panic's note says)
  reportOutOfHeap(inst, meter, (line) => console.log(line))
  inst.devsStart()
  const r = inst.devsDeploy(readFileSync(image))
  if (r) throw new Error("deploy error: " + r)
  console.log(`self-deployed ${image}`)
}

module.exports = { vmFactory, boardNet, BOARD_READ_BYTES }

if (require.main === module)
  main().catch((e) => {
    console.error(`vm-runner: ${e && e.message}`)
    process.exit(1)
  })
