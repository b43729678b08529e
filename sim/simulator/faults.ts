// Link faults as a seeded, deterministic layer over any network model: loss, duplication,
// delay spikes, reordering and partitions (two-way or one-way). Faults change over time
// on a schedule (scenario `at T faults ...`, `at T partition ...`), applied when the
// network is next consulted. With no fault active the layer draws no random number and
// returns the inner model's delays unchanged, so fault-free traces stay exactly as they were.

import type { DuplicationModel, NetworkModel } from "../../src/core/engine"
import type { Frame } from "../../src/core/frame"
import { InputError, keyValues, parseIdArgument, parseNumber } from "../config/input"
import { Rng } from "./rng"

/** Link fault rates; all zero means a healthy network. */
export interface LinkFaults {
  /** Probability that a message is lost, 0..1 (on top of the network's own loss). */
  loss: number
  /** Probability that a message arrives twice, 0..1. */
  duplicate: number
  /** Probability of a delay spike, 0..1, and how long a spike adds. */
  spike: number
  spikeDelay: number
  /** Each message gets an extra delay drawn uniformly from [0, reorder): messages overtake each other. */
  reorder: number
}

export function noLinkFaults(): LinkFaults {
  return { loss: 0, duplicate: 0, spike: 0, spikeDelay: 0, reorder: 0 }
}

export function hasLinkFaults(f: LinkFaults): boolean {
  return f.loss > 0 || f.duplicate > 0 || (f.spike > 0 && f.spikeDelay > 0) || f.reorder > 0
}

/** Directed links cut: `from` ids cannot reach `to` ids. */
export interface Cut {
  from: number[]
  to: number[]
}

/** A change of the network's faults at a time. */
export type FaultChange =
  | { time: number; type: "links"; faults: LinkFaults }
  | { time: number; type: "partition"; cuts: Cut[]; text: string }
  | { time: number; type: "heal" }

/** Seed salt: fault draws come from their own stream, so the inner model's draws are unchanged. */
const FAULT_SEED_SALT = 0x9e3779b9

export class FaultyNetwork implements NetworkModel, DuplicationModel {
  private rng: Rng
  private links = noLinkFaults()
  private active = false
  /** blocked[src] = destinations src cannot reach. */
  private blocked = new Map<number, Set<number>>()
  private schedule: FaultChange[] = []
  private next = 0
  /** The inner model's delay for the last message asked about (a duplicate's base). */
  private lastBase = 0
  /** Counters for reports. */
  lostByFaults = 0
  blockedByPartition = 0
  spikes = 0

  constructor(
    private inner: NetworkModel,
    seed: number,
  ) {
    this.rng = new Rng((seed ^ FAULT_SEED_SALT) >>> 0)
  }

  /** Adds a change at `time` (kept in time order; equal times in the order added). */
  at(change: FaultChange) {
    let i = this.schedule.length
    while (i > this.next && this.schedule[i - 1].time > change.time) i--
    this.schedule.splice(i, 0, change)
  }

  /** Applies the changes due at or before `now`. */
  private advance(now: number) {
    while (this.next < this.schedule.length && this.schedule[this.next].time <= now) {
      const c = this.schedule[this.next++]
      if (c.type === "links") this.links = { ...c.faults }
      else if (c.type === "heal") this.blocked.clear()
      else for (const cut of c.cuts) for (const s of cut.from) {
        let set = this.blocked.get(s)
        if (!set) this.blocked.set(s, (set = new Set()))
        for (const d of cut.to) set.add(d)
      }
      this.active = hasLinkFaults(this.links) || this.blocked.size > 0
    }
  }

  delay(src: number, dst: number, frame: Frame, now: number): number {
    this.advance(now)
    const base = this.inner.delay(src, dst, frame, now)
    this.lastBase = base
    if (!this.active || base < 0) return base
    if (this.blocked.get(src)?.has(dst)) {
      this.blockedByPartition++
      return -1
    }
    return this.perturb(base)
  }

  duplicateDelay(src: number, dst: number, frame: Frame, now: number): number {
    if (!this.active || this.links.duplicate <= 0) return -1
    if (this.blocked.get(src)?.has(dst)) return -1
    if (this.rng.next() >= this.links.duplicate) return -1
    // the copy (a retransmission the link layer thought lost) trails the original
    return this.lastBase + this.rng.next() * Math.max(this.lastBase, this.links.reorder)
  }

  private perturb(base: number): number {
    const f = this.links
    if (f.loss > 0 && this.rng.next() < f.loss) {
      this.lostByFaults++
      return -1
    }
    let d = base
    if (f.reorder > 0) d += this.rng.next() * f.reorder
    if (f.spike > 0 && f.spikeDelay > 0 && this.rng.next() < f.spike) {
      this.spikes++
      d += f.spikeDelay * (0.5 + this.rng.next())
    }
    return d
  }

  frames(to: number[], frame: Frame): number {
    return this.inner.frames(to, frame)
  }
}

/** `loss=0.1 duplicate=0.05 spike=0.02 spike-delay=50 reorder=3`, or `none`. */
export function parseLinkFaults(args: string[], where: string): LinkFaults {
  const f = noLinkFaults()
  if (args.length === 1 && args[0] === "none") return f
  if (args.length === 0) throw new InputError("expected key=value pairs (loss, duplicate, spike, spike-delay, reorder) or 'none'", where)
  for (const [key, value] of keyValues(args, where)) {
    const at = `${where}: ${key}`
    switch (key) {
      case "loss":
        f.loss = parseNumber(value, at, 0, 1)
        break
      case "duplicate":
        f.duplicate = parseNumber(value, at, 0, 1)
        break
      case "spike":
        f.spike = parseNumber(value, at, 0, 1)
        break
      case "spike-delay":
        f.spikeDelay = parseNumber(value, at, 0, 1e9)
        break
      case "reorder":
        f.reorder = parseNumber(value, at, 0, 1e9)
        break
      default:
        throw new InputError(`unknown key '${key}'; known: loss, duplicate, spike, spike-delay, reorder`, where)
    }
  }
  if (f.spike > 0 && f.spikeDelay <= 0) throw new InputError("spike= needs spike-delay= (how long a spike adds)", where)
  return f
}

/**
 * `1,2|3,4,5`: groups that cannot reach each other (processes not named form one more group);
 * `1,2->3,4`: one way only, 1 and 2 cannot reach 3 and 4.
 */
export function parsePartition(text: string, members: number[], where: string): Cut[] {
  const check = (ids: number[]) => {
    for (const id of ids)
      if (!members.includes(id)) throw new InputError(`process ${id} is not in the cluster`, where)
  }
  if (text.includes("->")) {
    const sides = text.split("->")
    if (sides.length !== 2) throw new InputError(`expected FROM->TO, got '${text}'`, where)
    const from = parseIdArgument(sides[0], where)
    const to = parseIdArgument(sides[1], where)
    check(from)
    check(to)
    for (const id of from) if (to.includes(id)) throw new InputError(`process ${id} is on both sides`, where)
    return [{ from, to }]
  }
  const groups = text.split("|").map((g) => parseIdArgument(g, where))
  const named = new Set<number>()
  for (const g of groups) {
    check(g)
    for (const id of g) {
      if (named.has(id)) throw new InputError(`process ${id} is in two groups`, where)
      named.add(id)
    }
  }
  const rest = members.filter((id) => !named.has(id))
  if (rest.length) groups.push(rest)
  if (groups.length < 2) throw new InputError(`a partition needs at least two groups, got '${text}'`, where)
  const cuts: Cut[] = []
  for (let a = 0; a < groups.length; a++)
    for (let b = 0; b < groups.length; b++) if (a !== b) cuts.push({ from: groups[a], to: groups[b] })
  return cuts
}
