// The search on several threads, in the manner of multi-core SPIN and LTSmin: every thread
// runs its own depth-first exploration (explore.ts) over one visited table in shared
// memory, and a state belongs to the thread that put its key there first. The main thread
// searches alone until the search proves big (small ones never pay for threads), then hands
// its current path to helper threads, which rebuild it and take each state's successors in
// another order, so that they part ways at once.
//
// The table's segments grow while every thread waits: a thread that takes a segment past its
// mark raises a flag; each helper stops at its next insert, the main thread doubles the
// segments past their marks (or caps them, at the memory budget) and posts the buffers to
// every helper, and they go on.
//
// A thread whose search runs dry takes a share of another's: an idle helper is handed the
// main thread's current path at the main thread's next progress tick, and a main thread
// done with its own part takes the helpers' paths (as for a checkpoint). Each explores the
// path it takes in its own order, so the two go through what is left from both ends.
//
// A checkpoint needs every thread at a point where each state it put in the table is either
// expanded or on its stack (the top of its exploration loop): the main thread bumps PARK,
// each helper posts its path at its next loop top and waits, and once the checkpoint is
// written the main thread releases them.

import { availableParallelism, totalmem } from "node:os"
import { fileURLToPath, pathToFileURL } from "node:url"
import { getHeapStatistics } from "node:v8"
import { MessageChannel, type MessagePort, receiveMessageOnPort, Worker } from "node:worker_threads"
import type { Event } from "./model"
import type { ExploreOptions, Visited } from "./explore"
import { FingerprintTable } from "./key"

/** Slots of the control array (an Int32Array in shared memory). */
const COUNT = 0 // states visited by every thread
const STOP = 1 // a thread met a violation or a limit: all stop
const GROWING = 2 // a thread took a segment past its mark
const GENERATION = 3 // bumped each time the table is replaced
const QUIT = 4 // the main thread is done: a helper that has not begun need not
const FULL = 5 // the table is full within the memory budget
const PARK = 6 // bumped when the main thread wants every path for a checkpoint
const RELEASE = 7 // set to PARK's value when the checkpoint is written
const HELPERS = 8 // then three slots per helper: its state, the last PARK it answered, how far it got (2^30 = all)
const SLOTS = 3
const NOT_STARTED = 0
const RUNNING = 1
const PAUSED = 2 // waiting for the bigger table; inserts nothing until it has it
const DONE = 3
const IDLE = 4 // its search ran dry: waits for the main thread to share a path, or for QUIT

const stateSlot = (i: number) => HELPERS + SLOTS * i
const parkedSlot = (i: number) => HELPERS + SLOTS * i + 1
const doneSlot = (i: number) => HELPERS + SLOTS * i + 2

/** The threads a search uses by default: every core the machine gives. */
export function defaultThreads(): number {
  return Math.max(1, Math.min(availableParallelism(), 16))
}

/** The key table's default budget: half the machine's memory. */
export function defaultMemory(): number {
  return Math.floor(totalmem() / 2)
}

/** What the main thread gives each helper. */
export interface HelperData {
  options: ExploreOptions
  control: SharedArrayBuffer
  /** The table's segments and its counts. */
  segments: SharedArrayBuffer[]
  counts: SharedArrayBuffer
  generation: number
  /** The main thread's path when it handed over, as events from the root. */
  path: Event[]
  /** Which helper (1, 2, ...): decides its order of successors. */
  index: number
  port: MessagePort
}

/** What a helper gives back. */
export interface HelperResult {
  /** The path the helper stopped on (a stop by a limit), as events from the root. */
  pending: Event[][]
  transitions: number
  depth: number
  limits: string[]
  violated: boolean
  inexact: number
  /** Most heap its isolate used. */
  heapPeak: number
  error?: string
}

/** The shared table as one thread sees it: the newest segments it was given, and the counters. */
export class SharedVisited implements Visited {
  private generation: number
  constructor(
    private readonly control: Int32Array,
    public table: FingerprintTable,
    generation: number,
    /** Called when a segment must grow or was replaced (the thread's part of the protocol). */
    private readonly sync: (self: SharedVisited) => void,
  ) {
    this.generation = generation
  }

  add(lo: number, hi: number): boolean {
    const c = this.control
    if (Atomics.load(c, GROWING) !== 0 || Atomics.load(c, GENERATION) !== this.generation) this.sync(this)
    const r = this.table.add(lo, hi)
    if (r < 0) return false
    Atomics.add(c, COUNT, 1)
    if (r > 0) Atomics.store(c, GROWING, 1)
    return true
  }

  size(): number {
    return Atomics.load(this.control, COUNT)
  }

  full(): boolean {
    return Atomics.load(this.control, FULL) !== 0
  }

  replace(segments: SharedArrayBuffer[], generation: number) {
    this.table.update(segments)
    this.generation = generation
  }

  get current(): number {
    return this.generation
  }
}

/** The main thread's side: alone at first, then with helpers on the shared table. */
export class MainVisited implements Visited {
  readonly table: FingerprintTable
  private count: number
  private isFull = false
  private shared: SharedVisited | null = null
  private control: Int32Array | null = null
  private helpers: { worker: Worker; port: MessagePort }[] = []

  /** `budget`: the most bytes the table may take; `table`: the keys of a search resumed. */
  constructor(
    readonly budget: number,
    table?: FingerprintTable,
  ) {
    this.table = table ?? FingerprintTable.create()
    this.count = this.table.size()
  }

  add(lo: number, hi: number): boolean {
    if (this.shared) return this.shared.add(lo, hi)
    const r = this.table.add(lo, hi)
    if (r < 0) return false
    this.count++
    if (r > 0 && !this.table.relieve(this.budget)) this.isFull = true
    return true
  }

  size(): number {
    return this.shared ? this.shared.size() : this.count
  }

  full(): boolean {
    return this.shared ? this.shared.full() : this.isFull
  }

  get parallel(): boolean {
    return this.shared !== null
  }

  /** True when another thread asked every thread to stop. */
  stopped(): boolean {
    return this.control !== null && Atomics.load(this.control, STOP) !== 0
  }

  stopAll() {
    if (this.control) Atomics.store(this.control, STOP, 1)
  }

  /** Starts `count` helpers that search from `path` (the main thread's current path, as events from the root) on the same table. */
  handOver(options: ExploreOptions, path: Event[], count: number) {
    const control = new Int32Array(new SharedArrayBuffer(4 * (HELPERS + SLOTS * count)))
    Atomics.store(control, COUNT, this.count)
    if (this.isFull) Atomics.store(control, FULL, 1)
    this.control = control
    this.shared = new SharedVisited(control, this.table, 0, () => this.grow())
    const entry = pathToFileURL(fileURLToPath(new URL("./search-worker.ts", import.meta.url))).href
    // a helper loads TypeScript through tsx, whatever runs the main thread (tsx, vitest), from
    // wherever it was started
    const tsx = typeof import.meta.resolve === "function" ? import.meta.resolve("tsx/esm/api") : "tsx/esm/api"
    const boot = `import(${JSON.stringify(tsx)}).then((m) => { m.register(); return import(${JSON.stringify(entry)}) })`
    for (let index = 1; index <= count; index++) {
      const { port1, port2 } = new MessageChannel()
      const data: HelperData = {
        options,
        control: control.buffer as SharedArrayBuffer,
        segments: this.table.buffers.slice(0),
        counts: this.table.sharedCounts,
        generation: 0,
        path,
        index,
        port: port2,
      }
      const worker = new Worker(boot, { eval: true, workerData: data, transferList: [port2] })
      // a helper that fails to start claims no state: the main thread's search covers its
      // part (a helper that fails later says so in its result)
      worker.on("error", () => {})
      worker.unref()
      this.helpers.push({ worker, port: port1 })
    }
  }

  /** Doubles (or caps) the segments past their marks while every running helper waits. */
  private grow() {
    const c = this.control!
    const shared = this.shared!
    if (Atomics.load(c, GROWING) === 0) return
    for (let i = 0; i < this.helpers.length; i++) {
      // a helper that has not started touches no table before it sees the flag down
      for (let st = Atomics.load(c, stateSlot(i)); st === RUNNING; st = Atomics.load(c, stateSlot(i))) Atomics.wait(c, stateSlot(i), st, 5)
    }
    if (!this.table.relieve(this.budget)) Atomics.store(c, FULL, 1)
    const generation = shared.current + 1
    for (const h of this.helpers) h.port.postMessage({ segments: this.table.buffers.slice(0), generation })
    shared.replace(this.table.buffers, generation)
    Atomics.store(c, GROWING, 0)
    Atomics.store(c, GENERATION, generation)
    Atomics.notify(c, GENERATION)
  }

  /**
   * Every helper's path at a consistent point (for a checkpoint): each running helper posts
   * it at its next loop top and waits there until `release`. Growth is served meanwhile.
   */
  gather(): { paths: Event[][]; inexact: number } {
    const c = this.control
    if (!c) return { paths: [], inexact: 0 }
    const r = Atomics.add(c, PARK, 1) + 1
    for (let i = 0; i < this.helpers.length; i++) {
      for (;;) {
        if (Atomics.load(c, GROWING) !== 0) this.grow()
        const st = Atomics.load(c, stateSlot(i))
        if (st === NOT_STARTED || st === DONE || st === IDLE || Atomics.load(c, parkedSlot(i)) === r) break
        Atomics.wait(c, parkedSlot(i), Atomics.load(c, parkedSlot(i)), 5)
      }
    }
    const paths: Event[][] = []
    let inexact = 0
    for (let i = 0; i < this.helpers.length; i++)
      for (let m = receiveMessageOnPort(this.helpers[i].port); m; m = receiveMessageOnPort(this.helpers[i].port)) {
        const msg = m.message as { park?: number; path?: Event[] | null; inexact?: number } & Partial<HelperResult>
        if (msg.park === undefined) {
          // a helper done already: its result, kept for finish
          this.results[i] = msg as HelperResult
          inexact += (msg as HelperResult).inexact
          paths.push(...(msg as HelperResult).pending)
        } else if (msg.park === r) {
          if (msg.path) paths.push(msg.path)
          inexact += msg.inexact ?? 0
        }
      }
    return { paths, inexact }
  }

  /** Lets the helpers parked by `gather` go on. */
  release() {
    const c = this.control
    if (!c) return
    Atomics.store(c, RELEASE, Atomics.load(c, PARK))
    Atomics.notify(c, RELEASE)
  }

  /** Whether a helper is searching (not idle, done or yet to begin). */
  helpersBusy(): boolean {
    const c = this.control
    if (!c) return false
    for (let i = 0; i < this.helpers.length; i++) {
      const st = Atomics.load(c, stateSlot(i))
      if (st === RUNNING || st === PAUSED) return true
    }
    return false
  }

  /** Hands `path` (the main thread's, at its loop top) to each idle helper. */
  feedIdle(path: () => Event[]) {
    const c = this.control
    if (!c) return
    let events: Event[] | null = null
    for (let i = 0; i < this.helpers.length; i++) {
      if (Atomics.load(c, stateSlot(i)) !== IDLE) continue
      events ??= path()
      if (events.length === 0) return
      // RUNNING before the path is posted: a checkpoint waits for it to park
      if (Atomics.compareExchange(c, stateSlot(i), IDLE, RUNNING) !== IDLE) continue
      this.helpers[i].port.postMessage({ work: events })
      Atomics.notify(c, stateSlot(i))
    }
  }

  /** How far the helpers got by their paths' places: [forward, last first] (0 to 1). */
  helperShares(): [number, number] {
    const c = this.control
    let forward = 0
    let backward = 0
    if (c)
      for (let i = 0; i < this.helpers.length; i++) {
        const f = Atomics.load(c, doneSlot(i)) / 2 ** 30
        if ((i + 1) % 2 === 1) backward = Math.max(backward, f)
        else forward = Math.max(forward, f)
      }
    return [forward, backward]
  }

  private results: (HelperResult | undefined)[] = []

  /**
   * The main thread is done: waits for the helpers that began (a helper that has not begun
   * claimed no state, so the main thread's search covered its part), serving growth
   * meanwhile; `tick` is called about once a second.
   */
  finish(tick: () => void): HelperResult[] {
    const c = this.control
    if (!c) return []
    Atomics.store(c, QUIT, 1)
    let last = performance.now()
    for (let i = 0; i < this.helpers.length; ) {
      if (Atomics.load(c, GROWING) !== 0) this.grow()
      const st = Atomics.load(c, stateSlot(i))
      if (st === NOT_STARTED || st === DONE) {
        i++
        continue
      }
      Atomics.wait(c, stateSlot(i), st, 50)
      if (performance.now() - last > 1000) {
        last = performance.now()
        tick()
      }
    }
    const results: HelperResult[] = []
    this.helpers.forEach((h, i) => {
      for (let m = receiveMessageOnPort(h.port); m; m = receiveMessageOnPort(h.port)) {
        const msg = m.message as { park?: number } & HelperResult
        if (msg.park === undefined) this.results[i] = msg
      }
      const r = this.results[i]
      if (r) results.push(r)
      h.port.close()
      void h.worker.terminate()
    })
    return results
  }
}

/**
 * A helper's side of the protocol. Returns its visited set, or null when the main thread was
 * already done when it began (then it has nothing to do).
 */
export function joinSearch(data: HelperData): SharedVisited | null {
  const c = new Int32Array(data.control)
  const slot = stateSlot(data.index - 1)
  Atomics.store(c, slot, RUNNING)
  if (Atomics.load(c, QUIT) !== 0) return null
  const pause = (self: SharedVisited) => {
    // inserts only once the flag is down and the newest table is in hand
    for (;;) {
      if (Atomics.load(c, GROWING) !== 0) {
        Atomics.store(c, slot, PAUSED)
        Atomics.notify(c, slot)
        const known = self.current
        while (Atomics.load(c, GENERATION) === known) Atomics.wait(c, GENERATION, known, 100)
      }
      takeSegments(data, self)
      Atomics.store(c, slot, RUNNING)
      if (Atomics.load(c, GROWING) === 0 && Atomics.load(c, GENERATION) === self.current) return
    }
  }
  const visited = new SharedVisited(c, new FingerprintTable(data.segments, data.counts), data.generation, pause)
  pause(visited)
  return visited
}

/** The newest segments posted to a helper, and the path to share if one came (IDLE). */
function takeSegments(data: HelperData, self: SharedVisited): Event[] | null {
  let work: Event[] | null = null
  for (let m = receiveMessageOnPort(data.port); m; m = receiveMessageOnPort(data.port)) {
    const next = m.message as { segments?: SharedArrayBuffer[]; generation?: number; work?: Event[] }
    if (next.work) work = next.work
    else self.replace(next.segments!, next.generation!)
  }
  return work
}

/**
 * A helper whose search ran dry: idle until the main thread hands it a path (returned), or
 * is done, or every thread stops (null). The table's new segments are taken meanwhile.
 */
export function awaitWork(data: HelperData, self: SharedVisited): Event[] | null {
  const c = new Int32Array(data.control)
  const slot = stateSlot(data.index - 1)
  Atomics.store(c, slot, IDLE)
  Atomics.notify(c, slot)
  for (;;) {
    if (Atomics.load(c, QUIT) !== 0 || Atomics.load(c, STOP) !== 0) {
      // the main thread may have handed a path just now: it is done with it either way
      Atomics.store(c, slot, RUNNING)
      return null
    }
    if (Atomics.load(c, slot) === RUNNING) {
      const work = takeSegments(data, self)
      if (work) return work
      Atomics.wait(c, QUIT, 0, 1)
      continue
    }
    takeSegments(data, self)
    Atomics.wait(c, slot, IDLE, 50)
  }
}

/**
 * A helper at its loop top: parks when the main thread asked for a checkpoint (posting its
 * path), and publishes how far it got.
 */
export function helperIdle(data: HelperData): (path: () => Event[] | null, share: () => number, inexact: () => number) => void {
  const c = new Int32Array(data.control)
  const i = data.index - 1
  let answered = 0
  return (path, share, inexact) => {
    const r = Atomics.load(c, PARK)
    if (r !== answered) {
      answered = r
      data.port.postMessage({ park: r, path: path(), inexact: inexact() })
      Atomics.store(c, stateSlot(i), PAUSED)
      Atomics.store(c, parkedSlot(i), r)
      Atomics.notify(c, parkedSlot(i))
      for (let v = Atomics.load(c, RELEASE); v < r; v = Atomics.load(c, RELEASE)) Atomics.wait(c, RELEASE, v, 100)
      // segments that grew meanwhile are taken at the next insert (SharedVisited.add)
      Atomics.store(c, stateSlot(i), RUNNING)
    }
    Atomics.store(c, doneSlot(i), Math.floor(share() * 2 ** 30))
  }
}

/** Ends a helper: its result to the main thread, counted as done. */
export function leaveSearch(data: HelperData, result: HelperResult) {
  const c = new Int32Array(data.control)
  data.port.postMessage(result)
  data.port.close()
  Atomics.store(c, stateSlot(data.index - 1), DONE)
  Atomics.notify(c, stateSlot(data.index - 1))
}

export function stopAllFrom(data: HelperData) {
  Atomics.store(new Int32Array(data.control), STOP, 1)
}

export function stoppedFor(data: HelperData): () => boolean {
  const c = new Int32Array(data.control)
  return () => Atomics.load(c, STOP) !== 0
}

/** Most heap this isolate has used, sampled by the caller. */
export function heapUsed(): number {
  return getHeapStatistics().used_heap_size
}
