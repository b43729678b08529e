// The DeviceScript VM refuses an image whose function code ends past 64 KB, though the
// compiler builds it (docs/devicescript.md). The largest lab images (12 boards over WiFi, a
// broker login each, a key, the adaptive detector; the firmware's own program and the example
// application with a 16 KB ballast) must stay below it with a margin: a change that eats the
// margin fails here, not in a 12-board lab run.
import { describe, expect, test } from "vitest"
import { Algorithm } from "../src/core/frame"
import { MAX_NODES } from "../src/core/limits"
import { buildFirmwareImage, MAX_FUNCTION_CODE_END, removeFirmwareImage } from "../sim/lab/firmware-image"

/** Bytes of code the largest images must leave free. */
const MARGIN = 128

const ids = Array.from({ length: MAX_NODES }, (_, i) => i + 1)
const timing = { answerTimeout: 200, coordinatorTimeout: 400, heartbeatInterval: 250, failureTimeout: 800, failureDetector: "adaptive" as const }
// as long as the lab's own (broker-access.ts): 24 hex digits each
const logins = ids.map((id) => ({ username: `node-${id}`, password: `${id}`.padEnd(24, "0") }))
const mqtt = { host: "127.0.0.1", port: 1883, prefix: "electlab", logins }
const authKey = "ab".repeat(32)

describe("the largest lab images fit the VM's code limit", () => {
  test.each([
    ["the firmware's program", {}],
    ["the example application with a 16 KB ballast", { program: "examples/sensor-summary/main.ts", ballastKb: 16 }],
  ] as const)(`${MAX_NODES} boards over WiFi with logins and a key: %s`, async (_, extra) => {
    const image = await buildFirmwareImage({ algorithm: Algorithm.ImprovedBully, ids, group: 1, timing, mqtt, authKey, ...extra }, `size-${process.pid}`)
    try {
      console.log(`code ends at ${image.codeEnd}: ${MAX_FUNCTION_CODE_END - image.codeEnd} bytes free`)
      expect(image.codeEnd).toBeLessThanOrEqual(MAX_FUNCTION_CODE_END - MARGIN)
    } finally {
      removeFirmwareImage(image)
    }
  }, 120_000)
})
