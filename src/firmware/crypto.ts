// The board's crypto for authenticated frames: HMAC-SHA256 and random numbers from
// @devicescript/crypto (the runtime's native SHA-256 and hardware RNG).

import { hmac, randomBuffer } from "@devicescript/crypto"
import { MacFunction } from "../core/auth"
import { ByteSource } from "../core/codec"

export function boardMac(key: ByteSource): MacFunction {
    const keyBuffer = Buffer.from(key as number[])
    return (data: ByteSource, length: number) => {
        // a received frame is a Buffer already: its prefix, not a copy of every byte as a number
        const bytes = data instanceof Buffer ? data : Buffer.from(data as number[])
        return hmac(keyBuffer, "sha256", length === bytes.length ? bytes : bytes.slice(0, length))
    }
}

export function boardRandom32(): number {
    const b = randomBuffer(4)
    return ((b[0] * 256 + b[1]) * 256 + b[2]) * 256 + b[3]
}
