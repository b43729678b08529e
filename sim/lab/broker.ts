// A local mosquitto for the virtual lab over WiFi and for the tests (Debian package
// `mosquitto`; the README's set-up and CI install it). Loopback only, no persistence;
// anonymous, or with a password per node and topic rights (broker-access.ts). Its folder
// (config, password file) is the owner's only and removed at exit.

import { type ChildProcess, spawn } from "node:child_process"
import { mkdtempSync, writeFileSync } from "node:fs"
import net from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { type BrokerAccess, type Credentials, writeBrokerAccess } from "./broker-access"
import { holdSecretFolder, removeSecretFolder } from "./secret-files"

export const MOSQUITTO = process.env.MOSQUITTO ?? "mosquitto"

export class Broker {
  private child: ChildProcess | null = null
  private dir = holdSecretFolder(mkdtempSync(join(tmpdir(), "electlab-mosquitto-")))
  readonly log: string[] = []
  /** With access control: every client's credentials (see broker-access.ts). */
  credentials: Map<string, Credentials> | null = null
  private accessConfig = "allow_anonymous true\n"

  constructor(
    readonly port: number,
    access?: BrokerAccess,
  ) {
    if (access) {
      const { config, credentials } = writeBrokerAccess(this.dir, access)
      this.accessConfig = config
      this.credentials = credentials
    }
  }

  get url(): string {
    return `mqtt://127.0.0.1:${this.port}`
  }

  async start(): Promise<void> {
    const conf = join(this.dir, "mosquitto.conf")
    // set_tcp_nodelay: no Nagle delay on small election frames
    writeFileSync(conf, `listener ${this.port} 127.0.0.1\n${this.accessConfig}persistence false\nset_tcp_nodelay true\n`)
    const child = spawn(MOSQUITTO, ["-c", conf], { stdio: ["ignore", "pipe", "pipe"] })
    this.child = child
    const keep = (d: Buffer) => {
      for (const line of d.toString().split("\n")) if (line) this.log.push(line)
      if (this.log.length > 200) this.log.splice(0, this.log.length - 200)
    }
    child.stdout!.on("data", keep)
    child.stderr!.on("data", keep)
    const failed = new Promise<never>((_, reject) => {
      child.once("error", (e) =>
        reject(new Error(`cannot start mosquitto (${e.message}); install it: apt-get install mosquitto`)),
      )
      child.once("exit", (code) => reject(new Error(`mosquitto exited (${code}): ${this.log.slice(-3).join(" | ")}`)))
    })
    await Promise.race([waitForPort(this.port, 5000), failed])
  }

  /** Stops the broker: every client loses its connection. */
  async stop(): Promise<void> {
    const child = this.child
    this.child = null
    if (!child || child.exitCode !== null) return
    await new Promise<void>((resolve) => {
      child.once("exit", () => resolve())
      child.kill("SIGTERM")
    })
  }

  async dispose(): Promise<void> {
    await this.stop()
    removeSecretFolder(this.dir)
  }
}

/** Resolves once something accepts connections on 127.0.0.1:port. */
export async function waitForPort(port: number, timeoutMs: number): Promise<void> {
  const t0 = Date.now()
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const s = net.connect(port, "127.0.0.1", () => {
        s.destroy()
        resolve(true)
      })
      s.on("error", () => resolve(false))
    })
    if (ok) return
    if (Date.now() - t0 > timeoutMs) throw new Error(`nothing listens on 127.0.0.1:${port} after ${timeoutMs} ms`)
    await new Promise((r) => setTimeout(r, 50))
  }
}

/** `n` distinct free TCP ports on loopback (held open together, so none repeats). */
export async function freePorts(n: number): Promise<number[]> {
  const servers = await Promise.all(
    Array.from(
      { length: n },
      () =>
        new Promise<net.Server>((resolve, reject) => {
          const server = net.createServer()
          server.listen(0, "127.0.0.1", () => resolve(server))
          server.on("error", reject)
        }),
    ),
  )
  const ports = servers.map((s) => (s.address() as net.AddressInfo).port)
  await Promise.all(servers.map((s) => new Promise<void>((r) => s.close(() => r()))))
  return ports
}

/** A free TCP port on loopback. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer()
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      const port = typeof address === "object" && address ? address.port : 0
      server.close(() => resolve(port))
    })
    server.on("error", reject)
  })
}
