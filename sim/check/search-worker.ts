// A helper thread of the search (parallel.ts): rebuilds the main thread's path, then explores
// depth first on the shared table, taking each state's successors last first.

import { workerData } from "node:worker_threads"
import { inexactTexts, setFrameDescriber } from "./model"
import { inexactRuns } from "./instant"
import { describeFrame } from "../../src/core/chart"
import { explore, pathEvents, pathShare, replayPath, stopsSearch } from "./explore"
import { type HelperData, heapUsed, helperIdle, joinSearch, leaveSearch, stopAllFrom, stoppedFor } from "./parallel"

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
    const stack = replayPath(data.options, data.path, limits, data.index % 2 === 1)
    let sampled = 0
    let loops = 0
    const stopped = stoppedFor(data)
    // the seen-buffer check's count so far, for a checkpoint taken before explore returns
    const inexactBase = inexactTexts + inexactRuns
    const idle = helperIdle(data)
    const result = explore(data.options, visited, stack, {
      reverse: data.index % 2 === 1,
      stopped: (path) => {
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
    })
    for (const l of limits) result.limits.add(l)
    if (result.violated || [...result.limits].some(stopsSearch)) stopAllFrom(data)
    sample()
    // stopped by a limit: the path still open goes into the checkpoint
    const pending = !result.violated && stack.length > 0 ? [pathEvents(stack)] : []
    leaveSearch(data, { ...result, pending, limits: [...result.limits], heapPeak })
  }
} catch (e) {
  stopAllFrom(data)
  leaveSearch(data, { pending: [], transitions: 0, depth: 0, limits: [], violated: false, inexact: 0, heapPeak, error: String((e as Error).stack ?? e) })
}
