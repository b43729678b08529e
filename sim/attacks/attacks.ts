// The attack catalogue, in the manner of Jepsen's nemeses: each attack is a named function
// with an attacker's means only. It records the wire, injects frames, replays, reflects,
// floods, holds frames back, forges hints (an MQTT last will, a duplicate id on the bus); it
// never holds the group key. The test (test/attacks.test.ts) runs each one against every
// algorithm and checks the property: nobody's coordinator changes compared with the same run
// without the attacker; for `denial` attacks, the cluster is back within `recoverMs`.

import { randomBytes } from "node:crypto"
import { FRESH_MS, PROOF_BURST, peerRecord } from "../../src/core/auth"
import { Role } from "../../src/core/contract"
import { type Algorithm, BROADCAST, MAX_ALGORITHM } from "../../src/core/frame"
import type { NodeDriver } from "../../src/firmware/driver"
import { Cluster, type ClusterOptions, type WireFrame } from "./cluster"

export interface AttackContext {
  cluster: Cluster
  /** Moves the clock (fake timers) and runs what falls due. */
  advance(ms: number): Promise<void>
  /** Frames an earlier run with the same key recorded (another boot of every node). */
  previousSession: WireFrame[]
  /** What an attack's own measurements found wrong (with or without the attacker); empty when all is well. */
  problems?: string[]
  /** What an attack measured, in a few words (a denial's length): the catalogue prints it. */
  notes?: string[]
}

/** Each attack's short name: the virtual lab's version of it (sim/attacks/lab-attacks.ts) goes by it. */
export type AttackKey =
  | "replay-fresh"
  | "replay-1s"
  | "replay-3s"
  | "replay-60s"
  | "replay-after-reboot"
  | "reflection"
  | "challenge-replay-flood"
  | "challenge-mix-flood"
  | "proof-hold-back"
  | "forged-leave"
  | "duplicate-id"
  | "bad-tag-flood"
  | "old-boot-eviction"
  | "proof-starvation-follower"
  | "proof-starvation-coordinator"
  | "relay-other-cluster"
  | "relay-other-algorithm"
  | "replay-into-reboot"
  | "failover-hold-back"

export interface Attack {
  key: AttackKey
  name: string
  /** "safety": nobody's coordinator may change; "denial": it may deny service, then recovers. */
  property: "safety" | "denial"
  /** For denial attacks: the bound on recovery after the attack ends, ms. */
  recoverMs?: number
  /** The coordinator each node names at the end without the attacker (-1: down); by default the highest, everywhere. */
  final?(ids: number[]): number[]
  /** The control run (no attacker) does the same with `attacking` false: reboots, waits. */
  run(ctx: AttackContext, attacking: boolean): Promise<void>
}

/** Attacker's send: bytes on the wire from nobody in particular. */
export function inject(c: Cluster, bytes: number[], to: number, after = 0) {
  c.deliverLater({ at: c.now(), from: -1, to, bytes }, c.delay + after)
}

/** Every node receives a forged leave for `id` (the broker delivers the last will to all). */
async function forgeLeave(c: Cluster, id: number) {
  for (const b of c.boards) if (b.id !== id) await b.driver.peerLeft(id)
}

/**
 * The bus reports our id with another boot nonce (a device advertises the victim's id).
 * Drivers without the hint API (older firmware) flagged the duplicate at once.
 */
async function advertiseId(driver: NodeDriver) {
  const d = driver as NodeDriver & { duplicateIdReported?: () => Promise<void> }
  if (d.duplicateIdReported) await d.duplicateIdReported()
  else d.flagProblem(`another board on the bus has node id ${driver.config.nodeId}`)
}

/** Replays every frame recorded in [from, to) to its destination and to every node. */
function replayAll(c: Cluster, frames: WireFrame[], spacing = 1) {
  let i = 0
  for (const f of frames) {
    inject(c, f.bytes, f.to, i * spacing)
    if (f.to !== BROADCAST) inject(c, f.bytes, BROADCAST, i * spacing)
    i++
  }
}

export const AGES: ["fresh" | "1s" | "3s" | "60s", number][] = [
  ["fresh", 0],
  ["1s", 1000],
  ["3s", 3000],
  ["60s", 60000],
]

/** Replays of every frame kind recorded at boot (election, heartbeats, challenges, proofs) at an age. */
function replayAtAge(label: "fresh" | "1s" | "3s" | "60s", age: number): Attack {
  return {
    key: `replay-${label}`,
    name: `replay every frame kind, ${label} old`,
    property: "safety",
    async run(ctx, attacking) {
      const c = ctx.cluster
      // the boot election was recorded from t = 0; replay each frame `age` after it was sent
      const frames = c.recorded.filter((f) => f.at < 1500)
      const wait = Math.max(0, 1500 + age - c.now())
      await ctx.advance(wait)
      if (attacking) {
        if (age === 0) {
          // fresh: each frame of the last second as it goes by, again at once
          replayAll(c, c.recorded.filter((f) => f.at >= c.now() - 1000))
        } else replayAll(c, frames)
      }
      await ctx.advance(3000)
    },
  }
}

/** A follower reboots; the attacker then replays everything recorded before, to everyone. */
const replayAfterReboot: Attack = {
  key: "replay-after-reboot",
  name: "replay every frame kind after a reboot (of the sender and of the receiver)",
  property: "safety",
  async run(ctx, attacking) {
    const c = ctx.cluster
    const before = c.recorded.slice()
    await c.boot(1)
    await ctx.advance(2000)
    if (attacking) replayAll(c, before)
    await ctx.advance(3000)
    // and frames of an earlier run (same key, every node another boot)
    if (attacking) replayAll(c, ctx.previousSession)
    await ctx.advance(3000)
  },
}

/** Each frame sent back to its sender, and to every third node, as it goes by. */
const reflection: Attack = {
  key: "reflection",
  name: "reflection: every frame back to its sender and to third nodes",
  property: "safety",
  async run(ctx, attacking) {
    const c = ctx.cluster
    if (attacking)
      c.intercept = (f) => {
        for (const b of c.ids) if (b !== f.to) inject(c, f.bytes, b)
        return "pass"
      }
    await c.boot(1) // challenges and proofs flow too
    await ctx.advance(4000)
    c.intercept = null
    await ctx.advance(2000)
  },
}

/**
 * The challenge replay flood: node 1's start-up hello (a broadcast CHALLENGE), recorded once,
 * replayed 6,000 times to the coordinator (the highest id) at 50 a millisecond.
 */
export const CHALLENGE_FLOOD_COUNT = 6000
export const challengeReplayFlood: Attack = {
  key: "challenge-replay-flood",
  name: "challenge replay flood (6,000 copies of a recorded hello at 50/ms)",
  property: "safety",
  async run(ctx, attacking) {
    const c = ctx.cluster
    const hello = c.recorded.find((f) => f.from === 1 && Cluster.kindOf(f.bytes) === "challenge")
    if (!hello) throw new Error("attack: no hello recorded")
    if (attacking) for (let i = 0; i < CHALLENGE_FLOOD_COUNT; i++) inject(c, hello.bytes, c.highest(), Math.floor(i / 50))
    await ctx.advance(10000)
  },
}

/** Every challenge recorded so far (distinct values), replayed round-robin 6,000 times at 50/ms. */
const challengeMixFlood: Attack = {
  key: "challenge-mix-flood",
  name: "challenge flood of every recorded challenge value",
  property: "safety",
  async run(ctx, attacking) {
    const c = ctx.cluster
    await c.boot(1) // more challenges to record
    await ctx.advance(2000)
    const challenges = c.recorded.filter((f) => Cluster.kindOf(f.bytes) === "challenge")
    if (attacking)
      for (let i = 0; i < CHALLENGE_FLOOD_COUNT; i++) {
        const f = challenges[i % challenges.length]
        for (const to of c.ids) inject(c, f.bytes, to, Math.floor(i / 50))
      }
    await ctx.advance(8000)
  },
}

/**
 * Proof hold-back: node 1 reboots; every proof on the wire is held back 1.5 s (a man in the
 * middle) while the attacker replays frames recorded 3 s before.
 */
const proofHoldBack: Attack = {
  key: "proof-hold-back",
  name: "proof hold-back (1.5 s) with replays of 3 s old frames",
  property: "denial",
  recoverMs: 3000,
  async run(ctx, attacking) {
    const c = ctx.cluster
    if (attacking) c.intercept = (f) => (Cluster.kindOf(f.bytes) === "proof" ? 1500 : "pass")
    const start = c.now()
    await c.boot(1)
    await ctx.advance(3000)
    if (attacking) replayAll(c, c.recorded.filter((f) => f.at >= start && f.at < start + 500))
    await ctx.advance(3000)
    c.intercept = null
  },
}

/** A forged MQTT last will of the coordinator, delivered to every node; then of every node. */
const forgedLeave: Attack = {
  key: "forged-leave",
  name: "forged leave of the coordinator (and of every node)",
  property: "safety",
  async run(ctx, attacking) {
    const c = ctx.cluster
    if (attacking) await forgeLeave(c, c.highest())
    await ctx.advance(2000)
    if (attacking) for (const id of c.ids) await forgeLeave(c, id)
    await ctx.advance(2000)
  },
}

/** A device on the bus advertises every node's id with another boot nonce. */
const duplicateIdReport: Attack = {
  key: "duplicate-id",
  name: "duplicate-id advertisement of every node",
  property: "safety",
  async run(ctx, attacking) {
    const c = ctx.cluster
    if (attacking) for (const b of c.boards) await advertiseId(b.driver)
    await ctx.advance(3000)
  },
}

/** 2,000 frames with random tags: copies of recorded frames with the tag replaced, and random bytes. */
export const BAD_TAG_COUNT = 2000
const badTagFlood: Attack = {
  key: "bad-tag-flood",
  name: "bad-tag flood (2,000 frames in 1 s)",
  property: "safety",
  async run(ctx, attacking) {
    const c = ctx.cluster
    const frames = c.recorded.filter((f) => f.bytes.length > 8)
    if (attacking)
      for (let i = 0; i < BAD_TAG_COUNT; i++) {
        const f = frames[i % frames.length].bytes.slice()
        const tag = randomBytes(8)
        for (let j = 0; j < 8; j++) f[f.length - 8 + j] = tag[j]
        inject(c, f, i % 2 === 0 ? BROADCAST : c.ids[i % c.ids.length], Math.floor(i / 2))
      }
    await ctx.advance(3000)
  },
}

/**
 * Old-boot replays: node 1 reboots, and while it meets the others the attacker floods it
 * with frames of an earlier run (other boots of every node, validly tagged).
 */
const oldBootEviction: Attack = {
  key: "old-boot-eviction",
  name: "old-boot replays while a rebooted node holds genuine frames",
  property: "denial",
  recoverMs: 2000,
  async run(ctx, attacking) {
    const c = ctx.cluster
    const old = ctx.previousSession.filter((f) => f.from !== 1)
    await c.boot(1)
    if (attacking) for (let round = 0; round < 20; round++) for (let i = 0; i < old.length; i++) inject(c, old[i].bytes, 1, round * 100 + (i % 100))
    await ctx.advance(2500)
  },
}

/** Earlier boots of the victim whose challenges the proof-starvation attacker records. */
export const STARVATION_EARLIER_BOOTS = 3
/** Each replay stream sends one recorded challenge per this many ms. */
export const STARVATION_SPACING_MS = 10
/** How long the replays run. */
export const STARVATION_MS = 15000
/** After the reboot, one coordinator everywhere within this, and for the rest of the attack. */
export const STARVATION_SETTLE_MS = 3000
/** After the reboot, every peer proves the rebooted board's new boot (and it proves them) within this. */
export const STARVATION_PROVEN_MS = 1000

/** Whether every other board took `id`'s current boot as proven, and `id` every other board's. */
function provenBothWays(c: Cluster, id: number): boolean {
  const auth = (b: number) => c.board(b).driver.auth!
  const knows = (on: number, of: number) => peerRecord(auth(on), of)?.nonce === auth(of).nonce
  return c.ids.every((o) => o === id || (knows(o, id) && knows(id, o)))
}

/**
 * Proof starvation: the victim reboots a few times while the attacker records the challenges
 * of each boot, both ways (and harvests more: stale frames replayed each way make the
 * receiver challenge). At the victim's next reboot it replays, one per 10 ms per stream, the
 * others' old challenges to the victim and the victim's old challenges to each of the others:
 * challenges of boots the receiver has not proven, which must not use up the proofs the new
 * boot's genuine challenges need.
 */
function proofStarvation(key: AttackKey, name: string, victimOf: (c: Cluster) => number): Attack {
  return {
    key,
    name,
    property: "safety",
    async run(ctx, attacking) {
      const c = ctx.cluster
      const v = victimOf(c)
      const start = c.recorded.length
      let lastBootAt = 0
      for (let boot = 0; boot < STARVATION_EARLIER_BOOTS; boot++) {
        const from = c.recorded.length
        lastBootAt = c.now()
        await c.boot(v)
        await ctx.advance(2500)
        // sealed frames recorded before, by now older than FRESH_MS: each copy makes its receiver
        // challenge the sender (a stale frame of a proven boot, or one of a boot it cannot vouch for)
        const sealed = c.recorded.slice(0, from).filter((f) => Cluster.kindOf(f.bytes).startsWith("kind"))
        for (let round = 0; attacking && round < 8; round++) {
          for (const o of c.ids) {
            if (o === v) continue
            const to = (f: WireFrame, id: number) => f.to === id || f.to === BROADCAST
            const ofV = sealed.find((f) => f.from === v && to(f, o))
            const ofO = sealed.find((f) => f.from === o && to(f, v))
            if (ofV) inject(c, ofV.bytes, o)
            if (ofO) inject(c, ofO.bytes, v)
          }
          await ctx.advance(300)
        }
        await ctx.advance(attacking ? 500 : 2900)
      }
      const challenges = c.recorded.slice(start).filter((f) => Cluster.kindOf(f.bytes) === "challenge")
      // per other board: its challenges to the victim (stream A), the victim's to it (stream B)
      const streams: [WireFrame[], number][] = []
      for (const o of c.ids) {
        if (o === v) continue
        streams.push([challenges.filter((f) => f.from === o && f.to === v), v])
        // (not those of the victim's last boot: the other boards still take it as proven, and refuse them by their clock)
        streams.push([challenges.filter((f) => f.from === v && f.at < lastBootAt && (f.to === o || f.to === BROADCAST)), o])
      }
      if (attacking) {
        // from half a second before the reboot, so that the new boot meets emptied rates
        for (const [frames, to] of streams)
          if (frames.length > 0)
            for (let i = 0; i * STARVATION_SPACING_MS < STARVATION_MS; i++) inject(c, frames[i % frames.length].bytes, to, i * STARVATION_SPACING_MS)
      }
      await ctx.advance(500)
      const rebootAt = c.now()
      await c.boot(v)
      // as its hello goes by, PROOF_BURST + 1 copies at once to the new boot: its fresh rate too
      if (attacking) for (const [frames, to] of streams) if (to === v) for (let i = 0; i < Math.min(PROOF_BURST + 1, frames.length); i++) inject(c, frames[frames.length - 1 - i].bytes, v)
      let provenAt = -1
      const split: string[] = []
      for (let t = 0; t < STARVATION_MS - 500; t += 50) {
        await ctx.advance(50)
        const since = c.now() - rebootAt
        if (provenAt < 0 && provenBothWays(c, v)) provenAt = since
        const named = new Set(c.coordinators().filter((x) => x >= 0))
        if (since > STARVATION_SETTLE_MS && named.size > 1 && split.length < 3) split.push(`${since} ms after the reboot: coordinators ${c.coordinators()}`)
      }
      if (provenAt < 0 || provenAt > STARVATION_PROVEN_MS) ctx.problems?.push(`board ${v} and the others proven both ways ${provenAt < 0 ? "never" : `${provenAt} ms`} after its reboot`)
      ctx.problems?.push(...split)
    },
  }
}

const proofStarvationFollower = proofStarvation("proof-starvation-follower", "proof starvation: old challenges replayed both ways at a follower's reboot", (c) => c.ids[0])
const proofStarvationCoordinator = proofStarvation("proof-starvation-coordinator", "proof starvation: old challenges replayed both ways at the coordinator's reboot", (c) => c.highest())

/** The coordinator node `id` names as a follower or coordinator, -1 otherwise. */
function named(c: Cluster, id: number): number {
  const d = c.board(id).driver
  return d.role() === Role.Follower || d.role() === Role.Coordinator ? d.coordinator() : -1
}

/**
 * Watches the cluster every 10 ms for `ms`: the longest stretch node `id` followed a
 * coordinator other than `expected`, and the first moment two nodes held the coordinator role.
 */
async function watchFollowing(ctx: AttackContext, id: number, expected: number, ms: number): Promise<{ longestMs: number; twoLeaders: string | null }> {
  const c = ctx.cluster
  let longestMs = 0
  let since = -1
  let twoLeaders: string | null = null
  for (let t = 0; t < ms; t += 10) {
    await ctx.advance(10)
    const other = named(c, id) >= 0 && named(c, id) !== expected
    if (other && since < 0) since = c.now() - 10
    if (since >= 0) longestMs = Math.max(longestMs, c.now() - since)
    if (!other) since = -1
    const leaders = c.boards.filter((b) => b.driver.role() === Role.Coordinator).map((b) => b.id)
    if (leaders.length > 1 && !twoLeaders) twoLeaders = `${t + 10} ms in: ${leaders.join(" and ")} lead`
  }
  return { longestMs, twoLeaders }
}

/**
 * The last 2 s replayed into a reboot: the coordinator crashes and comes back (the next board
 * leads meanwhile), a follower reboots, and the attacker replays to it every frame the others
 * sent in the 2 s before, one a millisecond. They are genuine frames of the senders' current
 * boots, inside the freshness window, and the rebooted board heard none of them; but they were
 * sent before it booted, so it takes none (src/core/auth.ts). Before that rule it joined the
 * failover's election as if it were on and followed the next board (echo at 12 boards: 2.3 s).
 */
const replayIntoReboot: Attack = {
  key: "replay-into-reboot",
  name: "the last 2 s, a failover in them, replayed to a follower as it reboots",
  property: "safety",
  async run(ctx, attacking) {
    const c = ctx.cluster
    const top = c.highest()
    const victim = c.ids[0]
    await c.board(top).driver.setCrashed(true)
    await ctx.advance(1500)
    await c.board(top).driver.setCrashed(false)
    await ctx.advance(300)
    const rebootAt = c.now()
    const last = c.recorded.filter((f) => f.at >= rebootAt - FRESH_MS && f.from !== victim)
    await c.boot(victim)
    if (attacking) last.forEach((f, i) => inject(c, f.bytes, victim, i))
    const seen = await watchFollowing(ctx, victim, top, 3000)
    ctx.notes?.push(`board ${victim} followed another for ${seen.longestMs} ms`)
    if (seen.twoLeaders) ctx.problems?.push(`two coordinators after the reboot, ${seen.twoLeaders}`)
    if (seen.longestMs > 0) ctx.problems?.push(`board ${victim} followed another for ${seen.longestMs} ms after its reboot`)
  },
}

/** Frames sent in this long after the coordinator's crash are held back... */
export const FAILOVER_HOLD_WINDOW_MS = 1500
/** ...this long: released inside the freshness window. */
export const FAILOVER_HOLD_MS = 1900
/** After the last release, every live board follows the next one within this, for good. */
export const FAILOVER_HOLD_SETTLE_MS = 6000

/**
 * A failover held back: as the coordinator crashes, a man in the middle holds every frame of
 * the next 1.5 s (the failure timeout and the election) back 1.9 s, then lets them through,
 * still fresh. The boards elect without hearing each other meanwhile (a partition, which a
 * man in the middle can always make); once the frames are through, they agree on the next
 * board within the bound.
 */
const failoverHoldBack: Attack = {
  key: "failover-hold-back",
  name: "a failover's frames held back 1.9 s and released inside the freshness window",
  property: "denial",
  recoverMs: 1000,
  // the highest stays down: the others follow the next one
  final: (ids) => ids.map((id) => (id === ids[ids.length - 1] ? -1 : ids[ids.length - 2])),
  async run(ctx, attacking) {
    const c = ctx.cluster
    const top = c.highest()
    const next = c.ids[c.ids.length - 2]
    if (attacking) c.intercept = () => FAILOVER_HOLD_MS
    await c.board(top).driver.setCrashed(true)
    // from the crash on: since when every live board has followed the next one, for good
    let agreedSince = -1
    for (let t = 0; t < FAILOVER_HOLD_WINDOW_MS + FAILOVER_HOLD_MS + FAILOVER_HOLD_SETTLE_MS; t += 10) {
      await ctx.advance(10)
      if (t + 10 === FAILOVER_HOLD_WINDOW_MS) c.intercept = null
      if (!c.ids.every((id) => id === top || named(c, id) === next)) agreedSince = -1
      else if (agreedSince < 0) agreedSince = t + 10
    }
    if (agreedSince < 0) ctx.problems?.push(`no agreement on the next board within ${FAILOVER_HOLD_SETTLE_MS} ms of the last release`)
    ctx.notes?.push(`agreement ${agreedSince} ms after the crash`)
  },
}

/** Relays every frame of each wire onto the other as it goes by, both ways (challenges and proofs too). */
export function relay(a: Cluster, b: Cluster) {
  a.intercept = (f) => {
    inject(b, f.bytes, f.to)
    return "pass"
  }
  b.intercept = (f) => {
    inject(a, f.bytes, f.to)
    return "pass"
  }
}

/**
 * Another lab with the same key (a class copying one key file) and the same ids, with another
 * group number or another algorithm: the attacker relays between the two wires while the
 * cluster's highest board is down, so that the other lab's board of that id would be followed.
 */
function relayOtherLab(key: AttackKey, name: string, other: (c: Cluster) => Partial<ClusterOptions>): Attack {
  return {
    key,
    name,
    property: "safety",
    // the highest stays down: the others follow the next one
    final: (ids) => ids.map((id) => (id === ids[ids.length - 1] ? -1 : ids[ids.length - 2])),
    async run(ctx, attacking) {
      const c = ctx.cluster
      let lab: Cluster | null = null
      if (attacking) {
        lab = new Cluster({ ...c.options, ids: c.ids, seed: 7, ...other(c) })
        await lab.bootAll()
      }
      await ctx.advance(3000)
      if (lab) relay(c, lab)
      await c.board(c.highest()).driver.setCrashed(true)
      await ctx.advance(8000)
    },
  }
}

const relayOtherCluster = relayOtherLab("relay-other-cluster", "relay from another lab with the same key and algorithm, group 2", () => ({ group: 2 }))

const relayOtherAlgorithm = relayOtherLab("relay-other-algorithm", "relay from another lab with the same key and group, another algorithm", (c) => ({
  algorithm: ((c.options.algorithm % MAX_ALGORITHM) + 1) as Algorithm,
}))

export function catalogue(): Attack[] {
  return [
    ...AGES.map(([label, age]) => replayAtAge(label, age)),
    replayAfterReboot,
    reflection,
    challengeReplayFlood,
    challengeMixFlood,
    proofHoldBack,
    forgedLeave,
    duplicateIdReport,
    badTagFlood,
    oldBootEviction,
    proofStarvationFollower,
    proofStarvationCoordinator,
    relayOtherCluster,
    relayOtherAlgorithm,
    replayIntoReboot,
    failoverHoldBack,
  ]
}
