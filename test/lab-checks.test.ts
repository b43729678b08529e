// The lab's checks and views that need no VM: script boards checked before boot, the
// dashboard at 80 columns, roles parsed once at the boundary, the boards' VM runner.
import { spawnSync } from "node:child_process"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import { type AddressInfo, createServer, type Socket } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, test } from "vitest"
import { Role } from "../src/core/contract"
import { boardRoleName, emptyBoard, isLive, parseRole } from "../sim/lab/board-state"
import { fitWidth } from "../sim/lab/dashboard"
import { Lab, LOG_LINES, panicWhy } from "../sim/lab/lab"
import { Algorithm } from "../src/core/frame"
import { defaultTiming } from "../src/core/timing"
import { DEVS_CLI } from "../sim/lab/firmware-image"
import { checkScriptBoards, parseLabScript, readLabScript, scriptFile } from "../sim/lab/script"
import { ROOT } from "../sim/config/root"

describe("lab input checks", () => {
  test("a script naming a board the lab lacks is refused with its file and line", () => {
    const steps = parseLabScript("crash coordinator\nrepeat 2\n  at 100 crash 9\nend\n", "s.txt")
    expect(() => checkScriptBoards(steps, [1, 2, 3, 4, 5], "s.txt")).toThrow("s.txt:3: no board 9 in this lab (boards: 1,2,3,4,5)")
    expect(() => checkScriptBoards(parseLabScript("kill 5\nrestart killed\n", "s.txt"), [1, 2, 3, 4, 5], "s.txt")).not.toThrow()
  })
  test("--script names a script that comes with the package, or a file of the user's", () => {
    expect(scriptFile("failover-10")).toBe(join(ROOT, "sim", "lab", "scripts", "failover-10.txt"))
    expect(readLabScript("failover-10").length).toBeGreaterThan(0)
    expect(scriptFile("my-failovers.txt")).toBe("my-failovers.txt")
    expect(scriptFile("no-such-script")).toBe("no-such-script")
  })
})

describe("dashboard lines", () => {
  test("cut to the terminal's width, escape sequences kept and not counted", () => {
    const line = "\x1b[1mElectLab\x1b[0m " + "x".repeat(100)
    const cut = fitWidth(line, 80)
    expect(cut.replace(/\x1b\[[0-9;]*m/g, "").length).toBe(80)
    expect(cut.startsWith("\x1b[1mElectLab\x1b[0m x")).toBe(true)
    expect(fitWidth("short", 80)).toBe("short")
  })
})

describe("board state", () => {
  test("roles are the core's Role; unknown names are null", () => {
    expect(parseRole("coordinator")).toBe(Role.Coordinator)
    expect(parseRole("misconfigured")).toBe(Role.Misconfigured)
    expect(parseRole("leader")).toBeNull()
    const b = emptyBoard(3)
    expect(boardRoleName(b)).toBe("booting")
    b.booted = true
    b.role = Role.Crashed
    expect(isLive(b)).toBe(false)
    b.role = Role.Follower
    expect(isLive(b)).toBe(true)
    b.powered = false
    expect(boardRoleName(b)).toBe("off")
  })
})

describe("lab options", () => {
  test("--hub takes lab or devtools; devtools cannot inject bus faults", async () => {
    const { labOptions } = await import("../sim/lab/command")
    const base = { loss: "0", delay: "0", seed: "1", transport: "bus", boards: "3" }
    expect(labOptions({ ...base, hub: "devtools" }).hub).toBe("devtools")
    expect(() => labOptions({ ...base, hub: "jacdac" })).toThrow("unknown hub 'jacdac'; known: lab, devtools")
    expect(() => labOptions({ ...base, hub: "devtools", loss: "0.1" })).toThrow("loss and delay are injected by the lab's own hub")
  })
})

describe("the boards' VM runner", () => {
  const runner = join(ROOT, "sim", "lab", "vm-runner.cjs")
  test("finds the VM module in the installed DeviceScript bundle and starts it", async () => {
    const { vmFactory } = createRequire(import.meta.url)(runner) as { vmFactory: (cli: string) => (() => Promise<Record<string, unknown>>) | null }
    const factory = vmFactory(DEVS_CLI)
    expect(factory).toBeTypeOf("function")
    const inst = await factory!()
    for (const f of ["devsDeploy", "devsStart", "devsSetDeviceId", "setupNodeTcpSocketTransport"]) expect(inst[f], f).toBeTypeOf("function")
  })
  test("a program's socket delivers what arrives as a board's does, 128 bytes at a time; the bus connection as it comes", async () => {
    const { boardNet, BOARD_READ_BYTES } = createRequire(import.meta.url)(runner) as {
      boardNet: () => typeof import("node:net")
      BOARD_READ_BYTES: number
    }
    expect(BOARD_READ_BYTES).toBe(128)
    const sent = Buffer.from(Array.from({ length: 20_000 }, (_, i) => i % 251))
    const server = createServer((socket) => socket.end(sent))
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    const port = (server.address() as AddressInfo).port
    const read = (socket: Socket) =>
      new Promise<Buffer[]>((resolve) => {
        const chunks: Buffer[] = []
        socket.on("data", (c: Buffer) => chunks.push(Buffer.from(c)))
        socket.on("end", () => resolve(chunks))
      })
    try {
      const program = await read(boardNet().createConnection({ host: "127.0.0.1", port }))
      expect(Buffer.concat(program).equals(sent)).toBe(true)
      expect(Math.max(...program.map((c) => c.length))).toBe(BOARD_READ_BYTES)
      const bus = await read(boardNet().createConnection(port, "127.0.0.1"))
      expect(Buffer.concat(bus).equals(sent)).toBe(true)
      expect(Math.max(...bus.map((c) => c.length))).toBeGreaterThan(BOARD_READ_BYTES)
    } finally {
      server.close()
    }
  })
  test("runs devs run instead, and says so, where the bundle has no VM module where it looks", () => {
    const folder = mkdtempSync(join(tmpdir(), "electlab-fake-cli-"))
    try {
      const fake = join(folder, "devicescript-cli.cjs")
      writeFileSync(fake, `exports.mainCli = async () => console.log("devs " + process.argv.slice(2).join(" "))\n`)
      const r = spawnSync(process.execPath, [runner, fake, "image.devs", "e1ec7ab000000003"], { encoding: "utf8" })
      expect(r.status).toBe(0)
      expect(r.stderr).toContain("has no VM module where 2.16.4 has it; running devs run")
      expect(r.stdout.trim()).toBe("devs run image.devs --tcp --device-id e1ec7ab000000003")
    } finally {
      rmSync(folder, { recursive: true, force: true })
    }
  })
})

describe("the lab's event log", () => {
  test("keeps its last lines; what was noted since a count is found after the oldest went", () => {
    const lab = new Lab({ ids: [1, 2, 3], algorithm: Algorithm.ImprovedBully, group: 1, timing: defaultTiming("bus") })
    for (let i = 0; i < LOG_LINES - 10; i++) lab.note(`line ${i}`)
    const mark = lab.logCount
    for (let i = LOG_LINES - 10; i < LOG_LINES + 40; i++) lab.note(`line ${i}`)
    expect(lab.log).toHaveLength(LOG_LINES)
    expect(lab.logCount).toBe(LOG_LINES + 40)
    expect(lab.logSince(mark).map((l) => l.text)).toEqual(Array.from({ length: 50 }, (_, i) => `line ${LOG_LINES - 10 + i}`))
    expect(lab.logSince(lab.logCount)).toEqual([])
    // a count older than the oldest line kept: all that is kept
    expect(lab.logSince(0)).toHaveLength(LOG_LINES)
  })
})

describe("a board's panic, as the lab's event log tells it", () => {
  test("the exception and the innermost functions of the VM's stack trace, without ids and counters", () => {
    const tail = [
      "EL rx t=16030 n=12 k=ELECTION",
      "WASM> \x1b[31mException: OutOfMemory\x1b[0m",
      "WASM>  at putU16_F210 (pc:39)",
      "WASM>  at encodeFrame_F253 (pc:189)",
      "WASM>  at seal_F251 (pc:50)",
      "WASM>  at apply_F250 (pc:51)",
      "WASM>  at deliver_F272 (pc:492)",
      "PANIC 60004",
    ]
    expect(panicWhy(tail)).toBe(": Exception: OutOfMemory, in putU16 < encodeFrame < seal < apply")
    expect(panicWhy(["WASM> Exception: RangeError"])).toBe(": Exception: RangeError")
    expect(panicWhy(["PANIC 60004"])).toBe("")
  })
})
