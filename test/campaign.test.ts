// The fault campaign: the CI run (300 seeds per algorithm and family, every cell must pass),
// and the campaign's own machinery: determinism, replay files, shrinking. The file spans the
// tiers (test/tiers.ts): a small campaign and the command in `npm test`, the CI run in CI.
import { spawnSync } from "node:child_process"
import { mkdtempSync, readFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect } from "vitest"
import { ALGORITHMS } from "../src/core/algorithms"
import { Algorithm } from "../src/core/frame"
import { formatCampaign, runCampaign } from "../sim/campaign/campaign"
import { MAX_NODES } from "../src/core/limits"
import { MAX_BOARDS } from "../src/firmware/bus-limits"
import { CAMPAIGN_FAMILIES, CAMPAIGN_TIMINGS, IN_FLIGHT_PER_N2, makePlan } from "../sim/campaign/plan"
import { failureMode, playPlan, runPlan, scenarioText, shrink } from "../sim/campaign/run"
import { parseScenario, ScenarioRunner } from "../sim/simulator/scenario"
import { mediumTest, slowTest, test } from "./tiers"

const CI_SEEDS = 300

describe("the firmware's largest cluster is one constant", () => {
  test("firmware (and so the lab and the manifest check), lab guide and campaign all stop at MAX_NODES", () => {
    expect(MAX_NODES).toBe(12)
    expect(MAX_BOARDS).toBe(MAX_NODES)
    expect(readFileSync(join(import.meta.dirname, "..", "docs", "lab-guide.md"), "utf8")).toContain(`3–${MAX_NODES} ESP32 boards`)
    const sizes = new Set<number>()
    for (let seed = 1; seed <= 300; seed++) sizes.add(makePlan(seed, Algorithm.Bully, "mixed").ids.length)
    expect(Math.min(...sizes)).toBe(3)
    expect(Math.max(...sizes)).toBe(MAX_NODES)
  })
})

describe("campaign machinery", () => {
  test("one seed decides one run: the same plan twice, another seed another plan", () => {
    const a = makePlan(42, Algorithm.Ring, "mixed")
    expect(makePlan(42, Algorithm.Ring, "mixed")).toEqual(a)
    expect(makePlan(43, Algorithm.Ring, "mixed")).not.toEqual(a)
    // every algorithm meets the same cluster and faults
    expect(makePlan(42, Algorithm.Bully, "mixed").faults).toEqual(a.faults)
    expect(runPlan(a)).toEqual(runPlan(makePlan(42, Algorithm.Ring, "mixed")))
  })

  test("the firmware's delivery: a plan with delivery shared says so in its cluster line, and its engine hands a broadcast to every process", () => {
    const plan = makePlan(42, Algorithm.Echo, "link-faults", "fixed", "shared")
    const text = scenarioText(plan, plan.faults, [])
    expect(text).toMatch(/^cluster .* delivery=shared/m)
    expect(text).toContain("--family link-faults --delivery shared\n")
    expect(scenarioText(makePlan(42, Algorithm.Echo, "link-faults"), plan.faults, [])).not.toContain("delivery=")
    const runner = new ScenarioRunner("s.txt", { quiet: true })
    runner.run(parseScenario("cluster algorithm=echo ids=1,2,3 delivery=shared\n", "s.txt"))
    expect(runner.engine!.options.sharedMedium).toBe(true)
    expect(() => new ScenarioRunner("s.txt", { quiet: true }).run(parseScenario("cluster algorithm=echo ids=1,2,3 delivery=all\n", "s.txt"))).toThrow(
      "unknown delivery 'all'; known: destinations, shared",
    )
  })

  mediumTest("the table does not depend on the number of workers", async () => {
    const algorithms = [Algorithm.Ring, Algorithm.BidRing]
    const families = ["link-faults", "partitions"] as const
    const one = await runCampaign(algorithms, [...families], 1, 30, 1)
    const two = await runCampaign(algorithms, [...families], 1, 30, 2)
    expect(two.workers).toBe(2)
    expect(two.cells).toEqual(one.cells)
    expect(one.runs).toBe(120)
  }, 60_000)

  test("the bus timing: a plan says it on its cluster line and in its replay flags; its faults scale with its failure timeout", () => {
    const wifi = makePlan(42, Algorithm.Bully, "crashes")
    const bus = makePlan(42, Algorithm.Bully, "crashes", "fixed", "destinations", "bus")
    expect(bus.cluster).toContain("answer-timeout=40 coordinator-timeout=100 heartbeat=50 failure-timeout=250")
    expect(wifi.cluster).toContain("answer-timeout=300 coordinator-timeout=600 heartbeat=250 failure-timeout=800")
    expect(bus.ids).toEqual(wifi.ids)
    // bully's bound at the bus timing, 1,030 ms, comes sooner than 10 failure timeouts
    expect([bus.faultEnd, bus.stableSince, bus.end]).toEqual([2500, 3530, 7500])
    expect(makePlan(42, Algorithm.Ring, "crashes", "fixed", "destinations", "bus").stableSince).toBe(5000)
    const times = (p: typeof bus) => p.faults.map((f) => Number(/^at ([\d.]+)/.exec(f)![1]))
    expect(Math.max(...times(bus))).toBeLessThanOrEqual(2500)
    expect(Math.max(...times(wifi))).toBeGreaterThan(2500)
    expect(scenarioText(bus, bus.faults, [])).toContain("--family crashes --timing bus\n")
    expect(scenarioText(wifi, wifi.faults, [])).not.toContain("--timing")
  })

  test("no fault starts after the faults' end (one that did would never end)", () => {
    for (const timing of ["wifi", "bus"] as const)
      for (const family of CAMPAIGN_FAMILIES)
        for (let seed = 1; seed <= 2000; seed++) {
          const plan = makePlan(seed, Algorithm.Bully, family, "fixed", "destinations", timing)
          for (const f of plan.faults) expect(Number(/^at ([\d.]+)/.exec(f)![1]), `${timing} ${family} ${seed}: ${f}`).toBeLessThanOrEqual(plan.faultEnd)
        }
  })

  test("the quiet phase starts once the last frame the faults delayed has landed", () => {
    // the first bus link-faults plans whose frames land well after the faults
    let found = 0
    for (let seed = 1; found < 3; seed++) {
      const plan = makePlan(seed, Algorithm.Bully, "link-faults", "fixed", "destinations", "bus")
      const r = runPlan(plan)
      const ft = CAMPAIGN_TIMINGS.bus.failureTimeout
      if (r.heldAfterFaults < 2 * ft) continue
      found++
      const quietAt = plan.faultEnd + r.heldAfterFaults
      // the network layer's figure: no frame is delivered after it, one lands at it
      const runner = new ScenarioRunner("held", { quiet: true })
      const lines = playPlan(plan, plan.faults, runner).commands
      expect(lines).toContain(`check stable-since=${quietAt + plan.stableSince - plan.faultEnd}`)
      expect(lines).toContain(`run until=${quietAt + 20 * ft}`)
      expect(Math.ceil(runner.faultLayer.heldUntil)).toBe(quietAt)
      const text = scenarioText(plan, plan.faults, r.violations)
      expect(text).toContain(`their last frame lands at t=${quietAt}`)
    }
  })

  test("a run written as a scenario file replays to the same verdict", () => {
    for (const [seed, algorithm, family, timing] of [
      [56, Algorithm.ActiveListRing, "coordinator-crash", "wifi"],
      [27, Algorithm.BidRing, "link-faults", "wifi"],
      [3, Algorithm.Bully, "mixed", "wifi"],
      [120, Algorithm.Bully, "link-faults", "bus"],
    ] as const) {
      const plan = makePlan(seed, algorithm, family, "fixed", "destinations", timing)
      const verdict = runPlan(plan)
      const text = scenarioText(plan, plan.faults, verdict.violations)
      const runner = new ScenarioRunner("written", { quiet: true })
      runner.run(parseScenario(text, "written"))
      expect(runner.lastCheck).toEqual(verdict.violations)
    }
  })

  test("shrinking keeps the failure and drops the faults that do not matter", () => {
    const plan = makePlan(7, Algorithm.Bully, "crashes")
    expect(runPlan(plan).pass).toBe(true)
    // a crash of the coordinator after the state had to be stable fails every algorithm
    const upAtEnd = (id: number) => !plan.faults.filter((f) => / (crash|recover) (\d+)$/.test(f) && f.endsWith(` ${id}`)).at(-1)?.includes(" crash ")
    const coordinator = Math.max(...plan.ids.filter(upAtEnd))
    const late = `at ${plan.stableSince + 1000} crash ${coordinator}`
    const failing = { ...plan, faults: [...plan.faults, late] }
    const verdict = runPlan(failing)
    expect(verdict.pass).toBe(false)
    expect(verdict.violations.some((v) => v.startsWith("the state changed at t="))).toBe(true)
    // what is left: the late crash, and the crash of 11 that made 8 the coordinator to crash
    const kept = ["at 3366.72 crash 11", late]
    expect(shrink(failing)).toEqual(kept)
    expect(failureMode(runPlan(failing, kept).violations)).toBe(failureMode(verdict.violations))
  })
})

describe("electlab campaign: the command", () => {
  const bin = join(import.meta.dirname, "..", "bin", "electlab.js")
  const electlab = (args: string[]) => spawnSync(process.execPath, [bin, ...args], { encoding: "utf8" })

  mediumTest("bad flags name the problem and exit 2", () => {
    const r = electlab(["campaign", "--families", "crashes,floods"])
    expect(r.status).toBe(2)
    expect(r.stderr).toContain("--families: unknown family 'floods'; known: coordinator-crash, false-suspicion")
    expect(electlab(["campaign", "--replay", "5"]).stderr).toContain("--replay needs --algorithm NAME and --family NAME")
    const timing = electlab(["campaign", "--timing", "lora"])
    expect(timing.status).toBe(2)
    expect(timing.stderr).toContain("--timing: unknown timing 'lora'; known: wifi, bus")
  })

  mediumTest("--replay prints the schedule and the chart; --write makes a file sim replays to the same verdict", () => {
    const args = ["campaign", "--replay", "7", "--algorithm", "bully", "--family", "crashes"]
    const r = electlab(args)
    const plan = makePlan(7, Algorithm.Bully, "crashes")
    expect(r.status).toBe(runPlan(plan).pass ? 0 : 3)
    expect(r.stdout).toContain(`> ${plan.cluster}`)
    for (const f of plan.faults) expect(r.stdout).toContain(`> ${f}`)
    expect(r.stdout).toMatch(/\nt=\d+(\.\d+)? \d+ crashes\n/)
    expect(r.stdout).toContain("check: ok")
    const file = join(mkdtempSync(join(tmpdir(), "electlab-")), "run.txt")
    expect(electlab([...args, "--write", file]).stdout).toContain(`wrote ${file}: ${plan.faults.length} of ${plan.faults.length} faults; passes`)
    expect(readFileSync(file, "utf8")).toContain(plan.faults.join("\n"))
    const sim = electlab(["sim", "--scenario", file])
    expect(sim.status).toBe(0)
    expect(sim.stdout).toContain("check: ok")
  })
})

describe(`CI campaign: ${CI_SEEDS} seeds per algorithm and family`, () => {
  slowTest("every algorithm converges under every fault family", async () => {
    const report = await runCampaign(ALGORITHMS.map((d) => d.algorithm), [...CAMPAIGN_FAMILIES], 1, CI_SEEDS)
    const table = formatCampaign(report)
    console.log(table)
    expect(report.runs).toBe(ALGORITHMS.length * CAMPAIGN_FAMILIES.length * CI_SEEDS)
    const failing = report.cells.filter((c) => c.passed !== c.runs).map((c) => `${c.algorithm} × ${c.family}`)
    expect(failing, table).toEqual([])
  }, 600_000)

  slowTest("with the adaptive failure detector too (100 seeds per cell)", async () => {
    const report = await runCampaign(ALGORITHMS.map((d) => d.algorithm), [...CAMPAIGN_FAMILIES], 1, 100, undefined, "adaptive")
    const table = formatCampaign(report)
    expect(report.runs).toBe(ALGORITHMS.length * CAMPAIGN_FAMILIES.length * 100)
    const failing = report.cells.filter((c) => c.passed !== c.runs).map((c) => `${c.algorithm} × ${c.family}`)
    expect(failing, table).toEqual([])
  }, 600_000)

  for (const [detector, seeds] of [["fixed", CI_SEEDS], ["adaptive", 100]] as const)
    slowTest(`at the bus timing, the ${detector} detector (${seeds} seeds per cell)`, async () => {
      const report = await runCampaign(ALGORITHMS.map((d) => d.algorithm), [...CAMPAIGN_FAMILIES], 1, seeds, undefined, detector, "destinations", "bus")
      const table = formatCampaign(report)
      console.log(table)
      expect(report.timing).toBe("bus")
      const failing = report.cells.filter((c) => c.passed !== c.runs).map((c) => `${c.algorithm} × ${c.family}`)
      expect(failing, table).toEqual([])
    }, 600_000)

  test("the adaptive detector's plans name it on the cluster line (and only it changes)", () => {
    const fixed = makePlan(7, ALGORITHMS[0].algorithm, "mixed")
    const adaptive = makePlan(7, ALGORITHMS[0].algorithm, "mixed", "adaptive")
    expect(adaptive.cluster).toContain("failure-detector=adaptive")
    expect(fixed.cluster).not.toContain("failure-detector")
    expect(adaptive.faults).toEqual(fixed.faults)
  })
})
