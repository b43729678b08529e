// One member of the lab as a process: a DeviceScript VM running the compiled firmware, or a
// host node. Its structured log ("EL <event> t=.. n=.. key=value ...") is how the lab sees its
// state; each line becomes a typed BoardEvent here, once.

import { type ChildProcess, spawn } from "node:child_process"
import { join } from "node:path"
import { createInterface } from "node:readline"
import { LAB_DEVICE_PREFIX } from "../../src/firmware/config"
import { DEVS_CLI } from "./firmware-image"
import { type BoardEvent, type LogEvent, toBoardEvent } from "./board-event"
import { LAB_PRELOAD } from "./stalls"
import { HUB_PORT } from "./hub"

/**
 * The device id the lab gives the board with this node id (see nodeIdFromDeviceId); `copy` > 0
 * gives another device with the same node id (a duplicate-id test).
 */
export function labDeviceId(nodeId: number, copy = 0): string {
  return LAB_DEVICE_PREFIX + copy.toString(16).padStart(4, "0") + nodeId.toString(16).padStart(4, "0")
}

/** Fields whose value is free text, last on the line: it runs to the end (formatLog). */
const FREE_TEXT_FIELDS = ["msg", "problem"]

/** "EL role t=1082 n=1 r=follower c=3 e=0" → event; null for other lines. */
export function parseLogLine(line: string, node: number, at: number): LogEvent | null {
  const clean = line.replace(/\x1b\[[0-9;]*m/g, "").replace(/^WASM> /, "").trim()
  // the VM stopped the program ("PANIC 60004": out of memory, an uncaught exception); it
  // restarts it in the same process, so no exit tells the lab
  if (/^PANIC \d+/.test(clean)) return { node, event: "panic", fields: { code: clean.slice(6).trim() }, at }
  if (!clean.startsWith("EL ")) return null
  const [, event, ...rest] = clean.split(" ")
  const fields: Record<string, string> = {}
  for (let i = 0; i < rest.length; i++) {
    const eq = rest[i].indexOf("=")
    if (eq <= 0) continue
    const key = rest[i].slice(0, eq)
    if (FREE_TEXT_FIELDS.includes(key)) {
      fields[key] = [rest[i].slice(eq + 1), ...rest.slice(i + 1)].join(" ")
      break
    }
    fields[key] = rest[i].slice(eq + 1)
  }
  return { node, event, fields, at }
}

/** The VM alone, without the rest of DeviceScript's command line (see the file). */
const VM_RUNNER = join(import.meta.dirname, "vm-runner.cjs")

/** Arguments (after `node`) that start a board's VM: what `devs run IMAGE --tcp --device-id ID` does. */
export function vmCommand(image: string, nodeId: number, copy = 0): string[] {
  return [VM_RUNNER, DEVS_CLI, image, labDeviceId(nodeId, copy)]
}

/**
 * One member of the lab as a process: a DeviceScript VM running the firmware, or a host
 * node (`electlab node`), which logs the same lines and takes "crash"/"recover" on stdin.
 */
export class LabMember {
  private child: ChildProcess | null = null
  /** Lines that were not structured log events (VM banners, errors), newest last. */
  readonly rawTail: string[] = []
  /** When the VM began running the program (its runner's "self-deployed" line), or null. */
  deployedAt: number | null = null

  constructor(
    readonly nodeId: number,
    private args: string[],
    private onEvent: (e: BoardEvent) => void,
    private onExit: (member: LabMember, code: number | null) => void,
    /** A host node rather than a VM. */
    readonly host = false,
    /** The lab's bus port (a VM's `--tcp` is redirected there). */
    private hubPort = HUB_PORT,
  ) {}

  get running(): boolean {
    return this.child !== null
  }

  /** A line on the process's stdin (host nodes: "crash" or "recover"). */
  send(line: string) {
    this.child?.stdin?.write(line + "\n")
  }

  start() {
    if (this.child) return
    this.deployedAt = null
    // every process reports its own stalls (sim/lab/stalls.ts) and finds the lab's bus port
    const env = { ...process.env, ELECTLAB_HUB_PORT: String(this.hubPort) }
    const child = spawn(process.execPath, ["--require", LAB_PRELOAD, ...this.args], { stdio: ["pipe", "pipe", "pipe"], env })
    this.child = child
    const read = (stream: NodeJS.ReadableStream) =>
      createInterface({ input: stream }).on("line", (line) => {
        const ev = parseLogLine(line, this.nodeId, performance.now())
        if (line.startsWith("self-deployed ")) this.deployedAt = performance.now()
        if (ev) this.onEvent(toBoardEvent(ev))
        if (!ev || ev.event === "panic") {
          this.rawTail.push(line)
          if (this.rawTail.length > 20) this.rawTail.shift()
        }
      })
    read(child.stdout!)
    read(child.stderr!)
    child.on("exit", (code) => {
      if (this.child === child) this.child = null
      this.onExit(this, code)
    })
  }

  /** Kill the VM process (the board loses power). */
  kill(): Promise<void> {
    const child = this.child
    if (!child) return Promise.resolve()
    this.child = null
    return new Promise((resolve) => {
      child.once("exit", () => resolve())
      child.kill("SIGKILL")
    })
  }
}
