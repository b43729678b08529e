// Drive one node by hand and read its actions as short strings.

import { createCluster, createNode } from "../src/core/algorithms"
import { type Action, ActionType, roleName, type SendAction } from "../src/core/contract"
import { Engine, type EngineOptions, IdealNetwork } from "../src/core/engine"
import { Algorithm, BROADCAST, type Frame, Kind, kindName, makeFrame } from "../src/core/frame"
import type { ElectionNode } from "../src/core/node"
import { summarize } from "../src/core/summary"
import { idealTiming } from "../src/core/timing"
import { type FirmwareConfig, TRANSPORT_BUS } from "../src/firmware/config"

export function makeNode(algorithm: Algorithm, id: number, ids: number[]): ElectionNode {
  return createNode(algorithm, { id, ids, group: 1, timing: idealTiming() })
}

/** A frame as another node would send it. */
export function frameFrom(
  algorithm: Algorithm,
  kind: Kind,
  src: number,
  dst: number,
  patch: Partial<Frame> = {},
): Frame {
  return { ...makeFrame(kind, algorithm, 1, 0, src, dst), ...patch }
}

/** "send ELECTION 5,6,7", "set 2 +3", "cancel 2", "role coordinator 6". */
export function describe(actions: Action[]): string[] {
  return actions.map((a) => {
    switch (a.type) {
      case ActionType.Send:
        return `send ${kindName(a.frame.kind)} ${a.to.join(",")}${a.frame.dst === BROADCAST ? " (broadcast)" : ""}`
      case ActionType.SetTimer:
        return `set ${a.timer} +${a.delay}`
      case ActionType.CancelTimer:
        return `cancel ${a.timer}`
      case ActionType.RoleChange:
        return `role ${roleName(a.role)} ${a.coordinator}`
    }
  })
}

/** The send actions among `actions`. */
export function sendActions(actions: Action[]): SendAction[] {
  return actions.filter((a): a is SendAction => a.type === ActionType.Send)
}

/** An engine not started yet (to attach a tracer first): as `startEngine`. */
export function makeEngine(algorithm: Algorithm, ids: number[], options: Partial<EngineOptions> = {}): Engine {
  const all: EngineOptions = { algorithm, ids, group: 1, timing: idealTiming(), network: new IdealNetwork(), ...options }
  return new Engine(all, createCluster(all))
}

/**
 * A started engine: ideal network, ideal timing and group 1 unless `options` says otherwise
 * (the one way tests build engines).
 */
export function startEngine(algorithm: Algorithm, ids: number[], options: Partial<EngineOptions> = {}): Engine {
  const engine = makeEngine(algorithm, ids, options)
  engine.start()
  return engine
}

/** Only the sends, as "KIND to". */
export function sends(actions: Action[]): string[] {
  return describe(actions).filter((s) => s.startsWith("send "))
}

export interface Outcome {
  coordinator: number
  messages: number
  byKind: number[]
  electionTime: number
  violations: string[]
  digest: number
}

/** Ideal network, ids given, `crashed` down at 0, `detect` notice at 0, run to quiet. */
export function runElection(
  algorithm: Algorithm,
  ids: number[],
  crashed: number[],
  detect: number[],
): Outcome {
  const engine = startEngine(algorithm, ids)
  for (const id of crashed) engine.crash(id)
  for (const id of detect) engine.detect(id)
  if (!engine.settle(50_000_000)) throw new Error("did not settle")
  const s = summarize(engine)
  return {
    coordinator: s.coordinator,
    messages: s.messages,
    byKind: s.byKind,
    electionTime: s.electionTime,
    violations: s.violations,
    digest: engine.digest,
  }
}

export function range(lo: number, hi: number): number[] {
  return Array.from({ length: hi - lo + 1 }, (_, i) => lo + i)
}

/** A board's configuration on the bus with the bus timing, for a driver run in Node. */
export function busBoardConfig(nodeId: number, ids: number[], algorithm: Algorithm): FirmwareConfig {
  return {
    nodeId,
    ids,
    algorithm,
    group: 1,
    timing: { answerTimeout: 200, coordinatorTimeout: 400, heartbeatInterval: 250, failureTimeout: 800 },
    buttonPin: -1,
    suitability: 0,
    transport: TRANSPORT_BUS,
    mqttHost: "",
    mqttPort: 1883,
    topicPrefix: "electlab",
  }
}
