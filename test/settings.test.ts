import { join } from "node:path"
import { describe, expect, test } from "vitest"
import { readManifest } from "../sim/config/manifest"
import { existsSync, readFileSync } from "node:fs"
import { ALGORITHMS } from "../src/core/algorithms"
import { descriptorImport } from "../sim/lab/firmware-image"
import { boardSettings, bundleCommand, envText, previewText } from "../sim/project/settings"

const manifest = readManifest(join(import.meta.dirname, "..", "devicescript.json"))

describe("electlab settings", () => {
  test("a C3 SuperMini gets its node id, the BOOT pin 9 and the shared lab values", () => {
    const s = boardSettings(manifest, "c3-supermini-b", "m")
    expect(s.board).toEqual({ NODE_ID: "4", BUTTON_PIN: "9", SUITABILITY: "0" })
    expect(s.shared).toEqual({
      NODE_IDS: "1,2,3,4,5",
      ALGORITHM: "improved-bully",
      GROUP: "1",
      HEARTBEAT_MS: "250",
      FAIL_MS: "800",
      ANSWER_MS: "200",
      COORD_MS: "400",
      FAIL_DETECTOR: "fixed",
      TRANSPORT: "bus",
    })
    // DeviceScript settings keys are at most 13 characters
    for (const key of [...Object.keys(s.shared), ...Object.keys(s.board)]) expect(key.length).toBeLessThanOrEqual(13)
  })

  test("the ESP32 and ESP32-S3 boards use GPIO0", () => {
    expect(boardSettings(manifest, "devkitc-a", "m").board.BUTTON_PIN).toBe("0")
    expect(boardSettings(manifest, "s3-devkitm-a", "m").board.BUTTON_PIN).toBe("0")
  })

  test("an unknown board name is refused with the list of names", () => {
    expect(() => boardSettings(manifest, "nope", "devicescript.json")).toThrow(
      "devicescript.json: no board 'nope' in the manifest; boards: c3-supermini-a, devkitc-a",
    )
  })

  test("a WiFi lab adds the broker's address", () => {
    const wifi = { ...manifest, transport: "mqtt" as const, mqtt: { broker: "mqtt://192.168.4.2:1884", topicPrefix: "lab7" } }
    expect(boardSettings(wifi, "devkitc-a", "m").shared).toMatchObject({
      TRANSPORT: "mqtt",
      MQTT_HOST: "192.168.4.2",
      MQTT_PORT: "1884",
      MQTT_PREFIX: "lab7",
    })
  })

  test("the preview names each secret and where it comes from, never its value", () => {
    const s = boardSettings(manifest, "c3-supermini-b", "m")
    s.board.AUTH_KEY = "ab".repeat(32)
    s.board.MQTT_PASS = "hunter2"
    const text = previewText(s, "lab.key")
    expect(text).not.toContain("ab".repeat(32))
    expect(text).not.toContain("hunter2")
    expect(text.split("# .env.local\n")[1]).toBe(
      "NODE_ID=4\nBUTTON_PIN=9\nSUITABILITY=0\n" +
        "# AUTH_KEY: the group key from lab.key, not shown; --write puts it in .env.local (mode 0600)\n" +
        "# MQTT_PASS: a secret, not shown; --write puts it in .env.local (mode 0600)\n",
    )
  })

  test("env text", () => {
    expect(envText({ A: "1", B: "x" }, "h")).toBe("# h\nA=1\nB=x\n")
  })

  test("each algorithm has a board image of its own, which imports that algorithm's module alone", () => {
    for (const d of ALGORITHMS) {
      const command = bundleCommand({ ...manifest, algorithm: d.name }, "c3-supermini-b")
      expect(command).toBe(`npx devs bundle src/images/${d.name}.ts --board electlab_esp32c3_supermini`)
      const entry = join(import.meta.dirname, "..", "src", "images", `${d.name}.ts`)
      expect(existsSync(entry)).toBe(true)
      const text = readFileSync(entry, "utf8")
      const { module, name } = descriptorImport(d.algorithm)
      expect(text).toContain(`import { ${name} } from "../core/${d.name}"`)
      expect(module).toBe(`src/core/${d.name}`)
      for (const other of ALGORITHMS.filter((o) => o !== d)) expect(text).not.toContain(`core/${other.name}"`)
    }
  })
})
