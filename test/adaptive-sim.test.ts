// The adaptive failure detector in the simulator, under the bus and WiFi timing models with
// loss and delay spikes (seeded): no false suspicion at steady state, a detection bound well
// under the fixed timeout's, and agreement after failures.
import { describe, expect, test } from "vitest"
import type { Engine, NetworkModel } from "../src/core/engine"
import { type Frame, Kind } from "../src/core/frame"
import { Role, type Timing } from "../src/core/contract"
import type { NetworkName } from "../sim/config/input"
import { makeNetwork } from "../sim/simulator/networks"
import { Rng } from "../sim/simulator/rng"
import { Algorithm } from "../src/core/frame"
import { startEngine } from "./helpers"

const HEARTBEAT = 50
const FAILURE_TIMEOUT = 250

/** A network whose frames are, now and then, held up by a delay spike; and that can silence one node for a while. */
class Faulty implements NetworkModel {
  silenced: { node: number; from: number; to: number } | null = null
  constructor(
    private inner: NetworkModel,
    private rng: Rng,
    private spikeChance: number,
    private spikeMs: number,
  ) {}
  delay(src: number, dst: number, frame: Frame, now: number): number {
    const d = this.inner.delay(src, dst, frame, now)
    if (d < 0) return d
    const s = this.silenced
    if (s && src === s.node && now >= s.from && now < s.to) return -1
    return this.rng.next() < this.spikeChance ? d + this.rng.next() * this.spikeMs : d
  }
  frames(to: number[], frame: Frame): number {
    return this.inner.frames(to, frame)
  }
}

function timing(network: NetworkName, failureDetector: string): Timing {
  // T above a round trip: the bus's is a few ms, WiFi's up to 100 ms
  return network === "bus"
    ? { answerTimeout: 100, coordinatorTimeout: 200, heartbeatInterval: HEARTBEAT, failureTimeout: FAILURE_TIMEOUT, failureDetector }
    : { answerTimeout: 150, coordinatorTimeout: 300, heartbeatInterval: HEARTBEAT, failureTimeout: FAILURE_TIMEOUT, failureDetector }
}

interface Conditions {
  network: NetworkName
  detector: string
  seed: number
  loss: number
  spikeChance: number
  spikeMs: number
  algorithm?: Algorithm
}

function cluster(c: Conditions): { engine: Engine; net: Faulty } {
  const ids = [1, 2, 3, 4, 5]
  const net = new Faulty(makeNetwork(c.network, c.seed, { loss: c.loss }, ids.length), new Rng(c.seed * 31 + 7), c.spikeChance, c.spikeMs)
  const engine = startEngine(c.algorithm ?? Algorithm.ImprovedBully, ids, { timing: timing(c.network, c.detector), network: net })
  return { engine, net }
}

/** Every live process names `leader` and `leader` leads. */
function agreedOn(engine: Engine, leader: number): boolean {
  return engine.nodes.every(
    (n) => n.crashed || (n.coordinator === leader && n.role === (n.id === leader ? Role.Coordinator : Role.Follower)),
  )
}

/** Runs until every live process agrees on `leader`; the time it took, or -1 past `limit`. */
function timeToAgree(engine: Engine, leader: number, limit: number): number {
  const t0 = engine.now
  while (engine.now - t0 < limit) {
    if (agreedOn(engine, leader)) return engine.now - t0
    if (!engine.step()) break
  }
  return agreedOn(engine, leader) ? engine.now - t0 : -1
}

/** ELECTION messages sent since the last resetStats: each is a suspicion acted upon. */
const elections = (engine: Engine) => engine.traffic.byKind[Kind.ELECTION] + engine.traffic.byKind[Kind.COORDINATOR]

const NETWORKS: NetworkName[] = ["bus", "wifi"]
// The stated conditions: 1 % of messages lost, 1 % delayed by a spike of up to 60 ms.
const STEADY = { loss: 0.01, spikeChance: 0.01, spikeMs: 60 }
// what the detector learned by the end, seeds 1..5: 1 % loss asks for patience (on the bus
// 2 misses, 3·50 + 25, where the seed lost 0.8 %; 3 misses, 4·50 + 25, from 1 %); heartbeats
// are numbered, so a spike is jitter, not a loss, and widens the margin (seeds 1 and 4: 5σ of
// about 35 ms); over WiFi the jitter and spikes add to it, up to the ceiling
const LEARNED: Record<string, number[]> = { bus: [235, 175, 225, 235, 225], wifi: [250, 220, 225, 250, 250] }

describe("adaptive detector: no false suspicion at steady state", () => {
  for (const network of NETWORKS)
    test(`${network}: 5 processes, 10 minutes simulated, 1 % loss and 1 % delay spikes up to 60 ms, 5 seeds`, () => {
      const delays: number[] = []
      for (let seed = 1; seed <= 5; seed++) {
        const { engine } = cluster({ network, detector: "adaptive", seed, ...STEADY })
        engine.runUntil(600_000)
        expect({ seed, elections: elections(engine) }).toEqual({ seed, elections: 0 })
        expect(agreedOn(engine, 5)).toBe(true)
        // heartbeats flowed: 4 followers × 20 a second × 600 s (counted when sent)
        expect(engine.traffic.heartbeats).toBe(4 * 12000)
        delays.push(engine.node(1)!.suspicionDelay())
      }
      expect(delays.map(Math.round)).toEqual(LEARNED[network])
    })

  test("a pause of the coordinator shorter than the learned delay goes unnoticed; a longer one fails over once and 5 takes back over, without oscillation", () => {
    const { engine, net } = cluster({ network: "bus", detector: "adaptive", seed: 3, loss: 0, spikeChance: 0, spikeMs: 0 })
    // 40 s: 800 clean heartbeats, enough to tolerate a single miss only
    engine.runUntil(40_000)
    expect(engine.node(4)!.suspicionDelay()).toBe(125)
    // silent for 60 ms: one heartbeat missing
    net.silenced = { node: 5, from: 40_010, to: 40_070 }
    engine.runUntil(45_000)
    expect(elections(engine)).toBe(0)
    // silent for 200 ms (the fixed timeout would wait): 4 takes over, then 5 comes back
    net.silenced = { node: 5, from: 45_010, to: 45_210 }
    engine.runUntil(46_000)
    expect(elections(engine)).toBeGreaterThan(0)
    expect(agreedOn(engine, 5)).toBe(true)
    engine.resetStats()
    engine.runUntil(80_000)
    expect(elections(engine)).toBe(0)
    expect(agreedOn(engine, 5)).toBe(true)
  })
})

describe("adaptive detector: detection bound", () => {
  // From the crash (40 s in, at a random phase of the heartbeat) to agreement on 4. The learned delay on
  // the quiet bus is 125 ms after the last heartbeat (2 periods + 25), so agreement comes at
  // most 125 ms + the election (a few ms on the bus) after the crash; over WiFi the jitter
  // (20-50 ms a hop) widens it to 2·50 + 5σ with σ ≈ 12 ms, plus a 50 ms election.
  const bound: Record<string, number> = { bus: 135, wifi: 280 }
  for (const network of NETWORKS)
    test(`${network}: the coordinator crashed at 10 random phases; adaptive within ${bound[network]} ms, fixed slower every time`, () => {
      const rng = new Rng(99)
      for (let trial = 0; trial < 10; trial++) {
        const at = 40_000 + rng.next() * HEARTBEAT
        const times: Record<string, number> = {}
        for (const detector of ["adaptive", "fixed"]) {
          const { engine } = cluster({ network, detector, seed: trial + 1, loss: 0, spikeChance: 0, spikeMs: 0 })
          engine.runUntil(at)
          engine.crash(5)
          times[detector] = timeToAgree(engine, 4, 2000)
        }
        expect(times.adaptive).toBeGreaterThan(0)
        expect(times.adaptive).toBeLessThanOrEqual(bound[network])
        expect(times.fixed).toBeGreaterThan(times.adaptive)
      }
    })
})

describe("adaptive detector: agreement after failures", () => {
  for (const network of NETWORKS)
    for (const algorithm of [Algorithm.Bully, Algorithm.ImprovedBully])
      test(`${network}, ${algorithm === Algorithm.Bully ? "bully" : "improved-bully"}: crashes and recoveries under loss and spikes, always agreeing on the highest live process`, () => {
        const { engine } = cluster({ network, detector: "adaptive", seed: 7, algorithm, ...STEADY })
        engine.runUntil(10_000)
        const steps: [string, number, number][] = [
          ["crash", 5, 4],
          ["crash", 4, 3],
          ["recover", 5, 5],
          ["crash", 3, 5],
          ["recover", 4, 5],
          ["crash", 5, 4],
          ["recover", 3, 4],
          ["recover", 5, 5],
        ]
        for (const [what, id, leader] of steps) {
          if (what === "crash") engine.crash(id)
          else engine.recover(id)
          const took = timeToAgree(engine, leader, 5000)
          expect({ what, id, agreedOn: took >= 0 ? leader : null }).toEqual({ what, id, agreedOn: leader })
          // and, once the election's last messages are through, it stays so for 5 s
          engine.runUntil(engine.now + 1000)
          engine.resetStats()
          engine.runUntil(engine.now + 5000)
          expect({ what, id, elections: elections(engine), agreed: agreedOn(engine, leader) }).toEqual({ what, id, elections: 0, agreed: true })
        }
      })
})
