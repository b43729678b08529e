// The attack catalogue in the virtual lab over the Jacdac bus (test/ci/attacks-lab-suite.ts),
// and the lab's slow motion with a key.
import { describe, expect, test } from "vitest"
import { AUTH_TRAILER_BYTES, CONTROL_CHALLENGE } from "../../src/core/auth"
import { CodecError, decodeFrame } from "../../src/core/codec"
import { Algorithm } from "../../src/core/frame"
import { isControl, type LabFrame } from "../../sim/attacks/lab-attacks"
import { sleep } from "../../sim/lab/lab"
import { catalogueSuite, HIGHEST, IDS, until } from "./attacks-lab-suite"

describe("the catalogue over the Jacdac bus, and the lab's slow motion", () => {
  const timing = { answerTimeout: 200, coordinatorTimeout: 400, heartbeatInterval: 250, failureTimeout: 800 }
  catalogueSuite("bus", { ids: IDS, algorithm: Algorithm.Bully, group: 1, timing }, (env) => {
    test("the web view's slow motion (retime) reboots every board with the lab's key: frames stay sealed", async () => {
      const { lab, wire } = env()
      const seen = { challenges: 0, sealed: 0, plain: 0 }
      wire.onFrame = (f: LabFrame) => {
        if (isControl(f, CONTROL_CHALLENGE)) seen.challenges++
        else if (decodeFrame(f.bytes).error === CodecError.None) seen.plain++
        else if (decodeFrame(f.bytes.subarray(0, f.bytes.length - AUTH_TRAILER_BYTES)).error === CodecError.None) seen.sealed++
      }
      await lab.retime({ ...timing, answerTimeout: 400, coordinatorTimeout: 800 })
      await lab.waitForAgreement(90_000)
      await sleep(2000)
      // each board's hello and its sealed frames, however late a busy host sends them
      await until(() => seen.challenges >= 3 && seen.sealed > 0)
      wire.onFrame = null
      // each board's hello at boot (only with a key), then sealed heartbeats and election frames
      expect(seen.challenges).toBeGreaterThanOrEqual(3)
      expect(seen.sealed).toBeGreaterThan(0)
      expect(seen.plain).toBe(0)
      expect(lab.coordinator()).toBe(HIGHEST)
    }, 180_000)
  })
})
