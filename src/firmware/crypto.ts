// The board's crypto for authenticated frames: HMAC-SHA256 and random numbers from
// @devicescript/crypto (the runtime's native SHA-256 and hardware RNG).

import { hmac, randomBuffer } from "@devicescript/crypto"
import { MacFunction } from "../core/auth"

export function boardMac(key: number[]): MacFunction {
    const keyBuffer = Buffer.from(key)
    return (data: number[]) => hmac(keyBuffer, "sha256", Buffer.from(data))
}

export function boardRandom32(): number {
    const b = randomBuffer(4)
    return ((b[0] * 256 + b[1]) * 256 + b[2]) * 256 + b[3]
}
