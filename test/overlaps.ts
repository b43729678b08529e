// The verdict on two coordinators at once in a lab run. The algorithms are timing-bound: a
// Bully takes a silent higher board as crashed after T. A board whose process did not run for
// a good part of T (twelve VMs share two cores) answers late and may let a lower board win
// for a moment: that is the host breaking the algorithm's assumption, not the election
// failing. An overlap with no process stalled for T/2 or more is the election's fault.
import type { Transition } from "../sim/lab/lab"

/** The share of T a process must stall for an overlap to be put down to the host. */
const STALL_SHARE = 0.5

function line(t: Transition): string {
  return `${t.trigger} at ${t.startedAt} ms: ${t.overlapMs} ms (${t.reigns ?? ""}; stalled: ${t.stalls || "none"})`
}

/**
 * Transitions with two coordinators the host does not explain: no process stalled for
 * T/2 or more, or the overlap outlasted the stall by more than T. Explained ones are
 * printed, so that a run's log says what the host cost.
 */
export function unexplainedOverlaps(transitions: Transition[], answerTimeoutMs: number): string[] {
  const out: string[] = []
  for (const t of transitions.filter((t) => t.overlapMs > 0)) {
    const explained = t.stallMs >= STALL_SHARE * answerTimeoutMs && t.overlapMs <= t.stallMs + answerTimeoutMs
    if (explained) process.stdout.write(`two coordinators, put down to the host (T ${answerTimeoutMs} ms): ${line(t)}\n`)
    else out.push(line(t))
  }
  return out
}
