// Shared by the ring-family tests: drive one ring node, read what it sent, run an engine.
import { createNode } from "../src/core/algorithms"
import type { Engine } from "../src/core/engine"
import { Algorithm, Kind } from "../src/core/frame"
import { type Action, ActionType, TIMER_ALGORITHM } from "../src/core/contract"
import { idealTiming } from "../src/core/timing"
import { TIMER_RING_FREE } from "../src/core/ring-base"
import { startEngine } from "./helpers"
import { summarize } from "../src/core/summary"

export const T_ACK = TIMER_ALGORITHM
export const T_REINITIATE = TIMER_RING_FREE
export const T_RESULT = TIMER_RING_FREE + 1

/** Cluster sizes the closed forms are checked over. */
export const sizes = [3, 4, 5, 6, 8, 11, 16, 25, 40, 64]

export function node(algorithm: Algorithm, id: number, ids: number[], suitability?: number) {
  const n = createNode(algorithm, { id, ids, group: 1, timing: idealTiming(), suitability })
  n.start(0, [])
  return n
}

/** The frames a node sent, with their payload: "ELECTION ->3 [1,2]", "ELECTION ->4 i=2". */
export function sent(out: Action[]): string[] {
  const lines: string[] = []
  for (const a of out)
    if (a.type === ActionType.Send) {
      const f = a.frame
      let extra = ""
      if (f.algorithm === Algorithm.Ring && f.kind !== Kind.ACK) extra = ` [${f.list.join(",")}]`
      if ((f.algorithm === Algorithm.ActiveListRing || f.algorithm === Algorithm.BidRing) && f.kind !== Kind.ACK)
        extra = ` i=${f.initiator}`
      if (f.algorithm === Algorithm.BidRing && f.kind !== Kind.ACK) extra += ` bid=${f.bid}`
      if (f.kind === Kind.COORDINATOR) extra += ` c=${f.algorithm === Algorithm.BidRing ? f.bid % 65536 : f.bid}`
      lines.push(`${Kind[f.kind]} ->${a.to.join(",")}${extra}`)
    }
  return lines
}

export function engine(algorithm: Algorithm, ids: number[], suitability?: number[]) {
  return startEngine(algorithm, ids, { suitability })
}

export function counts(e: Engine) {
  const s = summarize(e)
  return {
    ELECTION: s.byKind[Kind.ELECTION],
    COORDINATOR: s.byKind[Kind.COORDINATOR],
    ACK: s.byKind[Kind.ACK],
    INQUIRY: s.byKind[Kind.INQUIRY],
    total: s.messages,
    coordinator: s.coordinator,
    violations: s.violations,
    time: s.electionTime,
  }
}
