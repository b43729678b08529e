// Each board's pending timers as the page can know them. The firmware reports its role,
// coordinator and epoch (log lines and registers) but not its timers, so they are derived
// from the frames the tap saw and the lab's timing; the tooltip says from what.
// Pure: the page draws the bars, the tests check the figures.

import { labelsOf, parseAlgorithm } from "../../../src/core/algorithms"
import type { CausalFrame } from "./causal"

export interface PendingTimer {
  /** "watch": the failure detector's wait for the coordinator; "T": for an OK; "T'": for a COORDINATOR. */
  name: "watch" | "T" | "T'"
  startedAt: number
  deadline: number
  /** How the page derived it (the tooltip). */
  how: string
}

export interface TimerTiming {
  answerTimeout: number
  coordinatorTimeout: number
  failureTimeout: number
}

export interface BoardView {
  node: number
  role: string
  coordinator: number
}

/** The timers the page derives T and T' from, as an algorithm's module names them (labelsOf). */
const WAIT_FOR_OK = "no OK within T"
const WAIT_FOR_COORDINATOR = "no COORDINATOR within T'"

/** Whether `algorithm`'s own timers are T (for an OK) and T' (for a COORDINATOR): the bully family's. */
function waitsForOkThenCoordinator(algorithm: string): boolean {
  const labels = labelsOf(parseAlgorithm(algorithm)).timers
  return labels.includes(WAIT_FOR_OK) && labels.includes(WAIT_FOR_COORDINATOR)
}

/**
 * The watch runs on a follower from the last frame it heard from its coordinator (a frame is
 * heard `hubDelayMs` after the tap); T from the board's last ELECTION while no OK came back;
 * T' from that OK while no COORDINATOR came (the bully family's timers).
 */
export function pendingTimers(
  board: BoardView,
  frames: readonly CausalFrame[],
  timing: TimerTiming,
  algorithm: string,
  hubDelayMs = 0,
): PendingTimer[] {
  const me = board.node
  const heard = (f: CausalFrame) => f.src !== me && (f.dst === me || f.dst === -1)
  const out: PendingTimer[] = []
  if (board.role === "follower" && board.coordinator >= 0 && board.coordinator !== me && timing.failureTimeout > 0) {
    const last = findLast(frames, (f) => f.src === board.coordinator && heard(f))
    if (last) {
      const start = last.at + hubDelayMs
      out.push({
        name: "watch",
        startedAt: start,
        deadline: start + timing.failureTimeout,
        how: `derived: the last frame heard from coordinator ${board.coordinator} (${last.kind}) + the failure timeout ${timing.failureTimeout} ms`,
      })
    }
  }
  if (board.role === "electing" && waitsForOkThenCoordinator(algorithm)) {
    const i = findLastIndex(frames, (f) => f.src === me && f.kind === "ELECTION")
    if (i >= 0) {
      const election = frames[i]
      const after = frames.slice(i + 1)
      const ok = findLast(after, (f) => heard(f) && f.kind === "OK")
      if (!ok) {
        out.push({
          name: "T",
          startedAt: election.at,
          deadline: election.at + timing.answerTimeout,
          how: `derived: board ${me}'s last ELECTION + T = ${timing.answerTimeout} ms (waiting for an OK)`,
        })
      } else if (!after.some((f) => heard(f) && f.kind === "COORDINATOR" && f.at >= ok.at)) {
        const start = ok.at + hubDelayMs
        out.push({
          name: "T'",
          startedAt: start,
          deadline: start + timing.coordinatorTimeout,
          how: `derived: the OK from ${ok.src} + T' = ${timing.coordinatorTimeout} ms (waiting for a COORDINATOR)`,
        })
      }
    }
  }
  return out
}

function findLastIndex<T>(list: readonly T[], pred: (x: T) => boolean): number {
  for (let i = list.length - 1; i >= 0; i--) if (pred(list[i])) return i
  return -1
}

function findLast<T>(list: readonly T[], pred: (x: T) => boolean): T | undefined {
  const i = findLastIndex(list, pred)
  return i < 0 ? undefined : list[i]
}
