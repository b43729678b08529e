// The lab's own seat on the bus (jacdac-ts): it finds each board's ElectLab Election
// service, reads its registers, and sends the crash/recover action, exactly as a tool on a
// laptop plugged into a real lab's bus would.

import { createRequire } from "node:module"
// jacdac-ts's "exports" hide its typings from TypeScript; a type-only import by path is erased at run time.
import type * as JD from "../../node_modules/jacdac-ts/dist/types/src/jacdac"

// The ESM build of jacdac-ts cannot load `net` for its socket transport; the CJS build can.
const jacdac = createRequire(import.meta.url)("jacdac-ts") as typeof JD

// The socket transport reports "tcp: connecting" and the like on the console, which would
// break the headless JSON and the dashboard: drop exactly those lines.
for (const level of ["log", "debug", "info"] as const) {
  const original = console[level].bind(console)
  console[level] = (...args: unknown[]) => {
    if (typeof args[0] === "string" && args[0].startsWith("tcp: ")) return
    original(...args)
  }
}

export const ELECTLAB_SERVICE_CLASS = 0x1e1ec7ab
const REG_NODE_ID = 0x180
const REG_BOOT_NONCE = 0x181
const REG_ROLE = 0x182
const REG_COORDINATOR = 0x183
const REG_EPOCH = 0x184
const REG_FRAMES_SENT = 0x185
const REG_FRAMES_RECEIVED = 0x186
const REG_FRAMES_DROPPED = 0x187

/** A board's service registers (services/electlab.md), read over the bus. */
export interface BoardRegisters {
  nonce: number
  role: number
  coordinator: number
  epoch: number
  framesSent: number
  framesReceived: number
  framesDropped: number
}
const CMD_SET_CRASHED = 0x81

type Service = JD.JDService

export class BusControl {
  private bus: JD.JDBus
  private byNode = new Map<number, Service>()

  constructor(port: number) {
    // A client with no role manager: it only reads registers and sends commands.
    this.bus = new jacdac.JDBus([jacdac.createNodeSocketTransport(port)], { client: true, disableRoleManager: true })
    this.bus.minLoggerPriority = jacdac.LoggerPriority.Silent
  }

  async connect(): Promise<void> {
    await this.bus.connect()
  }

  /** Finds the service of every board on the bus and the node id behind it. */
  async refresh(): Promise<number[]> {
    const found = new Map<number, Service>()
    for (const device of this.bus.devices({ serviceClass: ELECTLAB_SERVICE_CLASS })) {
      const service = device.services({ serviceClass: ELECTLAB_SERVICE_CLASS })[0]
      if (!service) continue
      const reg = service.register(REG_NODE_ID)
      await reg.refresh()
      const data = reg.data
      if (data && data.length >= 2) found.set(data[0] | (data[1] << 8), service)
    }
    this.byNode = found
    return [...found.keys()].sort((a, b) => a - b)
  }

  /** The crash/recover action of the board with this node id. */
  async setCrashed(node: number, crashed: boolean): Promise<void> {
    const service = await this.find(node)
    await service.sendCmdAsync(CMD_SET_CRASHED, Uint8Array.of(crashed ? 1 : 0))
  }

  /** Reads every state register of the board's service; null when it does not answer. */
  async readRegisters(node: number): Promise<BoardRegisters | null> {
    const service = this.byNode.get(node)
    if (!service || !service.device.connected) return null
    const codes = [REG_BOOT_NONCE, REG_ROLE, REG_COORDINATOR, REG_EPOCH, REG_FRAMES_SENT, REG_FRAMES_RECEIVED, REG_FRAMES_DROPPED]
    const data: DataView[] = []
    for (const code of codes) {
      const reg = service.register(code)
      await reg.refresh()
      const d = reg.data
      if (!d || d.length === 0) return null
      data.push(new DataView(d.buffer, d.byteOffset, d.byteLength))
    }
    const u32 = (v: DataView) => (v.byteLength >= 4 ? v.getUint32(0, true) : 0)
    return {
      nonce: u32(data[0]),
      role: data[1].getUint8(0),
      coordinator: data[2].byteLength >= 4 ? data[2].getInt32(0, true) : -1,
      epoch: u32(data[3]),
      framesSent: u32(data[4]),
      framesReceived: u32(data[5]),
      framesDropped: u32(data[6]),
    }
  }

  /** The board's service; a board that booted a moment ago may not be announced yet, so look again for a while. */
  private async find(node: number, timeoutMs = 5000): Promise<Service> {
    const t0 = Date.now()
    for (;;) {
      const service = this.byNode.get(node)
      if (service && service.device.connected) return service
      if (Date.now() - t0 > timeoutMs) throw new Error(`board ${node} is not on the bus (looked for ${timeoutMs} ms)`)
      await this.refresh()
      if (!this.byNode.has(node)) await new Promise((r) => setTimeout(r, 100))
    }
  }

  async close(): Promise<void> {
    await this.bus.disconnect()
    this.bus.stop()
  }
}
