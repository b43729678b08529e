// What `electlab check` writes of a state beyond the nodes' plain fields: values whose
// exact figure cannot change what any node does are written in a form that states with
// equal futures share (docs/algorithms.md, "Exhaustive check", "The state").
//
// - A ring message's seq is only ever compared for equality, and a process gives the next
//   one as its last plus one. So a seq is written as who gave it and how many seqs that
//   process has given since (its age): states that differ by a shift of one process's
//   seqs are one state. Each process's seqs lie between its first and its last (drawn far
//   apart at construction); a value outside every range is written as it is.
// - A ring process remembers the messages it handled (`seen`) to drop their copies; a
//   remembered seq that no message in flight or kept for a resend carries can never come
//   again, so it is left out, as long as the buffer is not full (then its order matters).
//   Two states merged this way may remember different numbers of such seqs; the buffer
//   never fills as long as each remembers fewer than half of it, which the search checks
//   (`seenNearlyFull`: the search is then not complete).
// - An acknowledged link's deadlines are written relative to the node's clock, one already
//   reached as 0 (the link only ever asks whether a deadline has come); its wait as it is,
//   and the time left until a grown wait falls back to T the same way (0 for a wait of T,
//   which that time never changes).

import type { AckLink } from "../../src/core/ack-link"
import type { ElectionNode } from "../../src/core/node"
import { SEEN_MESSAGES, seqOfAckTag } from "../../src/core/ring-base"
import { type Frame, Kind } from "../../src/core/frame"
import { hintsOf } from "./hints"
import { keyNumber, keyWord, TAG_NULL } from "./key"

/** What the text of one state depends on besides each node's own fields. */
export interface TextContext {
  /** firstSeq[i], lastSeq[i]: the range of seqs node i has given (-1: not a ring node). */
  firstSeq: number[]
  lastSeq: number[]
  /** Seqs that some message in flight or kept for a resend carries. */
  live: Set<number>
  /** Equal keys, equal texts for a node with equal fields. */
  key: string
  /** Some node remembers half of its buffer or more: leaving seqs out may not be exact. */
  seenNearlyFull: boolean
}

/** A ring node's fields this module writes: its last seq, its link, its seen tags. */
interface RingFields {
  lastSeq: number
  link: AckLink
  seen: number[]
}

/** The fields of a node whose algorithm's hints name them (`seqs`, hints.ts), or null: not a ring node. */
function ringFields(node: ElectionNode): RingFields | null {
  const read = hintsOf(node.algorithm).seqsOf
  if (!read) return null
  const [lastSeq, link, seen] = read(node)
  return { lastSeq, link, seen }
}

/** A ring node remembers half of its buffer or more (leaving seqs out may then not be exact). */
export function seenNearlyFull(node: ElectionNode): boolean {
  const r = ringFields(node)
  return r !== null && 2 * r.seen.length >= SEEN_MESSAGES
}

/** The first seq each node will give (its drawn start plus one), from the initial state. */
export function firstSeqs(nodes: ElectionNode[]): number[] {
  return nodes.map((n) => {
    const r = ringFields(n)
    return r ? r.lastSeq + 1 : -1
  })
}

export function textContext(nodes: ElectionNode[], firstSeq: number[], messages: readonly { frame: Frame }[]): TextContext | null {
  // every node runs one algorithm: a state without ring nodes has no context
  if (nodes.length === 0 || !hintsOf(nodes[0].algorithm).seqsOf) return null
  const rings = nodes.map(ringFields)
  const lastSeq = rings.map((r) => r?.lastSeq ?? -1)
  const live = new Set<number>()
  let seenNearlyFull = false
  for (const m of messages) if (keyedSeq(m.frame) !== 0) live.add(m.frame.seq)
  for (const r of rings) {
    if (!r) continue
    if (2 * r.seen.length >= SEEN_MESSAGES) seenNearlyFull = true
    for (const f of r.link.frames) if (f && f.seq !== 0) live.add(f.seq)
    for (const t of r.link.tags) if (seqOfAckTag(t) !== 0) live.add(seqOfAckTag(t))
  }
  const key = lastSeq.join(",") + "/" + [...live].sort((a, b) => a - b).join(",")
  return { firstSeq, lastSeq, live, key, seenNearlyFull }
}

/**
 * A frame's seq as the state holds it: a heartbeat's number is read only by the adaptive
 * detector, which the check does not run, and would make every period a new state.
 */
export function keyedSeq(f: Frame): number {
  return f.kind === Kind.HEARTBEAT ? 0 : f.seq
}

/** A seq as who gave it and its age, or as it is. */
export function seqName(ctx: TextContext | null, seq: number): string {
  if (seq === 0 || !ctx) return String(seq)
  for (let i = 0; i < ctx.lastSeq.length; i++)
    if (ctx.firstSeq[i] >= 0 && seq >= ctx.firstSeq[i] && seq <= ctx.lastSeq[i]) return `${i}~${ctx.lastSeq[i] - seq}`
  return `=${seq}`
}

export function frameTextNamed(f: Frame, ctx: TextContext | null): string {
  return `${f.kind},${f.epoch},${f.src},${f.dst},${f.initiator},${f.bid},${seqName(ctx, keyedSeq(f))},${f.list.join(".")}`
}

/**
 * The text of a ring node's field `key` under the context, or null when the field is
 * not one this module writes (the caller writes it plainly).
 */
export function ringFieldText(node: ElectionNode, key: string, clock: number, ctx: TextContext | null): string | null {
  const r = ringFields(node)
  if (!r || !ctx) return null
  const [LAST_SEQ, LINK, SEEN] = hintsOf(node.algorithm).seqs
  if (key === LAST_SEQ) return "" // always its own age 0; the others' ranges come with the seqs
  if (key === LINK) {
    const l = r.link
    let s = "["
    for (let k = 0; k < l.dsts.length; k++) {
      const tag = l.tags[k]
      const seq = seqOfAckTag(tag)
      const f = l.frames[k]
      s += `${l.dsts[k]}:${tag - seq}+${seqName(ctx, seq)}:${f ? frameTextNamed(f, ctx) : "_"}@${Math.max(l.deadlines[k] - clock, 0)};`
    }
    return s + `]wait ${l.wait} until ${grownWaitLeft(l, clock)}`
  }
  if (key === SEEN) {
    if (r.seen.length >= SEEN_MESSAGES) return null // full: its order decides what goes next
    const kept: string[] = []
    for (const tag of r.seen) {
      const seq = seqOfAckTag(tag)
      if (!ctx.live.has(seq)) continue
      kept.push(`${tag - seq}+${seqName(ctx, seq)}`)
    }
    return "{" + kept.sort().join(",") + "}"
  }
  return null
}

// ---- the same, as words of the search's key (key.ts); equal texts, equal words ----

/** A seq as who gave it and its age (tag 1), or as it is (tag 0; tag 2 when outside every range). */
export function keySeq(ctx: TextContext | null, seq: number) {
  if (seq === 0 || !ctx) {
    keyWord(0)
    keyNumber(seq)
    return
  }
  for (let i = 0; i < ctx.lastSeq.length; i++)
    if (ctx.firstSeq[i] >= 0 && seq >= ctx.firstSeq[i] && seq <= ctx.lastSeq[i]) {
      keyWord(1)
      keyWord(i)
      keyNumber(ctx.lastSeq[i] - seq)
      return
    }
  keyWord(2)
  keyNumber(seq)
}

export function keyFrame(f: Frame, ctx: TextContext | null) {
  keyNumber(f.kind)
  keyNumber(f.epoch)
  keyNumber(f.src)
  keyNumber(f.dst)
  keyNumber(f.initiator)
  keyNumber(f.bid)
  keySeq(ctx, keyedSeq(f))
  keyWord(f.list.length)
  for (let i = 0; i < f.list.length; i++) keyNumber(f.list[i])
}

/** The time left until a grown wait falls back to T (0 for a wait of T). */
function grownWaitLeft(l: AckLink, clock: number): number {
  return l.wait > l.timeout ? Math.max(l.waitUntil - clock, 0) : 0
}

/** ringFieldText's words: true when the field is one this module writes (else the caller writes it plainly). */
export function keyRingField(node: ElectionNode, key: string, clock: number, ctx: TextContext | null): boolean {
  const r = ringFields(node)
  if (!r || !ctx) return false
  const [LAST_SEQ, LINK, SEEN] = hintsOf(node.algorithm).seqs
  if (key === LAST_SEQ) return true
  if (key === LINK) {
    const l = r.link
    keyWord(l.dsts.length)
    for (let k = 0; k < l.dsts.length; k++) {
      const tag = l.tags[k]
      const seq = seqOfAckTag(tag)
      const f = l.frames[k]
      keyNumber(l.dsts[k])
      keyNumber(tag - seq)
      keySeq(ctx, seq)
      if (f) keyFrame(f, ctx)
      else keyWord(TAG_NULL)
      keyNumber(Math.max(l.deadlines[k] - clock, 0))
    }
    keyNumber(l.wait)
    keyNumber(grownWaitLeft(l, clock))
    return true
  }
  if (key === SEEN) {
    if (r.seen.length >= SEEN_MESSAGES) return false
    // the kept entries as a multiset: (kind and initiator, giver or -1, age or seq), sorted
    const kept: number[][] = []
    for (const tag of r.seen) {
      const seq = seqOfAckTag(tag)
      if (!ctx.live.has(seq)) continue
      let giver = -1
      let value = seq
      for (let i = 0; i < ctx.lastSeq.length; i++)
        if (ctx.firstSeq[i] >= 0 && seq >= ctx.firstSeq[i] && seq <= ctx.lastSeq[i]) {
          giver = i
          value = ctx.lastSeq[i] - seq
          break
        }
      kept.push([tag - seq, giver, value])
    }
    kept.sort((a, b) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2])
    keyWord(kept.length)
    for (const e of kept) for (const v of e) keyNumber(v)
    return true
  }
  return false
}
