// Link faults as a seeded, deterministic layer over any network model: loss, duplication,
// delay spikes, added delay (in order or not), delays stretched by a factor, and partitions
// (two-way or one-way). Link faults hold for every link, or (`on=IDS`) only for the links
// to and from some processes, on top of those for every link. Faults change over time
// on a schedule (scenario `at T faults ...`, `at T partition ...`), applied when the
// network is next consulted. With no fault active the layer draws no random number and
// returns the inner model's delays unchanged, so fault-free traces stay exactly as they were.

import type { DuplicationModel, NetworkModel } from "../../src/core/engine"
import type { Frame } from "../../src/core/frame"
import { checkMembers, InputError, keyValues, parseIdArgument, parseNumber } from "../config/input"
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
  /** Each message gets an extra delay drawn uniformly from [0, delay), and no message overtakes an earlier one on its link. */
  delay: number
  /** Each message's delay (all of it, the additions above included) is multiplied by a factor drawn uniformly from [1, scale): messages overtake each other. */
  scale: number
  /** The processes whose links (to and from them) these faults hold for, on top of those for every link; empty: every link. */
  on: number[]
}

export function noLinkFaults(): LinkFaults {
  return { loss: 0, duplicate: 0, spike: 0, spikeDelay: 0, reorder: 0, delay: 0, scale: 1, on: [] }
}

export function hasLinkFaults(f: LinkFaults): boolean {
  return f.loss > 0 || f.duplicate > 0 || (f.spike > 0 && f.spikeDelay > 0) || f.reorder > 0 || f.delay > 0 || f.scale > 1
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
  /** Faults on the links of some processes (`on=`), one entry per set of processes named. */
  private scoped: LinkFaults[] = []
  /** Per link `src>dst`: when its last in-order delayed message arrives (`delay=` keeps order). */
  private lastInOrder = new Map<string, number>()
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
  /** When the last frame a fault delayed lands: the network is quiet from then on, once the faults end. */
  heldUntil = 0

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
      if (c.type === "links") this.setLinks(c.faults)
      else if (c.type === "heal") this.blocked.clear()
      else for (const cut of c.cuts) for (const s of cut.from) {
        let set = this.blocked.get(s)
        if (!set) this.blocked.set(s, (set = new Set()))
        for (const d of cut.to) set.add(d)
      }
      this.active = hasLinkFaults(this.links) || this.scoped.length > 0 || this.blocked.size > 0
    }
  }

  /**
   * Faults for every link replace those for every link; faults `on=` some processes replace
   * those on the same processes. No fault for every link (`faults none`) ends them all.
   */
  private setLinks(faults: LinkFaults) {
    if (faults.on.length === 0) {
      this.links = { ...faults }
      if (!hasLinkFaults(faults)) this.scoped = []
      return
    }
    const key = [...faults.on].sort((a, b) => a - b).join(",")
    this.scoped = this.scoped.filter((s) => [...s.on].sort((a, b) => a - b).join(",") !== key)
    if (hasLinkFaults(faults)) this.scoped.push({ ...faults, on: [...faults.on] })
  }

  /** The faults that hold for the link from `src` to `dst`: those for every link first. */
  private faultsOn(src: number, dst: number): LinkFaults[] {
    if (this.scoped.length === 0) return [this.links]
    const list = [this.links]
    for (const s of this.scoped) if (s.on.includes(src) || s.on.includes(dst)) list.push(s)
    return list
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
    return this.held(now, this.perturb(src, dst, base, now))
  }

  private held(now: number, delay: number): number {
    if (delay >= 0 && now + delay > this.heldUntil) this.heldUntil = now + delay
    return delay
  }

  duplicateDelay(src: number, dst: number, frame: Frame, now: number): number {
    if (!this.active) return -1
    if (this.blocked.get(src)?.has(dst)) return -1
    for (const f of this.faultsOn(src, dst)) {
      if (f.duplicate <= 0) continue
      if (this.rng.next() >= f.duplicate) continue
      // the copy (a retransmission the link layer thought lost) trails the original
      return this.held(now, this.lastBase + this.rng.next() * Math.max(this.lastBase, f.reorder))
    }
    return -1
  }

  /** Draws in a fixed order (loss, added delay, reordering, spikes, stretch), and only for faults that are on. */
  private perturb(src: number, dst: number, base: number, now: number): number {
    const list = this.faultsOn(src, dst)
    for (const f of list)
      if (f.loss > 0 && this.rng.next() < f.loss) {
        this.lostByFaults++
        return -1
      }
    let d = base
    let inOrder = false
    for (const f of list)
      if (f.delay > 0) {
        d += this.rng.next() * f.delay
        inOrder = true
      }
    if (inOrder) {
      // no message overtakes an earlier one on its link
      const link = `${src}>${dst}`
      const last = this.lastInOrder.get(link) ?? 0
      if (now + d < last) d = last - now
      this.lastInOrder.set(link, now + d)
    }
    for (const f of list) {
      if (f.reorder > 0) d += this.rng.next() * f.reorder
      if (f.spike > 0 && f.spikeDelay > 0 && this.rng.next() < f.spike) {
        this.spikes++
        d += f.spikeDelay * (0.5 + this.rng.next())
      }
    }
    for (const f of list) if (f.scale > 1) d *= 1 + this.rng.next() * (f.scale - 1)
    return d
  }

  frames(to: number[], frame: Frame): number {
    return this.inner.frames(to, frame)
  }
}

const FAULT_KEYS = "loss, duplicate, spike, spike-delay, reorder, delay, scale, on"

/**
 * `loss=0.1 duplicate=0.05 spike=0.02 spike-delay=50 reorder=3 delay=200 scale=4`, or `none`;
 * `on=IDS` first limits them to the links to and from IDS (`members`: the cluster's ids).
 */
export function parseLinkFaults(args: string[], where: string, members?: number[]): LinkFaults {
  const f = noLinkFaults()
  if (args.length > 0 && args[0].startsWith("on=")) {
    f.on = parseIdArgument(args[0].slice(3), `${where}: on`)
    if (members) checkMembers(f.on, members, `${where}: on`)
    args = args.slice(1)
  }
  if (args.length === 1 && args[0] === "none") return f
  if (args.length === 0) throw new InputError(`expected key=value pairs (${FAULT_KEYS}) or 'none'`, where)
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
      case "delay":
        f.delay = parseNumber(value, at, 0, 1e9)
        break
      case "scale":
        f.scale = parseNumber(value, at, 1, 1e6)
        break
      case "on":
        throw new InputError("on= comes first, before the faults it limits", where)
      default:
        throw new InputError(`unknown key '${key}'; known: ${FAULT_KEYS}`, where)
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
