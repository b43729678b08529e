// A depth-first search's checkpoint: the keys it visited and the paths still open, so that a
// stopped search (a limit, Ctrl-C, the machine) goes on where it was and ends where an
// uninterrupted one does. Each thread's path is taken at the top of its loop, where every
// state it put in the table is either expanded or on its path: a resumed search replays each
// path from the root and tries every successor of every state on it again (those visited
// are skipped by their keys), so no state in the table is left with a successor untried.
//
// File: a text line, the head as one line of JSON, then the keys as pairs of 32-bit words
// (little-endian), written to FILE.tmp and renamed over FILE.

import { closeSync, existsSync, mkdirSync, openSync, readSync, renameSync, writeSync } from "node:fs"
import { dirname } from "node:path"
import type { ExploreOptions } from "./explore"
import { FingerprintTable } from "./key"
import type { Event } from "./model"

const MAGIC = "electlab check checkpoint 1\n"

export interface CheckpointHead {
  /** The search it belongs to (searchIdentity). */
  search: string
  states: number
  transitions: number
  depth: number
  /** Seconds searched before, over every run. */
  seconds: number
  /** Limits met that prune without stopping (the epoch cap), and inexact keys. */
  limits: string[]
  inexact: number
  /** The open paths, as events from the root. */
  paths: Event[][]
}

/** What must match for a checkpoint to go on (the state limit may be raised). */
export function searchIdentity(o: ExploreOptions): string {
  const { algorithm, nodes, timing, crashes, recoveries, losses, duplicates, detection, tokens } = o
  const { properties, maxEpoch, continuationSteps, reduce, instants } = o
  return JSON.stringify({ algorithm, nodes, timing, crashes, recoveries, losses, duplicates, detection, tokens, properties, maxEpoch, continuationSteps, reduce, instants })
}

const CHUNK = 1 << 20 // keys a write or read

export function writeCheckpoint(file: string, head: CheckpointHead, table: FingerprintTable) {
  mkdirSync(dirname(file), { recursive: true })
  const tmp = file + ".tmp"
  const fd = openSync(tmp, "w")
  try {
    writeSync(fd, MAGIC + JSON.stringify(head) + "\n")
    const words = new Int32Array(2 * CHUNK)
    let n = 0
    const flush = () => {
      if (n > 0) writeSync(fd, new Uint8Array(words.buffer, 0, 8 * n))
      n = 0
    }
    for (const w of table.segments)
      for (let i = 0; i < w.length; i += 2) {
        if (w[i] === 0) continue
        words[2 * n] = w[i]
        words[2 * n + 1] = w[i + 1]
        if (++n === CHUNK) flush()
      }
    flush()
  } finally {
    closeSync(fd)
  }
  renameSync(tmp, file)
}

/** The head and the keys, in a table of room for them (more when `slots` asks). */
export function readCheckpoint(file: string, budget: number): { head: CheckpointHead; table: FingerprintTable } {
  if (!existsSync(file)) throw new Error(`no checkpoint at ${file}`)
  const fd = openSync(file, "r")
  try {
    // the head: up to the second newline
    let text = ""
    let offset = 0
    const buf = Buffer.alloc(1 << 16)
    let newlines = -1
    while (newlines < 0) {
      const got = readSync(fd, buf, 0, buf.length, offset)
      if (got === 0) throw new Error(`${file}: not a checkpoint (no head)`)
      const part = buf.subarray(0, got).toString("latin1")
      const first = (text + part).indexOf("\n")
      const second = first < 0 ? -1 : (text + part).indexOf("\n", first + 1)
      if (second >= 0) newlines = second
      text += part
      offset += got
    }
    if (!text.startsWith(MAGIC)) throw new Error(`${file}: not a checkpoint of electlab check`)
    const head = JSON.parse(Buffer.from(text.slice(MAGIC.length, newlines), "latin1").toString("utf8")) as CheckpointHead
    let at = Buffer.byteLength(text.slice(0, newlines + 1), "latin1")
    // half full: room to go on before the segments grow
    const table = FingerprintTable.create(2 * head.states)
    const words = new Int32Array(2 * CHUNK)
    const bytes = new Uint8Array(words.buffer)
    let keys = 0
    for (;;) {
      const got = readSync(fd, bytes, 0, bytes.length, at)
      if (got === 0) break
      if (got % 8 !== 0) throw new Error(`${file}: cut short`)
      at += got
      for (let k = 0; k < got / 4; k += 2) if (table.add(words[k], words[k + 1]) > 0) table.relieve(budget)
      keys += got / 8
    }
    if (keys !== head.states || table.size() !== head.states) throw new Error(`${file}: ${keys} keys for ${head.states} states`)
    return { head, table }
  } finally {
    closeSync(fd)
  }
}
