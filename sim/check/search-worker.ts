// A helper thread of the search (parallel.ts): rebuilds the main thread's path, then explores
// depth first on the shared table, taking each state's successors last first; when that runs
// dry, it does the same with the path the main thread shares next.

import { workerData } from "node:worker_threads"
import { inexactTexts, setFrameDescriber } from "./model"
import { inexactRuns } from "./instant"
import { describeFrame } from "../../src/core/chart"
import { explore, type PathStep, pathEvents, pathShare, replayPath, stopsSearch } from "./explore"
import type { Event } from "./model"
import { awaitWork, type HelperData, heapUsed, helperIdle, joinSearch, leaveSearch, stopAllFrom, stoppedFor } from "./parallel"

setFrameDescriber(describeFrame)

const data = workerData as HelperData
// the heap the search itself takes: above what the loaded modules hold
const base = heapUsed()
let heapPeak = 0
const sample = () => {
  heapPeak = Math.max(heapPeak, heapUsed() - base)
}
try {
  const visited = joinSearch(data)
  if (!visited) leaveSearch(data, { pending: [], transitions: 0, depth: 0, limits: [], violated: false, inexact: 0, heapPeak })
  else {
    const limits = new Set<string>()
    const reverse = data.index % 2 === 1
    let sampled = 0
    let loops = 0
    const stopped = stoppedFor(data)
    // the seen-buffer check's count so far, for a checkpoint taken before explore returns
    const inexactBase = inexactTexts + inexactRuns
    const idle = helperIdle(data)
    const hooks = {
      reverse,
      stopped: (path: PathStep[]) => {
        if ((++loops & 255) === 0)
          idle(
            () => (path.length > 0 ? pathEvents(path) : null),
            () => pathShare(path),
            () => inexactTexts + inexactRuns - inexactBase,
          )
        return stopped()
      },
      visited: () => {
        if (++sampled % 10_000 === 0) sample()
      },
    }
    const total = { transitions: 0, depth: 0, violated: false, inexact: 0 }
    let stack: PathStep[] = []
    // the path handed over, then each one shared with it when its own search runs dry
    for (let path: Event[] | null = data.path; path; path = awaitWork(data, visited)) {
      stack = replayPath(data.options, path, limits, reverse)
      const result = explore(data.options, visited, stack, hooks)
      total.transitions += result.transitions
      total.depth = Math.max(total.depth, result.depth)
      total.inexact += result.inexact
      for (const l of result.limits) limits.add(l)
      if (result.violated) total.violated = true
      if (result.violated || [...limits].some(stopsSearch)) stopAllFrom(data)
      if (result.violated || stopped()) break
    }
    sample()
    // stopped by a limit: the path still open goes into the checkpoint
    const pending = !total.violated && stack.length > 0 ? [pathEvents(stack)] : []
    leaveSearch(data, { ...total, pending, limits: [...limits], heapPeak })
  }
} catch (e) {
  stopAllFrom(data)
  leaveSearch(data, { pending: [], transitions: 0, depth: 0, limits: [], violated: false, inexact: 0, heapPeak, error: String((e as Error).stack ?? e) })
}
