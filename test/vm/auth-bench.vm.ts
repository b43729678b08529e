// Time to seal and to open one authenticated frame in the DeviceScript VM, outside test mode
// (test mode stresses the GC). Run by `npm run bench:auth-vm` (test/vm/run-auth-bench.js),
// which also time-stamps the markers below on the host.
//
// ds.millis() does not move inside one synchronous run (the VM reads the clock between
// steps), so each batch is timed across a yield: t0, the batch, a 1 ms sleep, t1. The same
// with an empty batch gives the cost of the yield and the loop, which is subtracted.

import * as ds from "@devicescript/core"
import { FrameAuth, parseKeyHex, sealCopy } from "../../src/core/auth"
import { decodeFrame, encodeFrame } from "../../src/core/codec"
import { Algorithm, BROADCAST, Kind, makeFrame } from "../../src/core/frame"
import { boardMac, boardRandom32 } from "../../src/firmware/crypto"
import { VECTOR_KEY } from "./auth-vectors"

/** Control frames as the driver makes them on a board. */
const boardBytes = (n: number) => Buffer.alloc(n)

const key = parseKeyHex(VECTOR_KEY)
const a = new FrameAuth(3, 1, boardMac(key), boardRandom32, boardBytes)
const b = new FrameAuth(1, 1, boardMac(key), boardRandom32, boardBytes)
const frame = makeFrame(Kind.HEARTBEAT, Algorithm.ImprovedBully, 1, 5, 3, BROADCAST)
const plain = encodeFrame(frame).bytes
b.open(a.open(b.open(sealCopy(a, plain, 0), 0).reply, 0).reply, 0)
/** Frames per batch: few, as a synchronous run of 100 opens trips the VM's InfiniteLoop watchdog even outside test mode. */
const PER_BATCH = 10
const BATCHES = 200
let emptyMs = 0
let sealMs = 0
let openMs = 0
let plainMs = 0
let accepted = 0
let sink = 0
await ds.sleep(100)
console.log("ELECTLAB-BENCH-MARK start")
for (let c = 0; c < BATCHES; c++) {
    let t0 = ds.millis()
    for (let i = 0; i < PER_BATCH; i++) sink += i
    await ds.sleep(1)
    emptyMs += ds.millis() - t0

    const sealed: Buffer[] = []
    t0 = ds.millis()
    // one millisecond of sender clock per frame: the counter may not run far ahead of the clock
    for (let i = 0; i < PER_BATCH; i++) sealed.push(Buffer.from(sealCopy(a, plain, c * PER_BATCH)))
    await ds.sleep(1)
    sealMs += ds.millis() - t0

    t0 = ds.millis()
    for (let i = 0; i < PER_BATCH; i++) accepted += b.open(sealed[i], c * PER_BATCH).frames.length
    await ds.sleep(1)
    openMs += ds.millis() - t0

    t0 = ds.millis()
    for (let i = 0; i < PER_BATCH; i++) sink += decodeFrame(Buffer.from(encodeFrame(frame).bytes)).error
    await ds.sleep(1)
    plainMs += ds.millis() - t0
}
console.log("ELECTLAB-BENCH-MARK end")
const n = BATCHES * PER_BATCH
const perFrameUs = (ms: number) => Math.round(((ms - emptyMs) * 1000) / n)
console.log(
    "ELECTLAB-AUTH-TIME n=" + n + " accepted=" + accepted + " seal_us=" + perFrameUs(sealMs) + " open_us=" + perFrameUs(openMs) +
        " encode_decode_us=" + perFrameUs(plainMs) + " yield_ms=" + Math.round(emptyMs / BATCHES) + " sink=" + sink
)
