// The failure-detector option wherever a cluster is configured: manifest, settings,
// scenario `cluster` line, `electlab sim`, and the firmware's configuration check.
import { describe, expect, test } from "vitest"
import { simCommands } from "../sim/cli"
import { InputError } from "../sim/config/input"
import { checkManifest, manifestTiming } from "../sim/config/manifest"
import { parseScenario, ScenarioRunner } from "../sim/simulator/scenario"
import { boardSettings } from "../sim/project/settings"
import { configProblems } from "../src/firmware/config"
import { threeBoardConfig } from "./vm/vm-config"

const manifest = (timing: Record<string, unknown>) => ({
  group: 1,
  algorithm: "improved-bully",
  transport: "bus",
  timing,
  boards: [
    { name: "a", nodeId: 1 },
    { name: "b", nodeId: 2 },
  ],
})

describe("failure detector option", () => {
  test("manifest: adaptive reaches the core's timing and the board settings; an unknown name is refused", () => {
    const m = checkManifest(manifest({ failureDetector: "adaptive" }), "m.json")
    expect(manifestTiming(m).failureDetector).toBe("adaptive")
    expect(boardSettings(m, "a", "m.json").shared.FAIL_DETECTOR).toBe("adaptive")
    expect(() => checkManifest(manifest({ failureDetector: "phi" }), "m.json")).toThrow(
      "m.json: timing.failureDetector: must be equal to one of the allowed values (fixed, adaptive)",
    )
  })

  test("scenario: failure-detector=adaptive in the cluster line, in any order with network=", () => {
    const runner = new ScenarioRunner("s.txt")
    runner.run(parseScenario("cluster failure-detector=adaptive network=bus nodes=3 heartbeat=50 failure-timeout=250\n", "s.txt"))
    expect(runner.spec!.timing.failureDetector).toBe("adaptive")
    expect(runner.engine!.node(1)!.suspicionDelay()).toBe(250)
    expect(() => new ScenarioRunner("s.txt").run(parseScenario("cluster nodes=3 failure-detector=phi\n", "s.txt"))).toThrow(
      "s.txt:1: failure-detector: unknown failure detector 'phi'; known: fixed, adaptive",
    )
  })

  test("electlab sim: --failure-detector goes into the cluster line and needs --detector", () => {
    const base = { algorithm: "bully", topology: "complete", network: "bus", seed: "1", loss: "0", chart: true, nodes: "3" }
    const commands = simCommands({ ...base, detector: true, failureDetector: "adaptive" } as never)
    expect(commands[0].verb === "cluster" && commands[0].spec.timing.failureDetector).toBe("adaptive")
    expect(() => simCommands({ ...base, failureDetector: "adaptive" } as never)).toThrow(InputError)
    expect(() => simCommands({ ...base, detector: true, failureDetector: "x" } as never)).toThrow("unknown failure detector 'x'")
  })

  test("firmware: FAIL_DETECTOR must be fixed or adaptive", () => {
    const board = threeBoardConfig(1)
    const config = { ...board, timing: { ...board.timing, failureDetector: "adaptive" } }
    expect(configProblems(config)).toEqual([])
    expect(configProblems({ ...config, timing: { ...config.timing, failureDetector: "phi" } })).toEqual([
      "FAIL_DETECTOR must be fixed or adaptive",
    ])
  })
})
