// Folders that hold the lab's secrets (the group key in the generated firmware source and
// bytecode, the host nodes' key file, the broker's password file): owner-only, and removed
// when the lab stops, when the process exits, and on Ctrl-C, kill or a closed terminal even
// when nothing else handles the signal.

import { chmodSync, mkdirSync, rmSync } from "node:fs"

const held = new Set<string>()
let installed = false
const SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP"] as const

function removeAll() {
  for (const dir of held) rmSync(dir, { recursive: true, force: true })
  held.clear()
}

function install() {
  if (installed) return
  installed = true
  process.on("exit", removeAll)
  for (const signal of SIGNALS) {
    const onSignal = () => {
      // another handler stops the lab and exits: the exit hook removes what is left
      if (process.listenerCount(signal) > 1) return
      removeAll()
      // nobody else handles it: die of the signal, as without this handler
      for (const s of SIGNALS) process.removeListener(s, handlers[s])
      process.kill(process.pid, signal)
    }
    handlers[signal] = onSignal
    process.on(signal, onSignal)
  }
}
const handlers: Record<string, () => void> = {}

/** Creates (or takes over) `dir` as owner-only (0700) and removes it at exit unless released first. */
export function holdSecretFolder(dir: string): string {
  install()
  mkdirSync(dir, { recursive: true, mode: 0o700 })
  chmodSync(dir, 0o700)
  held.add(dir)
  return dir
}

/** Removes a held folder now. */
export function removeSecretFolder(dir: string) {
  rmSync(dir, { recursive: true, force: true })
  held.delete(dir)
}

/** `text` with every secret replaced by a placeholder (error messages, logs). */
export function redact(text: string, secrets: (string | undefined | null)[]): string {
  let out = text
  for (const s of secrets) if (s) out = out.split(s).join("<secret>")
  return out
}
