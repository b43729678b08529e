// Host side of authenticated frames: HMAC-SHA256 and random numbers from node:crypto, and
// the group key file (`electlab keygen`): 64 hex digits on one line.

import { createHmac, randomBytes } from "node:crypto"
import { readFileSync, writeFileSync } from "node:fs"
import { type MacFunction, parseKeyHex } from "../../src/core/auth"
import type { ByteSource } from "../../src/core/codec"
import { InputError } from "../config/input"

export function nodeMac(key: ByteSource): MacFunction {
  const keyBuffer = Buffer.from(Array.from(key))
  return (data: ByteSource, length: number) => createHmac("sha256", keyBuffer).update(Uint8Array.from({ length }, (_, i) => data[i])).digest()
}

export function nodeRandom32(): number {
  return randomBytes(4).readUInt32BE(0)
}

/** A fresh group key: 32 random bytes as 64 hex digits. */
export function newKeyHex(): string {
  return randomBytes(32).toString("hex")
}

/** The key in a key file; a clear error naming the file otherwise. */
export function readKeyFile(file: string, where: string): string {
  let text: string
  try {
    text = readFileSync(file, "utf8")
  } catch (e) {
    throw new InputError(`cannot read key file '${file}': ${(e as Error).message}`, where)
  }
  const line = text.split("\n").map((l) => l.trim()).find((l) => l.length > 0 && !l.startsWith("#")) ?? ""
  if (!parseKeyHex(line)) throw new InputError(`key file '${file}' does not hold 64 hex digits (make one with: electlab keygen)`, where)
  return line.toLowerCase()
}

/** Writes a new key file readable by its owner only; refuses to overwrite. */
export function writeKeyFile(file: string): string {
  const key = newKeyHex()
  try {
    writeFileSync(file, `# ElectLab group key: keep it secret, never commit it\n${key}\n`, { mode: 0o600, flag: "wx" })
  } catch (e) {
    const err = e as NodeJS.ErrnoException
    if (err.code === "EEXIST") throw new InputError(`'${file}' exists: remove it first to replace the key`, "keygen")
    throw new InputError(`cannot write '${file}': ${err.message}`, "keygen")
  }
  return key
}
