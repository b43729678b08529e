import { join } from "node:path"
import { describe, expect, test } from "vitest"
import { simCommands } from "../sim/cli"
import { defaultSpec } from "../sim/config/cluster-spec"
import { checkManifest, manifestTiming, readManifest } from "../sim/config/manifest"
import { parseAlgorithm } from "../src/core/algorithms"

const root = join(import.meta.dirname, "..")
const good = () => ({
  group: 1,
  algorithm: "bully",
  transport: "bus",
  boards: [
    { name: "a", nodeId: 1, deviceId: "0123456789abcdef" },
    { name: "b", nodeId: 2 },
  ],
})

describe("lab manifest", () => {
  test("the repository's devicescript.json is valid: five boards, ids 1..5", () => {
    const m = readManifest(join(root, "devicescript.json"))
    expect(m.boards.map((b) => b.nodeId)).toEqual([1, 2, 3, 4, 5])
    expect(manifestTiming(m).failureTimeout).toBeGreaterThan(manifestTiming(m).heartbeatInterval)
  })

  test("missing timing takes the documented defaults", () => {
    expect(checkManifest(good(), "m.json").timing).toEqual({
      heartbeatMs: 250,
      failureTimeoutMs: 800,
      answerTimeoutMs: 200,
      coordinatorTimeoutMs: 400,
      failureDetector: "fixed",
    })
  })

  const bad: [string, (m: ReturnType<typeof good>) => unknown, string][] = [
    ["group out of range", (m) => ({ ...m, group: 256 }), "m.json: group: must be <= 255"],
    ["unknown algorithm", (m) => ({ ...m, algorithm: "raft" }), "algorithm: must be equal to one of the allowed values (bully,"],
    ["unknown transport", (m) => ({ ...m, transport: "lora" }), "transport: must be equal to one of the allowed values (bus, mqtt)"],
    ["unknown key", (m) => ({ ...m, colour: "red" }), "(top): must NOT have additional properties 'colour'"],
    ["one board only", (m) => ({ ...m, boards: [m.boards[0]] }), "boards: must NOT have fewer than 2 items"],
    ["node id not an integer", (m) => ({ ...m, boards: [m.boards[0], { name: "b", nodeId: 2.5 }] }), "boards.1.nodeId: must be integer"],
    ["node id 65535", (m) => ({ ...m, boards: [m.boards[0], { name: "b", nodeId: 65535 }] }), "boards.1.nodeId: must be <= 65534"],
    ["bad device id", (m) => ({ ...m, boards: [m.boards[0], { name: "b", nodeId: 2, deviceId: "xyz" }] }), "boards.1.deviceId: must match pattern"],
    ["duplicate node id", (m) => ({ ...m, boards: [m.boards[0], { name: "b", nodeId: 1 }] }), "boards.1.nodeId: duplicate node id 1 (also boards.0)"],
    ["duplicate device id", (m) => ({ ...m, boards: [m.boards[0], { name: "b", nodeId: 2, deviceId: "0123456789ABCDEF" }] }), "boards.1.deviceId: duplicate device id"],
    ["failure timeout not above heartbeat", (m) => ({ ...m, timing: { heartbeatMs: 500, failureTimeoutMs: 400 } }), "timing.failureTimeoutMs must be longer than timing.heartbeatMs"],
    ["T' not above T", (m) => ({ ...m, timing: { answerTimeoutMs: 500, coordinatorTimeoutMs: 500 } }), "timing.coordinatorTimeoutMs must be longer than timing.answerTimeoutMs"],
    ["mqtt without a broker", (m) => ({ ...m, transport: "mqtt" }), "transport mqtt needs an mqtt section"],
    ["a broker that is not a URL", (m) => ({ ...m, mqtt: { broker: "localhost" } }), "mqtt.broker: must match pattern"],
  ]
  for (const [name, mutate, message] of bad)
    test(`rejects ${name}`, () => {
      expect(() => checkManifest(mutate(good()), "m.json")).toThrow(message)
    })

  test("an unreadable or non-JSON file names itself", () => {
    expect(() => readManifest("/nonexistent/devicescript.json")).toThrow("/nonexistent/devicescript.json: cannot read the manifest")
    expect(() => readManifest(join(root, ".gitignore"))).toThrow(/\.gitignore: not valid JSON/)
  })

  test("sim --manifest takes ids, algorithm and group from the file", () => {
    const commands = simCommands({
      chart: true,
      manifest: join(root, "devicescript.json"),
      crash: "5",
      detect: "1",
    })
    expect(commands[0]).toEqual({
      verb: "cluster",
      // the manifest gives the algorithm and the ids; the rest is the simulator's default
      spec: { ...defaultSpec(), algorithm: parseAlgorithm("improved-bully"), ids: [1, 2, 3, 4, 5] },
    })
  })
})
