// Room for the user's program. The DeviceScript VM refuses an image whose function code ends
// past 64 KB, though the compiler builds it (docs/devicescript.md). An image carries the one
// algorithm it runs; for each algorithm the largest lab image (12 boards over WiFi, a broker
// login each, a key, the adaptive detector; the firmware's program, and the example
// application with a 16 KB ballast) must leave USER_ROOM bytes of function code free, and
// no call of the election's own code may ask the heap for a block larger than
// MAX_CALL_FRAME: a call's locals are one block, and a board whose heap is in pieces has
// kilobytes free in blocks of a few hundred bytes (docs/image-size.md).
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, test } from "vitest"
import { ALGORITHMS } from "../src/core/algorithms"
import { MAX_NODES } from "../src/core/limits"
import { buildFirmwareImage, MAX_FUNCTION_CODE_END, removeFirmwareImage } from "../sim/lab/firmware-image"
import { censusOf, type DebugInfo } from "../sim/lab/image-size"

/** Bytes of function code the largest image of every algorithm leaves free (docs/image-size.md). */
const USER_ROOM = 16 * 1024
/** The largest heap block one call of the election's code may ask for. */
const MAX_CALL_FRAME = 208

const ids = Array.from({ length: MAX_NODES }, (_, i) => i + 1)
const timing = { answerTimeout: 200, coordinatorTimeout: 400, heartbeatInterval: 250, failureTimeout: 800, failureDetector: "adaptive" as const }
// as long as the lab's own (broker-access.ts): 24 hex digits each
const logins = ids.map((id) => ({ username: `node-${id}`, password: `${id}`.padEnd(24, "0") }))
const mqtt = { host: "127.0.0.1", port: 1883, prefix: "electlab", logins }
const authKey = "ab".repeat(32)
const programs = [
  ["the firmware's program", {}],
  ["the example application with a 16 KB ballast", { program: "examples/sensor-summary/src/main.ts", ballastKb: 16 }],
] as const

describe(`the largest images leave ${USER_ROOM} bytes of function code to the user, and no call of the election asks for more than ${MAX_CALL_FRAME} bytes of heap`, () => {
  test.each(ALGORITHMS.map((d) => [d.name, d.algorithm] as const))(`${MAX_NODES} boards over WiFi with logins and a key: %s`, async (name, algorithm) => {
    for (const [what, extra] of programs) {
      const image = await buildFirmwareImage({ algorithm, ids, group: 1, timing, mqtt, authKey, ...extra }, `size-${process.pid}`)
      try {
        const dbg = JSON.parse(readFileSync(join(image.folder, ".devicescript", "bin", "bytecode-dbg.json"), "utf8")) as DebugInfo
        const frames = censusOf(dbg, readFileSync(image.path), 10_000).callFrames.filter((f) => f.name.startsWith("src/"))
        console.log(`${name}, ${what}: code ends at ${image.codeEnd}, ${MAX_FUNCTION_CODE_END - image.codeEnd} bytes free; largest call frame ${frames[0].bytes} bytes (${frames[0].name})`)
        expect(MAX_FUNCTION_CODE_END - image.codeEnd, `${name}, ${what}`).toBeGreaterThanOrEqual(USER_ROOM)
        expect(frames.filter((f) => f.bytes > MAX_CALL_FRAME).map((f) => `${f.name}: ${f.bytes} bytes`), `${name}, ${what}`).toEqual([])
      } finally {
        removeFirmwareImage(image)
      }
    }
  }, 120_000)
})
