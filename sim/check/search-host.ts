// A search run on its own thread, so that Ctrl-C can stop it with a checkpoint: a search runs
// synchronously, and Node runs a signal handler only on a thread that is free.

import { parentPort, Worker, workerData } from "node:worker_threads"
import { fileURLToPath, pathToFileURL } from "node:url"
import type { Progress, SearchOptions, SearchResult } from "./search"

interface HostData {
  options: SearchOptions
  interrupt: SharedArrayBuffer
  /** Post progress reports to the calling thread. */
  progress: boolean
}

/** What the search's thread posts: a progress report, then its result. */
type HostMessage = { progress: Progress } | { result: SearchResult }

/**
 * `options` searched on another thread; the first Ctrl-C stops the search as a limit would
 * (a depth-first search writes its checkpoint and reports), a second quits at once.
 * `options.progress` is called on this thread.
 */
export function searchInterruptibly(options: SearchOptions): Promise<SearchResult> {
  const interrupt = new SharedArrayBuffer(4)
  const { progress, visit, judged, ...plain } = options
  if (visit || judged) throw new Error("a search with callbacks runs on the calling thread")
  const data: HostData = { options: plain, interrupt, progress: !!progress }
  const entry = pathToFileURL(fileURLToPath(new URL("./search-host.ts", import.meta.url))).href
  const tsx = typeof import.meta.resolve === "function" ? import.meta.resolve("tsx/esm/api") : "tsx/esm/api"
  const boot = `import(${JSON.stringify(tsx)}).then((m) => { m.register(); return import(${JSON.stringify(entry)}) })`
  return new Promise((resolve, reject) => {
    const worker = new Worker(boot, { eval: true, workerData: data })
    let interrupts = 0
    const onSignal = () => {
      interrupts++
      if (interrupts > 1) process.exit(130)
      Atomics.store(new Int32Array(interrupt), 0, 1)
      process.stderr.write("stopping: writing a checkpoint (Ctrl-C again quits without one)\n")
    }
    process.on("SIGINT", onSignal)
    const done = () => process.off("SIGINT", onSignal)
    worker.on("message", (m: HostMessage) => {
      if ("progress" in m) progress?.(m.progress)
      else {
        done()
        resolve(m.result)
      }
    })
    worker.once("error", (e) => {
      done()
      reject(e)
    })
    worker.once("exit", (code) => {
      done()
      reject(new Error(`the search thread ended (exit code ${code}) without a result`))
    })
  })
}

/** On the search's thread: the search, its progress and its result posted back. */
async function hostSearch(data: HostData) {
  const { search } = await import("./search")
  const port = parentPort!
  const options: SearchOptions = { ...data.options, interrupt: new Int32Array(data.interrupt) }
  if (data.progress) options.progress = (p) => port.postMessage({ progress: p } satisfies HostMessage)
  port.postMessage({ result: search(options) } satisfies HostMessage)
}

if (parentPort && workerData && (workerData as HostData).interrupt instanceof SharedArrayBuffer) void hostSearch(workerData as HostData)
