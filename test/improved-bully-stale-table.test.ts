// improved-bully at 12 processes: answers later than T during one failover leave a live
// process marked CRASHED in a follower's table; at the next failover, on a quiet network,
// that follower skipped it and a lower process led beside the highest live one.
import { expect, test } from "vitest"
import { createCluster } from "../src/core/algorithms"
import { convergenceAfterFaults, improvedBullyElectionBound } from "../src/core/bounds"
import { checkCluster, viewOf } from "../src/core/checker"
import { type Action, Role, TIMER_ALGORITHM, type Timing } from "../src/core/contract"
import { Engine, type EngineOptions, IdealNetwork, type NetworkModel } from "../src/core/engine"
import { Algorithm, type Frame, Kind } from "../src/core/frame"
import type { ImprovedBullyNode } from "../src/core/improved-bully"
import { frameFrom, makeNode, range, sends } from "./helpers"

const timing: Timing = { answerTimeout: 300, coordinatorTimeout: 600, heartbeatInterval: 250, failureTimeout: 800 }
/** Slightly above T. */
const LATE = timing.answerTimeout + 50

/** The ideal network (1 ms), with some directed links taking `LATE` until `until`. */
class SlowLinks implements NetworkModel {
  private inner = new IdealNetwork()
  constructor(
    private slow: string[],
    private until: number,
  ) {}
  delay(src: number, dst: number, frame: Frame, now: number): number {
    return now < this.until && this.slow.includes(`${src}>${dst}`) ? LATE : this.inner.delay(src, dst, frame, now)
  }
  frames(to: number[], frame: Frame): number {
    return this.inner.frames(to, frame)
  }
}

test("a live process answering later than T is not skipped at a later failover", () => {
  // 12 crashes; 11 leads. 11's OK to 8 comes after T, so 8 asks 10; that ELECTION is late
  // too and reaches 10 after 12 recovered and claimed the role, so 10 wins and tells 1..9
  // that 11 and 12 are down. 12's COORDINATOR, late to 1, then brings 1 back to 12 with 11
  // still CRASHED in its table. Links are back to 1 ms from t=5000.
  const network = new SlowLinks(["11>8", "8>10", "12>1"], 5000)
  const options: EngineOptions = { algorithm: Algorithm.ImprovedBully, ids: range(1, 12), group: 1, timing, seed: 1, network }
  const engine = new Engine(options, createCluster(options))
  engine.start()
  engine.scheduleCrash(1100, 12)
  engine.scheduleRecover(2000, 12)
  engine.runUntil(10_000)
  const settled = checkCluster(engine.nodes.map(viewOf))
  expect(settled.violations).toEqual([])
  expect(settled.coordinator).toBe(12)

  // Faults over: the coordinator crashes, and only 11 may take the role.
  const leaders: string[] = []
  engine.roleObserver = (node, role) => {
    if (role !== Role.Coordinator) return
    const at = engine.nodes.filter((n) => !n.crashed && n.role === Role.Coordinator).map((n) => n.id)
    leaders.push(`t=${engine.now} ${node} leads (coordinators: ${at.join(",")})`)
  }
  engine.crash(12)
  engine.runUntil(10_000 + convergenceAfterFaults(improvedBullyElectionBound(12, timing), timing))
  expect(leaders).toEqual(["t=10653 11 leads (coordinators: 11)"])
  const verdict = checkCluster(engine.nodes.map(viewOf))
  expect(verdict.violations).toEqual([])
  expect(verdict.coordinator).toBe(11)
})

test("an OK later than T marks its sender NORMAL again", () => {
  const n = makeNode(Algorithm.ImprovedBully, 4, range(1, 10)) as ImprovedBullyNode
  n.start(0, [])
  n.suspect(0, [])
  n.timer(TIMER_ALGORITHM, 3, []) // no OK within T: 9 CRASHED, ELECTION to 8
  expect(n.believesAlive(9)).toBe(false)
  const out: Action[] = []
  n.receive(frameFrom(Algorithm.ImprovedBully, Kind.OK, 9, 4), 4, out)
  expect(sends(out)).toEqual([])
  expect(n.believesAlive(9)).toBe(true)
})

test("a heartbeat from the coordinator followed back by a RESIGN clears the table a lower win left", () => {
  const A = Algorithm.ImprovedBully
  const n = makeNode(A, 5, range(1, 10)) as ImprovedBullyNode
  n.start(0, [])
  n.receive(frameFrom(A, Kind.COORDINATOR, 8, 5, { epoch: 1 }), 1, []) // 9 and 10 CRASHED
  n.receive(frameFrom(A, Kind.RESIGN, 8, 0xffff, { epoch: 1, initiator: 10, bid: 10 }), 2, [])
  expect(n.coordinator).toBe(10)
  expect(n.believesAlive(9)).toBe(false)
  n.receive(frameFrom(A, Kind.HEARTBEAT, 10, 0xffff, { epoch: 1, bid: 10, seq: 1 }), 3, [])
  expect(n.believesAlive(10)).toBe(true)
  expect(n.believesAlive(9)).toBe(true)
})
