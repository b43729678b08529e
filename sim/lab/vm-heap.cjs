// The DeviceScript VM's heap as the program uses it, read from the VM's WebAssembly memory:
// the runtime has no counter to ask. The layout is DeviceScript 2.16.4's (runtime gc_alloc.c,
// 32-bit): the collector's record { first_free, first_chunk, num_alloc, gc_threshold,
// curr_alloc, ctx } is followed by its one chunk { next, end, blocks... } of JD_GC_KB (64) KB;
// every block starts with a header word, its tag in the top byte and its size in words below;
// a final block (tag 0x4f) closes the chunk. A collection marks what is reachable, turns the
// rest into free blocks and sets curr_alloc, the words allocated since, back to 0; it runs
// when 16 KB have been allocated since the last one, or when an allocation does not fit.
"use strict"

const HEAP_BYTES = 64 * 1024
const RECORD_WORDS = 6
const TAG_FREE = 0x1
const TAG_MASK = 0xf
const TAG_FINAL = 0x4f

/** Byte address of the collector's record in the VM's memory (32-bit words), or -1. */
function findCollector(words) {
  for (let i = 0; i + RECORD_WORDS + 2 < words.length; i++) {
    if (isCollectorAt(words, i * 4)) return i * 4
  }
  return -1
}

function isCollectorAt(words, at) {
  const chunk = at + RECORD_WORDS * 4
  if (words[(at >> 2) + 1] !== chunk || words[chunk >> 2] !== 0) return false
  const end = words[(chunk >> 2) + 1]
  if (end !== ((chunk + HEAP_BYTES) & ~3) - 4) return false
  return words[end >> 2] >>> 24 === TAG_FINAL
}

/**
 * The heap's blocks at this moment: bytes in use (live objects, and garbage not yet
 * collected), free (and the largest free block), and `live`: what was in use just after the last
 * collection (in use now, less what was allocated since). Null when the walk meets a block
 * it cannot read (the program restarting).
 */
function heapFigures(words, at) {
  const chunk = at + RECORD_WORDS * 4
  const end = words[(chunk >> 2) + 1]
  let used = 0
  let free = 0
  let largestFree = 0
  for (let block = chunk + 8; block < end; ) {
    const header = words[block >> 2]
    const bytes = (header & 0xffffff) * 4
    if (bytes === 0 || block + bytes > end) return null
    if ((header >>> 24 & TAG_MASK) === TAG_FREE) {
      free += bytes
      if (bytes > largestFree) largestFree = bytes
    } else used += bytes
    block += bytes
  }
  const sinceCollection = words[(at >> 2) + 4] * 4
  return { used, free, largestFree, live: Math.max(0, used - sinceCollection) }
}

/**
 * Follows one VM's heap: `sample()` after each step of the VM; `live` is what the program
 * held after the last collection, `peak` the most it held after any collection. A restarted
 * program gets a new heap, found again at the next sample.
 */
class HeapMeter {
  constructor(vm) {
    this.vm = vm
    this.at = -1
    /** Steps to wait before searching the memory again (the heap not made yet). */
    this.searchIn = 0
    this.live = 0
    this.peak = 0
    /** Blocks by kind at the collection that left the most live (heapCensus), or null. */
    this.peakCensus = null
    this.lastUsed = -1
  }

  sample() {
    const words = this.vm.HEAPU32
    if (this.at < 0 || !isCollectorAt(words, this.at)) {
      this.lastUsed = -1
      if (this.searchIn > 0) {
        this.searchIn--
        return null
      }
      this.at = findCollector(words)
      if (this.at < 0) {
        this.searchIn = 50
        return null
      }
    }
    const figures = heapFigures(words, this.at)
    if (!figures) return null
    this.live = figures.live
    // a step that collected leaves less in use than the step before: the census is live objects then
    const collected = this.lastUsed >= 0 && figures.used < this.lastUsed
    this.lastUsed = figures.used
    if (figures.live > this.peak) {
      this.peak = figures.live
      if (collected) this.peakCensus = heapCensus(words, this.at)
    }
    return figures
  }
}

/**
 * Samples the heap after every step of the VM `vm` (its `_jd_em_process`, which its loop
 * calls through the module) and writes "EL heap live=N peak=N" when either changed, at most
 * every `everyMs`.
 */
function reportHeap(vm, write, everyMs = 250) {
  const meter = new HeapMeter(vm)
  const step = vm._jd_em_process
  vm._jd_em_process = function () {
    const next = step.apply(this, arguments)
    meter.sample()
    return next
  }
  let said = ""
  let censusSaid = null
  const timer = setInterval(() => {
    const line = `EL heap live=${meter.live} peak=${meter.peak}`
    if (line !== said) write(line)
    said = line
    if (meter.peakCensus !== censusSaid && meter.peakCensus) {
      const kinds = Object.entries(meter.peakCensus).map(([name, row]) => `${name}=${row.blocks}/${row.bytes}`)
      write(`EL heapkinds peak=${meter.peak} ${kinds.join(" ")}`)
    }
    censusSaid = meter.peakCensus
  }, everyMs)
  timer.unref()
  return meter
}

/** The runtime's names of the block tags (gc_alloc.c), by tag number. */
const TAG_NAMES = ["null", "free", "bytes", "array", "map", "buffer", "string", "function", "activation", "half_static_map", "short_map", "packet", "string_jmp", "image"]

/** Blocks in use by kind: { array: { blocks, bytes }, ... }; garbage since the last collection included. */
function heapCensus(words, at) {
  const chunk = at + RECORD_WORDS * 4
  const end = words[(chunk >> 2) + 1]
  const census = {}
  for (let block = chunk + 8; block < end; ) {
    const header = words[block >> 2]
    const bytes = (header & 0xffffff) * 4
    if (bytes === 0 || block + bytes > end) return null
    const tag = (header >>> 24) & TAG_MASK
    if (tag !== TAG_FREE) {
      const name = TAG_NAMES[tag] ?? `tag${tag}`
      const row = census[name] ?? (census[name] = { blocks: 0, bytes: 0 })
      row.blocks++
      row.bytes += bytes
    }
    block += bytes
  }
  return census
}

/**
 * Writes "EL oom free=N largest=N" when the VM `vm` says it ran out of heap: the VM prints the
 * exception before it unwinds, so the heap is still as the failed allocation found it.
 * `meter` (a HeapMeter of that VM) knows where the heap is, once it has found it.
 */
function reportOutOfHeap(vm, meter, write) {
  const print = vm.dmesg
  // the runtime logs "devs: OOM (N bytes)" just before the exception: the block asked for
  let asked = 0
  vm.dmesg = function (line) {
    const oom = /OOM \((\d+) bytes\)/.exec(line)
    if (oom) asked = Number(oom[1])
    if (line.includes("OutOfMemory")) {
      // (at boot the meter may not have found the heap yet)
      const words = vm.HEAPU32
      const at = meter.at >= 0 && isCollectorAt(words, meter.at) ? meter.at : findCollector(words)
      // kilobytes free and no block as large as the one asked for: a heap in pieces
      const space = at >= 0 ? heapFigures(words, at) : null
      if (space) {
        const census = heapCensus(words, at) ?? {}
        const kinds = Object.entries(census).map(([name, row]) => `${name}=${row.blocks}/${row.bytes}`)
        write(`EL oom free=${space.free} largest=${space.largestFree} asked=${asked} ${kinds.join(" ")}`)
      }
      asked = 0
    }
    return print.call(this, line)
  }
}

module.exports = { HEAP_BYTES, findCollector, heapFigures, heapCensus, HeapMeter, reportHeap, reportOutOfHeap }
