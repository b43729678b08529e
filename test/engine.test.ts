import fc from "fast-check"
import { describe, expect, test } from "vitest"
import { Algorithm, Kind } from "../src/core/frame"
import { Role } from "../src/core/contract"
import { createCluster } from "../src/core/algorithms"
import { Engine, IdealNetwork } from "../src/core/engine"
import { idealTiming } from "../src/core/timing"
import { buildEngine } from "../sim/simulator/cluster"
import { defaultSpec } from "../sim/config/cluster-spec"
import { BusNetwork } from "../sim/simulator/networks"
import { range, runElection, startEngine } from "./helpers"
import { summarize } from "../src/core/summary"

const algorithms = [Algorithm.Bully, Algorithm.ImprovedBully]

describe("engine", () => {
  test("runs the cluster it is given, one node per process by id, and refuses one that does not match its ids", () => {
    const options = { algorithm: Algorithm.Echo, ids: [3, 1, 2], group: 1, timing: idealTiming(), network: new IdealNetwork() }
    const cluster = createCluster(options)
    expect(cluster.nodes.map((n) => n.id)).toEqual([1, 2, 3])
    expect(cluster.descriptor.name).toBe("echo")
    expect(new Engine(options, cluster).nodes).toEqual(cluster.nodes)
    expect(() => new Engine(options, createCluster({ ...options, ids: [1, 2] }))).toThrow("no node for process 3")
    expect(() => new Engine({ ...options, ids: [1, 2, 4] }, cluster)).toThrow("no node for process 4")
    expect(() => createCluster({ ...options, algorithm: 99 })).toThrow("no such algorithm: 99")
  })

  test("same inputs, same trace: the digest is stable and sensitive", () => {
    const a = runElection(Algorithm.Bully, range(0, 7), [7], [4]).digest
    const b = runElection(Algorithm.Bully, range(0, 7), [7], [4]).digest
    const c = runElection(Algorithm.Bully, range(0, 7), [7], [3]).digest
    expect(a).toBe(b)
    expect(a).not.toBe(c)
  })

  test("seeded lossy runs repeat exactly; another seed differs", () => {
    const run = (seed: number) => {
      const spec = { ...defaultSpec(), algorithm: Algorithm.Bully, ids: range(1, 12), seed, loss: 0.2, network: "wifi" as const }
      spec.timing = { answerTimeout: 300, coordinatorTimeout: 600, heartbeatInterval: 100, failureTimeout: 350 }
      const engine = buildEngine(spec)
      engine.crash(12)
      engine.runUntil(20_000)
      return engine.digest
    }
    expect(run(7)).toBe(run(7))
    expect(run(7)).not.toBe(run(8))
  })

  test("the failure detector: followers notice a crashed coordinator through missing heartbeats", () => {
    for (const algorithm of algorithms) {
      const engine = startEngine(algorithm, range(1, 6), { timing: { ...idealTiming(), heartbeatInterval: 10, failureTimeout: 25 } })
      engine.runUntil(50)
      expect(engine.traffic.heartbeats).toBe(5 * 5) // t=10..50, to 5 followers each
      engine.crash(6)
      engine.runUntil(200)
      const s = summarize(engine)
      expect(s.violations).toEqual([])
      expect(s.coordinator).toBe(5)
      // nothing happens before the timeout runs out after the last heartbeat (t=50)
      expect(engine.node(5)!.role).toBe(Role.Coordinator)
    }
  })

  test("a recovered former coordinator takes over again after detection and recovery", () => {
    for (const algorithm of algorithms) {
      const engine = startEngine(algorithm, range(1, 5))
      engine.crash(5)
      engine.detect(1)
      engine.settle(1e6)
      expect(summarize(engine).coordinator).toBe(4)
      engine.recover(5)
      engine.settle(1e6)
      const s = summarize(engine)
      expect(s.coordinator).toBe(5)
      expect(s.violations).toEqual([])
    }
  })

  test("scheduled events run at their time", () => {
    const engine = startEngine(Algorithm.Bully, range(1, 4))
    engine.scheduleCrash(10, 4)
    engine.scheduleDetect(12, 1)
    engine.runUntil(11)
    expect(engine.node(4)!.crashed).toBe(true)
    expect(engine.traffic.messages).toBe(0)
    engine.settle(1e6)
    expect(summarize(engine).coordinator).toBe(3)
    expect(summarize(engine).electionTime).toBe(5)
  })

  test("property: any crash set and any noticing processes elect the highest live process", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...algorithms),
        fc.integer({ min: 2, max: 24 }),
        fc.array(fc.boolean(), { minLength: 24, maxLength: 24 }),
        fc.array(fc.boolean(), { minLength: 24, maxLength: 24 }),
        (algorithm, n, down, notice) => {
          const ids = range(1, n)
          const crashed = ids.filter((id) => id === n || down[id - 1])
          const live = ids.filter((id) => !crashed.includes(id))
          fc.pre(live.length > 0)
          let detect = live.filter((id) => notice[id - 1])
          if (detect.length === 0) detect = [live[0]]
          const r = runElection(algorithm, ids, crashed, detect)
          expect(r.violations).toEqual([])
          expect(r.coordinator).toBe(Math.max(...live))
        },
      ),
      { numRuns: 300 },
    )
  })

  test("property: with recoveries interleaved, bully and improved bully still converge", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...algorithms),
        fc.integer({ min: 3, max: 12 }),
        fc.array(fc.tuple(fc.integer({ min: 0, max: 40 }), fc.integer({ min: 1, max: 12 }), fc.boolean()), { maxLength: 8 }),
        (algorithm, n, events) => {
          const engine = startEngine(algorithm, range(1, n), { timing: { ...idealTiming(), heartbeatInterval: 4, failureTimeout: 9 } })
          for (const [time, rawId, up] of events) {
            const id = ((rawId - 1) % n) + 1
            if (up) engine.scheduleRecover(time, id)
            else engine.scheduleCrash(time, id)
          }
          engine.runUntil(400)
          const s = summarize(engine)
          fc.pre(s.live.length > 0)
          expect(s.violations).toEqual([])
        },
      ),
      { numRuns: 200 },
    )
  })
})

describe("bus model", () => {
  test("a frame's air time follows 1 Mbit/s, 10 bits a byte, 16 header bytes and a 0.1 ms gap", () => {
    const frame = { kind: Kind.ELECTION, algorithm: 1, group: 1, epoch: 0, src: 1, dst: 2, initiator: 0, bid: 0, seq: 0, list: [] as number[] }
    // 21-byte frame → 24 bytes payload (padded to 4) + 16 header = 40 bytes = 400 µs, + 100 µs gap
    expect(BusNetwork.frameMs(frame)).toBeCloseTo(0.5, 6)
  })

  test("bully over the bus elects the same winner with the same messages as the ideal network", () => {
    const spec = { ...defaultSpec(), algorithm: Algorithm.Bully, ids: range(1, 10), network: "bus" as const }
    spec.timing = { answerTimeout: 300, coordinatorTimeout: 600, heartbeatInterval: 0, failureTimeout: 0 }
    const engine = buildEngine(spec)
    engine.crash(10)
    engine.detect(4)
    engine.settle(1e6)
    const s = summarize(engine)
    expect(s.coordinator).toBe(9)
    expect(s.messages).toBe(44)
    expect(s.electionTime).toBeGreaterThan(300)
    expect(s.electionTime).toBeLessThan(320)
  })
})
