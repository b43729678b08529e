// The engine a cluster specification (sim/config/cluster-spec.ts) builds.

import { createCluster } from "../../src/core/algorithms"
import { Engine, type EngineOptions } from "../../src/core/engine"
import type { ClusterSpec } from "../config/cluster-spec"
import { makeNetwork } from "./networks"
import { FaultyNetwork } from "./faults"

export function buildEngine(spec: ClusterSpec): Engine {
  const options: EngineOptions = {
    algorithm: spec.algorithm,
    ids: spec.ids,
    group: spec.group,
    timing: spec.timing,
    neighbors: spec.neighbors,
    suitability: spec.suitability,
    seed: spec.seed,
    sharedMedium: spec.sharedMedium,
    network: new FaultyNetwork(makeNetwork(spec.network, spec.seed, { loss: spec.loss }, spec.ids.length), spec.seed),
  }
  const engine = new Engine(options, createCluster(options))
  engine.duplication = engine.network as FaultyNetwork
  engine.messageBudget = spec.messageBudget
  engine.inFlightBudget = spec.inFlightBudget
  if (spec.instantEvents > 0) engine.maxEventsPerInstant = spec.instantEvents
  engine.start()
  return engine
}
