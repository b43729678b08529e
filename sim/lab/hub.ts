// A local Jacdac bus: the DeviceScript VMs started with `--tcp` connect to 127.0.0.1:8082
// (the lab redirects them to its hub's port, sim/lab/lab-preload.cjs) and send frames as [1 length byte][Jacdac frame]; the hub relays each one to every other
// client. It is also where bus faults are injected: loss and delay, drawn from a seed.

import net from "node:net"
import { Rng } from "../simulator/rng"

export const HUB_PORT = 8082

export interface HubOptions {
  /** 0: any free port (the default). */
  port?: number
  /** Probability that one relayed frame copy is lost, 0..1. */
  loss?: number
  /** Added delay per relayed frame, ms. */
  delayMs?: number
  seed?: number
}

export class BusHub {
  /** The port it listens on (known once started when asked for any). */
  port: number
  private server: net.Server | null = null
  private clients = new Set<net.Socket>()
  private rng: Rng
  /** Frames received from clients (each relayed to all others). */
  frames = 0
  bytes = 0
  dropped = 0
  /** Sees every frame (with its length byte) before it is relayed: the web view's tap. */
  tap: ((frame: Buffer, from: net.Socket) => void) | null = null
  /** True loses the copy for `to` (the web view's "drop the next frame from A to B"). */
  dropCopy: ((frame: Buffer, from: net.Socket, to: net.Socket) => boolean) | null = null
  /** A man in the middle (attack tests): "drop" loses every copy, a number holds the frame that many ms. */
  intercept: ((frame: Buffer, from: net.Socket) => "pass" | "drop" | number) | null = null

  constructor(private options: HubOptions = {}) {
    this.port = options.port ?? 0
    this.rng = new Rng(options.seed ?? 1)
  }

  async start(): Promise<void> {
    this.server = net.createServer((socket) => this.accept(socket))
    await new Promise<void>((resolve, reject) => {
      this.server!.once("error", (e: NodeJS.ErrnoException) =>
        reject(
          e.code === "EADDRINUSE"
            ? new Error(`port ${this.port} is in use: another lab or 'devs devtools' is running`)
            : e,
        ),
      )
      this.server!.listen(this.port, "127.0.0.1", () => resolve())
    })
    this.port = (this.server.address() as net.AddressInfo).port
  }

  /** Change the injected loss and delay while the lab runs. */
  setFaults(loss: number, delayMs: number) {
    this.options = { ...this.options, loss, delayMs }
  }

  clientCount(): number {
    return this.clients.size
  }

  async stop(): Promise<void> {
    for (const c of this.clients) c.destroy()
    this.clients.clear()
    if (this.server) await new Promise<void>((resolve) => this.server!.close(() => resolve()))
    this.server = null
  }

  private accept(socket: net.Socket) {
    socket.setNoDelay(true)
    this.clients.add(socket)
    let pending = Buffer.alloc(0)
    socket.on("data", (data) => {
      pending = pending.length ? Buffer.concat([pending, data]) : data
      while (pending.length >= 1 && pending.length >= 1 + pending[0]) {
        const frame = pending.subarray(0, 1 + pending[0])
        pending = pending.subarray(1 + pending[0])
        this.relay(socket, Buffer.from(frame))
      }
    })
    const forget = () => this.clients.delete(socket)
    socket.on("close", forget)
    socket.on("error", forget)
  }

  /** A frame ([length byte][Jacdac frame]) onto the bus from no client: an attacker's device. */
  inject(frame: Buffer) {
    for (const client of this.clients) if (!client.destroyed) client.write(frame)
  }

  private relay(from: net.Socket, frame: Buffer) {
    this.frames++
    this.bytes += frame.length - 1
    this.tap?.(frame, from)
    const verdict = this.intercept ? this.intercept(frame, from) : "pass"
    if (verdict === "drop") {
      this.dropped += this.clients.size - 1
      return
    }
    if (verdict !== "pass") {
      setTimeout(() => this.send(from, frame), verdict)
      return
    }
    this.send(from, frame)
  }

  private send(from: net.Socket, frame: Buffer) {
    const loss = this.options.loss ?? 0
    const delay = this.options.delayMs ?? 0
    for (const client of this.clients) {
      if (client === from || client.destroyed) continue
      if (this.dropCopy?.(frame, from, client)) {
        this.dropped++
        continue
      }
      if (loss > 0 && this.rng.next() < loss) {
        this.dropped++
        continue
      }
      if (delay > 0) setTimeout(() => client.destroyed || client.write(frame), delay)
      else client.write(frame)
    }
  }
}
