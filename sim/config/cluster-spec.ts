// A cluster specification: what the simulator builds an engine from (sim/simulator/cluster.ts) and what
// the lab starts its boards with, as cluster-config.ts resolves it.

import { Algorithm } from "../../src/core/frame"
import type { Timing } from "../../src/core/contract"
import { idealTiming } from "../../src/core/timing"
import type { NetworkName } from "./input"

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
  /** More election messages in flight at once than this is a storm (0: no budget). */
  inFlightBudget: number
  /** More events than this at one instant stops the run (0: the engine's default). */
  instantEvents: number
  /** A broadcast frame reaches every process, not only those it was sent for (the bus, a broker). */
  sharedMedium?: boolean
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
    inFlightBudget: 0,
    instantEvents: 0,
  }
}
