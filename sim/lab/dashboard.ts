// The live terminal dashboard of the virtual lab: one row per board with its LED as the
// board would show it (colour and blink pattern), role, coordinator, epoch and frame counts,
// then the event log. Keys crash/recover a board (through its service action) and
// kill/restart its VM.

import { Role } from "../../src/core/contract"
import { algorithmName } from "../../src/core/algorithms"
import { LED_SLOT_MS, ledColorAt } from "../../src/firmware/led-scheme"
import { type BoardState, boardRoleName } from "./board-state"
import type { Lab } from "./lab"

const ESC = "\x1b["

function ledCell(board: BoardState, slot: number): string {
  if (!board.powered) return `${ESC}90m·${ESC}0m`
  if (board.role === null) return `${ESC}90m○${ESC}0m`
  const color = ledColorAt(board.role, slot)
  if (color === 0) return `${ESC}90m○${ESC}0m`
  return `${ESC}38;2;${(color >> 16) & 255};${(color >> 8) & 255};${color & 255}m●${ESC}0m`
}

export function renderDashboard(lab: Lab, selected: number, slot: number, width: number, height: number): string[] {
  const o = lab.options
  const { agreed, coordinator } = lab.agreement()
  const lines: string[] = []
  // short lines: at 80 columns a wrapped title would push the top off the screen
  lines.push(`${ESC}1mElectLab virtual lab${ESC}0m · ${algorithmName(o.algorithm)} · ${o.ids.length} boards · firmware ${lab.firmwareBytes} B`)
  lines.push(
    (lab.brokerUrl() ? `frames over MQTT ${lab.brokerUrl()} · ` : "frames over the bus · ") +
      `bus 127.0.0.1:${lab.hub.port} · loss ${o.loss ?? 0} · delay ${o.delayMs ?? 0} ms`,
  )
  lines.push(
    (agreed
      ? `${ESC}32mall live boards agree: coordinator ${coordinator}${ESC}0m`
      : `${ESC}33mno agreement yet${ESC}0m`) +
      (lab.authKey
        ? " · frames authenticated (HMAC key made for this run)"
        : ` · ${ESC}31mNO KEY: frames unauthenticated, any board can take over${ESC}0m`),
  )
  lines.push("")
  // sent/recv: every frame (the service's registers); elect: election frames sent/received (the log)
  // heap: the program's KB after the VM's last collection / the most after any (of 64)
  lines.push("   board  LED  role           coord  epoch   sent   recv  elect tx/rx  drops errors refused  heap/peak KB")
  for (const b of lab.boards.values()) {
    const mark = b.node === selected ? `${ESC}7m▶${ESC}0m` : " "
    const role = (b.powered ? boardRoleName(b) : "VM off") + (o.hostNodes?.includes(b.node) ? " (host)" : "")
    const coord = b.coordinator >= 0 && b.powered ? String(b.coordinator) : "-"
    lines.push(
      ` ${mark} ${String(b.node).padStart(5)}   ${ledCell(b, slot)}   ${role.padEnd(14)} ${coord.padStart(5)}  ` +
        `${String(b.epoch).padStart(5)}  ${String(b.framesSent).padStart(5)}  ${String(b.framesReceived).padStart(5)}  ` +
        `${`${b.tx}/${b.rx}`.padStart(11)}  ${String(b.drops).padStart(5)} ${String(b.errors).padStart(6)}` +
        ` ${String(b.refused).padStart(7)}  ${heapCell(b).padStart(12)}`,
    )
  }
  lines.push("")
  lines.push(`keys: ↑/↓ or 1-9 select · ${ESC}1mc${ESC}0m crash/recover · ${ESC}1mk${ESC}0m kill/restart VM · ${ESC}1mq${ESC}0m quit`)
  const last = lab.transitions.at(-1)
  if (last)
    lines.push(
      `last: ${last.trigger} → ${last.coordinatorAfter ?? "?"} in ${last.durationMs ?? "?"} ms, ` +
        `${last.electionFrames} election frames, ${last.busFrames} bus frames`,
    )
  lines.push("events:")
  const room = Math.max(3, height - lines.length - 1)
  for (const entry of lab.log.slice(-room)) lines.push(`  ${(entry.at / 1000).toFixed(1).padStart(6)}s ${entry.text}`)
  return lines.map((l) => fitWidth(l, width))
}

/** "21.4/30.1": the program's heap after the last collection and its peak, KB; "-" for a host node. */
function heapCell(b: BoardState): string {
  if (b.heapPeak === null) return "-"
  return `${((b.heapLive ?? 0) / 1024).toFixed(1)}/${(b.heapPeak / 1024).toFixed(1)}`
}

/** The line cut to `width` visible characters (escape sequences kept, not counted). */
export function fitWidth(line: string, width: number): string {
  let out = ""
  let visible = 0
  for (let i = 0; i < line.length; i++) {
    const esc = /^\x1b\[[0-9;?]*[A-Za-z]/.exec(line.slice(i, i + 24))
    if (esc) {
      out += esc[0]
      i += esc[0].length - 1
    } else if (visible < width) {
      out += line[i]
      visible++
    }
  }
  return out
}

/** Runs the dashboard until q or Ctrl-C; resolves when the lab has stopped. */
export async function runDashboard(lab: Lab): Promise<void> {
  const ids = lab.options.ids
  let selected = ids[ids.length - 1]
  let busy = false
  const out = process.stdout
  const draw = () => {
    const slot = Math.floor(Date.now() / LED_SLOT_MS)
    const lines = renderDashboard(lab, selected, slot, out.columns || 100, out.rows || 30)
    out.write(`${ESC}H` + lines.map((l) => l + `${ESC}K`).join("\n") + `\n${ESC}J`)
  }
  out.write(`${ESC}?25l${ESC}2J`)
  const timer = setInterval(draw, LED_SLOT_MS)
  // counters, epoch and nonce from the boards' service registers, one read of them all at a time
  let reading = false
  const registers = setInterval(() => {
    if (reading) return
    reading = true
    void lab.readRegisters().finally(() => (reading = false))
  }, 1000)
  let finish: () => void = () => undefined
  const finished = new Promise<void>((resolve) => (finish = resolve))
  const quit = async () => {
    clearInterval(timer)
    clearInterval(registers)
    process.stdin.setRawMode?.(false)
    process.stdin.pause()
    out.write(`${ESC}?25h\n`)
    await lab.stop()
    finish()
  }
  const act = async (what: () => Promise<void>) => {
    if (busy) return
    busy = true
    try {
      await what()
    } catch (e) {
      lab.note(`error: ${(e as Error).message}`)
    } finally {
      busy = false
    }
  }
  process.stdin.setRawMode?.(true)
  process.stdin.resume()
  process.stdin.on("data", (data: Buffer) => {
    const key = data.toString()
    if (key === "q" || key === "\u0003") void quit()
    else if (key === "\x1b[A") selected = ids[Math.max(0, ids.indexOf(selected) - 1)]
    else if (key === "\x1b[B") selected = ids[Math.min(ids.length - 1, ids.indexOf(selected) + 1)]
    else if (/^[1-9]$/.test(key) && ids[Number(key) - 1] !== undefined) selected = ids[Number(key) - 1]
    else if (key === "c") {
      const b = lab.boards.get(selected)!
      void act(() => (b.role === Role.Crashed ? lab.recover(selected) : lab.crash(selected)))
    } else if (key === "k") void act(() => (lab.isPowered(selected) ? lab.kill(selected) : lab.restart(selected)))
    draw()
  })
  // kill, or the terminal closing (SIGHUP): stop the VMs and remove the build folder first
  for (const signal of ["SIGTERM", "SIGHUP"] as const) process.once(signal, () => void quit())
  draw()
  await finished
}
