// Waiting on the host: a pause, and polling until something holds (labs, benchmarks).

import { performance } from "node:perf_hooks"

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}

/** Polls `probe` every `everyMs` until it gives a value other than null; past `timeoutMs` an error names `what`. */
export async function until<T>(what: string, probe: () => Promise<T | null> | T | null, timeoutMs: number, everyMs = 2): Promise<T> {
  const t0 = performance.now()
  for (;;) {
    const v = await probe()
    if (v !== null) return v
    if (performance.now() - t0 > timeoutMs) throw new Error(`${what}: not after ${timeoutMs} ms`)
    await sleep(everyMs)
  }
}
