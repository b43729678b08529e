// A cluster specification and the engine it builds.

import { createCluster } from "../src/core/algorithms"
import { Engine, type EngineOptions } from "../src/core/engine"
import { Algorithm } from "../src/core/frame"
import type { Timing } from "../src/core/contract"
import { idealTiming } from "../src/core/timing"
import type { NetworkName } from "./config/input"
import { makeNetwork } from "./networks"
import { FaultyNetwork } from "./faults"

export interface ClusterSpec {
  algorithm: number
  ids: number[]
  network: NetworkName
  seed: number
  group: number
  timing: Timing
  loss: number
  /** echo: graph neighbours aligned with `ids` (absent: complete graph), and the topology's name. */
  neighbors?: number[][]
  topology?: string
  /** bid-ring: suitability prefix of each process's bid, aligned with `ids` (absent: all 0). */
  suitability?: number[]
  /** More election messages than this is a storm (0: no budget). */
  messageBudget: number
  /** More events than this at one instant stops the run (0: the engine's default). */
  instantEvents: number
}

export function defaultSpec(): ClusterSpec {
  return {
    algorithm: Algorithm.Bully,
    ids: [],
    network: "ideal",
    seed: 1,
    group: 1,
    timing: idealTiming(),
    loss: 0,
    messageBudget: 0,
    instantEvents: 0,
  }
}

export function buildEngine(spec: ClusterSpec): Engine {
  const options: EngineOptions = {
    algorithm: spec.algorithm,
    ids: spec.ids,
    group: spec.group,
    timing: spec.timing,
    neighbors: spec.neighbors,
    suitability: spec.suitability,
    seed: spec.seed,
    network: new FaultyNetwork(makeNetwork(spec.network, spec.seed, { loss: spec.loss }, spec.ids.length), spec.seed),
  }
  const engine = new Engine(options, createCluster(options))
  engine.duplication = engine.network as FaultyNetwork
  engine.messageBudget = spec.messageBudget
  if (spec.instantEvents > 0) engine.maxEventsPerInstant = spec.instantEvents
  engine.start()
  return engine
}
