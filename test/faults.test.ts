// Fault models: seeded and deterministic, each doing exactly what it says.
import { describe, expect, test } from "vitest"
import { Engine, IdealNetwork } from "../src/core/engine"
import { Algorithm, Kind, makeFrame } from "../src/core/frame"
import { Role } from "../src/core/contract"
import { FaultyNetwork, noLinkFaults, parseLinkFaults, parsePartition } from "../sim/simulator/faults"
import { parseScenario, ScenarioRunner } from "../sim/simulator/scenario"
import { summarize } from "../src/core/summary"

const run = (text: string) => {
  const runner = new ScenarioRunner("test")
  const out = runner.run(parseScenario(text, "test")).flat()
  return { runner, out, engine: runner.engine! }
}
const frame = makeFrame(Kind.ELECTION, Algorithm.Bully, 1, 0, 1, 2)

describe("the fault layer", () => {
  test("with no fault active it is the inner model, draw for draw", () => {
    const net = new FaultyNetwork(new IdealNetwork(), 1)
    for (let t = 0; t < 100; t++) expect(net.delay(1, 2, frame, t)).toBe(1)
    expect(net.duplicateDelay(1, 2, frame, 100)).toBe(-1)
  })

  test("loss, duplication, reordering and spikes at their rates, the same for the same seed", () => {
    const sample = (seed: number) => {
      const net = new FaultyNetwork(new IdealNetwork(), seed)
      net.at({ time: 0, type: "links", faults: { ...noLinkFaults(), loss: 0.3, duplicate: 0.2, spike: 0.1, spikeDelay: 100, reorder: 4 } })
      const delays: number[] = []
      let dups = 0
      for (let i = 0; i < 20000; i++) {
        const d = net.delay(1, 2, frame, i)
        delays.push(d)
        if (d >= 0 && net.duplicateDelay(1, 2, frame, i) >= 0) dups++
      }
      return { delays, dups, spikes: net.spikes }
    }
    const a = sample(5)
    expect(sample(5)).toEqual(a)
    expect(sample(6).delays).not.toEqual(a.delays)
    const lost = a.delays.filter((d) => d < 0).length / a.delays.length
    expect(lost).toBeGreaterThan(0.28)
    expect(lost).toBeLessThan(0.32)
    const kept = a.delays.filter((d) => d >= 0)
    expect(a.dups / kept.length).toBeGreaterThan(0.18)
    expect(a.dups / kept.length).toBeLessThan(0.22)
    expect(Math.min(...kept)).toBeGreaterThanOrEqual(1)
    expect(kept.filter((d) => d > 5).length / kept.length).toBeGreaterThan(0.08) // spikes (50..150 more)
    expect(kept.filter((d) => d > 5).length / kept.length).toBeLessThan(0.12)
  })

  test("partitions cut both ways, a one-way cut one way, heal restores", () => {
    const net = new FaultyNetwork(new IdealNetwork(), 1)
    net.at({ time: 10, type: "partition", cuts: parsePartition("1,2|3", [1, 2, 3, 4], "x"), text: "" })
    net.at({ time: 20, type: "heal" })
    net.at({ time: 30, type: "partition", cuts: parsePartition("1->3", [1, 2, 3], "x"), text: "" })
    expect(net.delay(1, 3, frame, 5)).toBe(1)
    expect([net.delay(1, 3, frame, 10), net.delay(3, 1, frame, 10), net.delay(1, 2, frame, 10)]).toEqual([-1, -1, 1])
    // 4 was not named: it forms a group of its own
    expect([net.delay(4, 3, frame, 11), net.delay(4, 1, frame, 11)]).toEqual([-1, -1])
    expect(net.delay(1, 3, frame, 20)).toBe(1)
    expect([net.delay(1, 3, frame, 30), net.delay(3, 1, frame, 30)]).toEqual([-1, 1])
  })

  test("added delay keeps each link's order; a stretch multiplies the whole delay; on= limits faults to some processes' links", () => {
    const net = new FaultyNetwork(new IdealNetwork(), 3)
    net.at({ time: 0, type: "links", faults: { ...noLinkFaults(), delay: 50 } })
    // sent one time unit apart, each arrives no sooner than the one before it on its link
    let last = 0
    for (let t = 0; t < 200; t++) {
      const arrival = t + net.delay(1, 2, frame, t)
      expect(arrival).toBeGreaterThanOrEqual(last)
      expect(arrival).toBeLessThan(Math.max(last, t + 51) + 1e-9)
      last = arrival
    }
    net.at({ time: 1000, type: "links", faults: { ...noLinkFaults(), scale: 4 } })
    const stretched = Array.from({ length: 2000 }, (_, i) => net.delay(1, 2, frame, 1000 + i))
    expect(Math.min(...stretched)).toBeGreaterThanOrEqual(1)
    expect(Math.max(...stretched)).toBeLessThan(4)
    expect(Math.max(...stretched)).toBeGreaterThan(3.9)
    // faults on the links of 3 come on top of those for every link, and only there
    net.at({ time: 5000, type: "links", faults: { ...noLinkFaults(), on: [3], reorder: 100 } })
    const on3 = Array.from({ length: 500 }, (_, i) => net.delay(3, 1, frame, 5000 + i)).concat(
      Array.from({ length: 500 }, (_, i) => net.delay(2, 3, frame, 5500 + i)),
    )
    expect(Math.max(...on3)).toBeGreaterThan(100)
    const off3 = Array.from({ length: 500 }, (_, i) => net.delay(1, 2, frame, 6000 + i))
    expect(Math.max(...off3)).toBeLessThan(4)
    // `faults none` ends them all, those on 3 too
    net.at({ time: 7000, type: "links", faults: noLinkFaults() })
    expect([net.delay(3, 1, frame, 7000), net.delay(1, 2, frame, 7000)]).toEqual([1, 1])
    expect(parseLinkFaults(["on=3,4", "reorder=5"], "x", [1, 2, 3, 4])).toEqual({ ...noLinkFaults(), on: [3, 4], reorder: 5 })
    expect(() => parseLinkFaults(["on=9", "reorder=5"], "f:2", [1, 2, 3])).toThrow("f:2: on: process 9 is not in the cluster")
    expect(() => parseLinkFaults(["scale=0.5"], "f:2")).toThrow("scale: 0.5 is out of range")
  })

  test("bad fault commands name the problem", () => {
    expect(() => parseLinkFaults(["loss=2"], "f:3")).toThrow("f:3: loss: 2 is out of range 0..1")
    expect(() => parseLinkFaults(["spike=0.1"], "f:3")).toThrow("spike= needs spike-delay=")
    expect(() => parseLinkFaults(["jitter=1"], "f:3")).toThrow("unknown key 'jitter'")
    expect(() => parsePartition("1,2|2,3", [1, 2, 3], "f:4")).toThrow("f:4: process 2 is in two groups")
    expect(() => parsePartition("1,2,3", [1, 2, 3], "f:4")).toThrow("at least two groups")
    expect(() => parsePartition("1->9", [1, 2, 3], "f:4")).toThrow("process 9 is not in the cluster")
    expect(parseLinkFaults(["none"], "x")).toEqual(noLinkFaults())
  })
})

describe("faults in scenarios", () => {
  test("a frozen coordinator is replaced, then its late timers fire when it thaws and it takes over again", () => {
    const { out, engine } = run(`
cluster algorithm=bully ids=1..4 heartbeat=10 failure-timeout=25
freeze 4 for=100
run until=60
status
run until=300
status
summary`)
    expect(out).toContain("t=0 4 freezes for 100")
    expect(out).toContain("t=100 4 thaws")
    // heard nothing while frozen, not even the election it lost
    expect(out.some((l) => /4 is frozen: ELECTION from \d dropped/.test(l))).toBe(true)
    expect(out).toContain("3 coordinator, coordinator 3, epoch 1")
    // its heartbeat timer was due at 10 and fires at the thaw instead
    expect(out).toContain("t=100 4 timeout: heartbeat")
    expect(summarize(engine).violations).toEqual([])
    expect(summarize(engine).coordinator).toBe(4)
  })

  test("a partition splits the cluster into two coordinators; heal merges them", () => {
    const { out, engine } = run(`
cluster algorithm=bully ids=1..5 heartbeat=10 failure-timeout=25
partition 1,2|3,4,5
run until=200
status
heal
run until=400
summary`)
    expect(out).toContain("2 coordinator, coordinator 2, epoch 1")
    expect(out).toContain("5 coordinator, coordinator 5, epoch 0")
    expect(summarize(engine).violations).toEqual([])
    expect(engine.node(2)!.role).toBe(Role.Follower)
  })

  test("duplicates are delivered and charted; the same seed gives the same trace", () => {
    const text = `
cluster algorithm=ring ids=1..6 seed=9
faults duplicate=0.3 reorder=2
crash 6
detect 1
settle
summary`
    const a = run(text)
    expect(a.out.filter((l) => l.endsWith("duplicated")).length).toBeGreaterThan(0)
    expect(run(text).out).toEqual(a.out)
    expect(run(text.replace("seed=9", "seed=10")).out).not.toEqual(a.out)
  })

  test("at TIME takes fault commands; a storm crashes and recovers processes", () => {
    const { out, engine } = run(`
cluster algorithm=bully ids=1..5 seed=3 heartbeat=10 failure-timeout=25
at 50 faults loss=1
at 80 faults none
storm for=200 crashes=6 down=50
run until=1000
summary`)
    expect(out.filter((l) => / -> .* lost$/.test(l)).every((l) => {
      const t = Number(/^t=([\d.]+)/.exec(l)![1])
      return t >= 50 && t < 80
    })).toBe(true)
    expect(out.filter((l) => / crashes$/.test(l)).length).toBeGreaterThanOrEqual(3)
    expect(engine.nodes.every((n) => !n.crashed)).toBe(true)
    expect(summarize(engine).violations).toEqual([])
  })

  test("fault commands check their input", () => {
    expect(() => run("cluster algorithm=bully ids=1..3\nfreeze 3 for=abc")).toThrow("test:2: for: 'abc' is not a number")
    expect(() => run("cluster algorithm=bully ids=1..3\nfreeze 9 for=3")).toThrow("process 9 is not in the cluster")
    expect(() => run("cluster algorithm=bully ids=1..3\nat 5 heal now")).toThrow("heal takes no arguments")
    expect(() => run("cluster algorithm=bully ids=1..3\nstorm for=10")).toThrow("expected: storm for=DURATION crashes=N")
  })
})
