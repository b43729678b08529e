// Time to seal and to open one authenticated frame in the DeviceScript VM, outside test mode
// (test mode stresses the GC). `npx devs run test/vm/auth-bench.vm.ts`: prints one line, then idles.

import * as ds from "@devicescript/core"
import { FrameAuth, parseKeyHex } from "../../src/core/auth"
import { decodeFrame, encodeFrame } from "../../src/core/codec"
import { Algorithm, BROADCAST, Kind, makeFrame } from "../../src/core/frame"
import { boardMac, boardRandom32 } from "../../src/firmware/crypto"
import { VECTOR_KEY } from "./auth-vectors"

const key = parseKeyHex(VECTOR_KEY)
const a = new FrameAuth(3, 1, boardMac(key), boardRandom32)
const b = new FrameAuth(1, 1, boardMac(key), boardRandom32)
const frame = makeFrame(Kind.HEARTBEAT, Algorithm.ImprovedBully, 1, 5, 3, BROADCAST)
const plain = encodeFrame(frame).bytes
b.open(a.open(b.open(a.seal(plain, 0), 0).reply, 0).reply, 0)
const CHUNKS = 50
const PER_CHUNK = 20
let sealMs = 0
let openMs = 0
let plainMs = 0
let accepted = 0
for (let c = 0; c < CHUNKS; c++) {
    const sealed: Buffer[] = []
    let t0 = ds.millis()
    for (let i = 0; i < PER_CHUNK; i++) sealed.push(Buffer.from(a.seal(plain, c)))
    sealMs += ds.millis() - t0
    t0 = ds.millis()
    for (let i = 0; i < PER_CHUNK; i++) accepted += b.open(sealed[i], c).frames.length
    openMs += ds.millis() - t0
    t0 = ds.millis()
    for (let i = 0; i < PER_CHUNK; i++) decodeFrame(Buffer.from(encodeFrame(frame).bytes))
    plainMs += ds.millis() - t0
    await ds.sleep(1)
}
const n = CHUNKS * PER_CHUNK
console.log(
    "ELECTLAB-AUTH-TIME n=" + n + " accepted=" + accepted + " seal_us=" + Math.round((sealMs * 1000) / n) +
        " open_us=" + Math.round((openMs * 1000) / n) + " encode_decode_us=" + Math.round((plainMs * 1000) / n)
)
