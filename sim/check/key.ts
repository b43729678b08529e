// The search's compact state key: a state's canonical content (the same that stateText
// writes, model.ts) fed as 32-bit words into two independent hash lanes, giving a 64-bit
// key, kept in the search's fingerprint table (FingerprintTable), with no text built and
// no string kept. Two states with equal texts get equal keys; two with different texts
// share a key with probability about 2^-64 per pair if the lanes mix well (at n states,
// about n^2 / 2^65 for the whole search: 1.4e-7 at 2.3 million).

/** The two lanes of the hash being fed (one key at a time: the search is single-threaded per isolate). */
let h1 = 0
let h2 = 0
const f64 = new Float64Array(1)
const u32 = new Uint32Array(f64.buffer)

export function keyStart() {
  h1 = 0x9747b28c
  h2 = 0x5bd1e995
}

/** One 32-bit word into both lanes (murmur3's block step, two seeds, two multipliers). */
export function keyWord(w: number) {
  let k = Math.imul(w | 0, 0xcc9e2d51)
  k = (k << 15) | (k >>> 17)
  k = Math.imul(k, 0x1b873593)
  h1 ^= k
  h1 = (h1 << 13) | (h1 >>> 19)
  h1 = (Math.imul(h1, 5) + 0xe6546b64) | 0
  let j = Math.imul(w | 0, 0x85ebca6b)
  j = (j << 17) | (j >>> 15)
  j = Math.imul(j, 0xc2b2ae35)
  h2 ^= j
  h2 = (h2 << 11) | (h2 >>> 21)
  h2 = (Math.imul(h2, 9) + 0x52dce729) | 0
}

/** Tags for what is not a plain integer; integers at or above TAG_FLOAT go as floats, so no tag is an integer's word. */
export const TAG_FLOAT = 0x7ffffff0
export const TAG_NULL = 0x7ffffff1
export const TAG_TRUE = 0x7ffffff2
export const TAG_FALSE = 0x7ffffff3
export const TAG_STRING = 0x7ffffff4
export const TAG_ARRAY = 0x7ffffff5
export const TAG_OBJECT = 0x7ffffff6
export const TAG_END = 0x7ffffff7
export const TAG_NONE = 0x7ffffff8

/** A number: small integers as one word, anything else as a tag and its float64's two words. */
export function keyNumber(v: number) {
  if ((v | 0) === v && v < TAG_FLOAT) keyWord(v)
  else {
    f64[0] = v
    keyWord(TAG_FLOAT)
    keyWord(u32[0])
    keyWord(u32[1])
  }
}

export function keyString(s: string) {
  keyWord(s.length)
  for (let i = 0; i < s.length; i++) keyWord(s.charCodeAt(i))
}

function fmix(h: number): number {
  h ^= h >>> 16
  h = Math.imul(h, 0x85ebca6b)
  h ^= h >>> 13
  h = Math.imul(h, 0xc2b2ae35)
  return (h ^ (h >>> 16)) >>> 0
}

/** The key fed so far: [low lane, high lane] written to out. */
export function keyEnd(out: Uint32Array) {
  const a = fmix(h1 ^ h2)
  const b = fmix((h2 + Math.imul(h1, 3)) | 0)
  out[0] = a
  out[1] = b
}

/**
 * A small set of 64-bit keys (an instant's runs): open addressing with linear probing over
 * one Uint32Array (two words a slot, 0/0 empty), grown at half full.
 */
export class StateSet {
  private slots: Uint32Array
  private mask: number
  size = 0

  constructor(capacity = 1 << 16) {
    let c = 1 << 4
    while (c < capacity) c <<= 1
    this.slots = new Uint32Array(2 * c)
    this.mask = c - 1
  }

  /** Adds the key; false when it was there already. */
  add(lo: number, hi: number): boolean {
    if (lo === 0 && hi === 0) hi = 1
    let i = lo & this.mask
    const s = this.slots
    for (;;) {
      const a = s[2 * i]
      const b = s[2 * i + 1]
      if (a === 0 && b === 0) break
      if (a === lo >>> 0 && b === hi >>> 0) return false
      i = (i + 1) & this.mask
    }
    s[2 * i] = lo
    s[2 * i + 1] = hi
    this.size++
    if (2 * this.size > this.mask + 1) this.grow()
    return true
  }

  has(lo: number, hi: number): boolean {
    if (lo === 0 && hi === 0) hi = 1
    let i = lo & this.mask
    const s = this.slots
    for (;;) {
      const a = s[2 * i]
      const b = s[2 * i + 1]
      if (a === 0 && b === 0) return false
      if (a === lo >>> 0 && b === hi >>> 0) return true
      i = (i + 1) & this.mask
    }
  }

  /** Bytes held by the table. */
  bytes(): number {
    return this.slots.byteLength
  }

  forEach(fn: (lo: number, hi: number) => void) {
    const s = this.slots
    for (let i = 0; i < s.length; i += 2) if (s[i] !== 0 || s[i + 1] !== 0) fn(s[i], s[i + 1])
  }

  private grow() {
    const old = this.slots
    const c = 2 * (this.mask + 1)
    this.slots = new Uint32Array(2 * c)
    this.mask = c - 1
    this.size = 0
    for (let i = 0; i < old.length; i += 2) if (old[i] !== 0 || old[i + 1] !== 0) this.add(old[i], old[i + 1])
  }
}

/** A growable array of 32-bit integers (parent links, events, depths). */
export class IntList {
  data: Int32Array
  length = 0
  constructor(capacity = 1 << 16) {
    this.data = new Int32Array(capacity)
  }
  push(v: number) {
    if (this.length === this.data.length) {
      const d = new Int32Array(2 * this.data.length)
      d.set(this.data)
      this.data = d
    }
    this.data[this.length++] = v
  }
  get(i: number): number {
    return this.data[i]
  }
  bytes(): number {
    return this.data.byteLength
  }
}

/** A key's top bits pick its segment of the fingerprint table. */
export const SEGMENT_BITS = 6
export const SEGMENTS = 1 << SEGMENT_BITS
/** A segment doubles past this load (linear probing stays short)... */
export const GROW_AT = 0.75
/** ...and, when the memory budget forbids that, takes keys up to this load, then the search stops. */
export const FULL_AT = 0.9
/** Slots a segment starts with. */
const FIRST_SLOTS = 1 << 10

/**
 * The visited set: 64-bit fingerprints (hash compaction, as TLC's fingerprint set and
 * SPIN's hash-compact), no state kept. Two different states are taken for one with
 * probability about 2^-64 per pair, so the chance that a search of n states left one out
 * is about n^2 / 2^65 (omissionOdds).
 *
 * SEGMENTS tables of open addressing in shared memory, one picked by a key's top bits, each
 * doubled alone past GROW_AT: growth never holds a second whole table beside the first
 * (1/64 of it), and a table 0.375 to 0.75 full takes 11 to 21 bytes a key. Several threads
 * add at once: a slot is claimed by a compare-and-swap on its low word and completed by
 * writing its high word (a reader that meets a claimed slot waits for the high word);
 * neither word is ever 0 in a filled slot (a key's 0 word is mapped to 1). A segment grows
 * only while no other thread adds (parallel.ts).
 */
export class FingerprintTable {
  readonly segments: Int32Array[]
  /** Per segment, shared by every thread: its keys, the count past which it must grow (or is full), and 1 once the budget capped it. */
  readonly counts: Int32Array
  readonly marks: Int32Array
  readonly capped: Int32Array
  private readonly masks: Int32Array

  constructor(
    readonly buffers: SharedArrayBuffer[],
    readonly sharedCounts: SharedArrayBuffer,
  ) {
    this.segments = buffers.map((b) => new Int32Array(b))
    this.counts = new Int32Array(sharedCounts, 0, SEGMENTS)
    this.marks = new Int32Array(sharedCounts, 4 * SEGMENTS, SEGMENTS)
    this.capped = new Int32Array(sharedCounts, 8 * SEGMENTS, SEGMENTS)
    this.masks = new Int32Array(SEGMENTS)
    for (let k = 0; k < SEGMENTS; k++) this.masks[k] = this.segments[k].length / 2 - 1
  }

  /** A table of at least `slots` slots in all. */
  static create(slots = SEGMENTS * FIRST_SLOTS): FingerprintTable {
    let c = 16
    while (c * SEGMENTS < slots) c <<= 1
    const buffers: SharedArrayBuffer[] = []
    for (let k = 0; k < SEGMENTS; k++) buffers.push(new SharedArrayBuffer(8 * c))
    const t = new FingerprintTable(buffers, new SharedArrayBuffer(12 * SEGMENTS))
    t.marks.fill(Math.floor(GROW_AT * c))
    return t
  }

  /** The segment a key's high word picks. */
  static segmentOf(hi: number): number {
    return (hi >>> (32 - SEGMENT_BITS)) & (SEGMENTS - 1)
  }

  /** Adds the key: -1 when it was there already (put there by any thread), 1 when its segment passed its mark (relieve), else 0. */
  add(lo: number, hi: number): number {
    lo |= 0
    hi |= 0
    if (lo === 0) lo = 1
    if (hi === 0) hi = 1
    const seg = (hi >>> (32 - SEGMENT_BITS)) & (SEGMENTS - 1)
    const w = this.segments[seg]
    const mask = this.masks[seg]
    let i = lo & mask
    for (;;) {
      let a = Atomics.load(w, 2 * i)
      if (a === 0) {
        a = Atomics.compareExchange(w, 2 * i, 0, lo)
        if (a === 0) {
          Atomics.store(w, 2 * i + 1, hi)
          return Atomics.add(this.counts, seg, 1) + 1 > Atomics.load(this.marks, seg) ? 1 : 0
        }
      }
      if (a === lo) {
        let b = Atomics.load(w, 2 * i + 1)
        while (b === 0) b = Atomics.load(w, 2 * i + 1)
        if (b === hi) return -1
      }
      i = (i + 1) & mask
    }
  }

  has(lo: number, hi: number): boolean {
    lo |= 0
    hi |= 0
    if (lo === 0) lo = 1
    if (hi === 0) hi = 1
    const seg = FingerprintTable.segmentOf(hi)
    const w = this.segments[seg]
    const mask = this.masks[seg]
    for (let i = lo & mask; ; i = (i + 1) & mask) {
      const a = Atomics.load(w, 2 * i)
      if (a === 0) return false
      if (a === lo && Atomics.load(w, 2 * i + 1) === hi) return true
    }
  }

  size(): number {
    let n = 0
    for (let k = 0; k < SEGMENTS; k++) n += Atomics.load(this.counts, k)
    return n
  }

  bytes(): number {
    let b = 0
    for (const s of this.segments) b += s.byteLength
    return b
  }

  /**
   * Deals with every segment past its mark (no other thread may add meanwhile): doubles it
   * while the table could double within `budget` bytes, else lets it fill to FULL_AT. False
   * when a capped segment is past that too: the table is full.
   */
  relieve(budget: number): boolean {
    let room = true
    for (let k = 0; k < SEGMENTS; k++) {
      if (this.counts[k] <= this.marks[k]) continue
      if (this.capped[k] === 0 && this.mayDouble(k, budget)) this.grow(k)
      else if (this.capped[k] === 0) {
        this.capped[k] = 1
        this.marks[k] = Math.floor(FULL_AT * this.slots(k))
      } else room = false
    }
    return room
  }

  slots(k: number): number {
    return this.masks[k] + 1
  }

  /**
   * Segment k may double when every segment its size or smaller could double within the
   * budget: keys spread evenly, so the first segment to fill stops the search, and a table
   * half doubled would hold no more states than one not doubled.
   */
  private mayDouble(k: number, budget: number): boolean {
    const size = this.segments[k].byteLength
    let after = 0
    for (const w of this.segments) after += w.byteLength <= size ? 2 * w.byteLength : w.byteLength
    return after <= budget
  }

  /** Doubles segment k. */
  grow(k: number) {
    const old = this.segments[k]
    const buffer = new SharedArrayBuffer(2 * old.byteLength)
    const w = new Int32Array(buffer)
    const mask = w.length / 2 - 1
    for (let j = 0; j < old.length; j += 2) {
      const lo = old[j]
      if (lo === 0) continue
      let i = lo & mask
      while (w[2 * i] !== 0) i = (i + 1) & mask
      w[2 * i] = lo
      w[2 * i + 1] = old[j + 1]
    }
    this.replaceSegment(k, buffer)
    this.marks[k] = Math.floor(GROW_AT * this.slots(k))
  }

  /** Takes the buffers of segments another thread grew. */
  update(buffers: SharedArrayBuffer[]) {
    for (let k = 0; k < SEGMENTS; k++) this.replaceSegment(k, buffers[k])
  }

  private replaceSegment(k: number, buffer: SharedArrayBuffer) {
    this.buffers[k] = buffer
    this.segments[k] = new Int32Array(buffer)
    this.masks[k] = this.segments[k].length / 2 - 1
  }

  forEach(fn: (lo: number, hi: number) => void) {
    for (const w of this.segments) for (let i = 0; i < w.length; i += 2) if (w[i] !== 0) fn(w[i], w[i + 1])
  }
}

/**
 * The odds that a search of n states left one out, its fingerprints being 64-bit: each new
 * state's key meets one of those before it with probability (its index) / 2^64, about n^2 /
 * 2^65 in all (TLC's "calculated" odds, with n distinct states).
 */
export function omissionOdds(states: number): number {
  return Math.min(1, (states * states) / 2 ** 65)
}
