// Preloaded into every process of the lab (`node --require`).
const net = require("node:net")
const { performance } = require("node:perf_hooks")

// The bus port. `devs run --tcp` always connects to 127.0.0.1:8082; the lab's hub listens on a
// port of its own (so that labs, and tests, can run side by side) and says which here.
const DEVS_TCP_PORT = 8082
const hubPort = Number(process.env.ELECTLAB_HUB_PORT)
if (hubPort && hubPort !== DEVS_TCP_PORT) {
  const createConnection = net.createConnection
  net.createConnection = function (port, ...rest) {
    return createConnection.call(this, port === DEVS_TCP_PORT ? hubPort : port, ...rest)
  }
}

// How late this process's timers fire. A board whose process did not run for 200 ms answers
// 200 ms late, whatever the election does; the lab puts these lines beside a transition that
// went wrong (stallMs).

const PERIOD_MS = 20
/** Shorter stalls are the machine's usual jitter: not worth a line. */
const REPORT_MS = 30

let due = performance.now() + PERIOD_MS
// the first tick waits for the program's own start (seconds of loading): a boot, not a stall
let started = false
function tick() {
  const now = performance.now()
  const late = Math.round(now - due)
  if (late >= REPORT_MS && started) process.stderr.write(`EL stall ms=${late}\n`)
  started = true
  due = now + PERIOD_MS
  setTimeout(tick, PERIOD_MS).unref()
}
setTimeout(tick, PERIOD_MS).unref()
