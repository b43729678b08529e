// The auth layer (src/core/auth.ts) with node:crypto's HMAC: tags, refusals, the replay
// window, and freshness after either side's reboot.
import { createHmac } from "node:crypto"
import { describe, expect, test } from "vitest"
import {
  AUTH_CONTROL_BYTES,
  AUTH_TRAILER_BYTES,
  authRefusalName,
  AuthRefusal,
  CHALLENGE_MEMORY,
  CHALLENGE_RETRY_MS,
  CREEP_CAP_MS,
  DRIFT_DIVISOR,
  FRESH_MS,
  FrameAuth,
  KEY_MISMATCH_MS,
  KEY_MISMATCH_TAGS,
  MAX_AHEAD_MS,
  MAX_HELD,
  MAX_HELD_ALL,
  MAX_HELD_NONCES,
  MAX_SEALED_LIST_LENGTH,
  PROOF_BURST,
  PROOF_RESERVE,
  RETIRED_NONCES,
  PROOF_WAIT_FLOOR_MS,
  PROOF_WINDOW_MS,
  type Opened,
  parseKeyHex,
  peerRecord,
  proofWait,
  REPLAY_WINDOW,
  RTT_SAMPLE_MS,
  sealCopy,
} from "../src/core/auth"
import { type ByteSource, encodeFrame, writeFrame, zeroBytes } from "../src/core/codec"
import { Algorithm, BROADCAST, FRAME_HEADER_BYTES, Kind, makeFrame, MAX_FRAME_BYTES, MAX_LIST_LENGTH } from "../src/core/frame"
import { nodeMac } from "../sim/auth/keys"

const KEY = parseKeyHex("00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff")!
const OTHER_KEY = parseKeyHex("ff112233445566778899aabbccddeeff00112233445566778899aabbccddeeff")!

/** Deterministic "random" numbers: 1000, 1001, ... */
function counterRandom(start: number) {
  let next = start
  return () => next++
}

function auth(id: number, key = KEY, randomStart = id * 1000): FrameAuth {
  return new FrameAuth(id, 1, nodeMac(key), counterRandom(randomStart), zeroBytes)
}

function frame(kind: Kind, src: number, dst = BROADCAST, list: number[] = []): number[] {
  const f = makeFrame(kind, Algorithm.Bully, 1, 7, src, dst)
  f.list = list
  return encodeFrame(f).bytes
}

/** The plain frames an open() gave out (it hands them over sealed, as they arrived). */
function plainFrames(opened: { frames: ArrayLike<number>[] }): number[][] {
  return opened.frames.map((f) => Array.from(f).slice(0, f.length - AUTH_TRAILER_BYTES))
}

/**
 * Delivers what `from` sends to `to` through challenge and proof; returns the frames `to` releases.
 * `fromNow`: the sender's clock when it answers, if not the receiver's.
 */
function exchange(from: FrameAuth, to: FrameAuth, sealed: ByteSource, now: number, fromNow = now): number[][] {
  const first = to.open(sealed, now)
  if (!first.reply) return plainFrames(first)
  const proof = from.open(first.reply, fromNow)
  expect(proof.refusal).toBe(AuthRefusal.None)
  const released = to.open(proof.reply!, now)
  expect(released.refusal).toBe(AuthRefusal.None)
  return plainFrames(released)
}

describe("sealed frames", () => {
  test("layout: frame, counter, boot nonce, 8-byte HMAC-SHA256 tag over everything before it", () => {
    const a = auth(3)
    const plain = frame(Kind.COORDINATOR, 3)
    const sealed = sealCopy(a, plain, 0)!
    expect(sealed.length).toBe(plain.length + AUTH_TRAILER_BYTES)
    expect(sealed.slice(0, plain.length)).toEqual(plain)
    expect(sealed.slice(plain.length, plain.length + 4)).toEqual([0, 0, 0, 1]) // first counter
    expect(sealed.slice(plain.length + 4, plain.length + 8)).toEqual([0, 0, 0x0b, 0xb8]) // nonce 3000
    const tag = createHmac("sha256", Buffer.from(KEY)).update(Buffer.from(sealed.slice(0, -8))).digest()
    expect(sealed.slice(-8)).toEqual([...tag.subarray(0, 8)])
  })

  test("a board seals in place: a frame written into a Buffer of the sealed size gives the bytes of a sealed copy", () => {
    const f = makeFrame(Kind.ELECTION, Algorithm.Ring, 1, 70000, 12, BROADCAST)
    f.list = [12, 1, 300, 7]
    f.bid = 0xdeadbeef
    const plain = encodeFrame(f).bytes
    const inPlace = Buffer.alloc(plain.length + AUTH_TRAILER_BYTES)
    writeFrame(f, inPlace)
    expect(auth(12).seal(inPlace, plain.length, 5)).toBe(true)
    expect([...inPlace]).toEqual(sealCopy(auth(12), plain, 5))
    // a frame that would not fit leaves the buffer as it was
    const long = Buffer.alloc(MAX_FRAME_BYTES - AUTH_TRAILER_BYTES + 1 + AUTH_TRAILER_BYTES)
    expect(auth(12).seal(long, MAX_FRAME_BYTES - AUTH_TRAILER_BYTES + 1, 5)).toBe(false)
    expect(long.every((b) => b === 0)).toBe(true)
  })

  test("the longest list that fits a sealed frame is 99 ids (107 unsealed)", () => {
    const a = auth(1)
    const ids = (n: number) => Array.from({ length: n }, (_, i) => i + 1)
    expect(MAX_LIST_LENGTH).toBe(107)
    expect(MAX_SEALED_LIST_LENGTH).toBe(Math.floor((MAX_FRAME_BYTES - FRAME_HEADER_BYTES - AUTH_TRAILER_BYTES) / 2))
    expect(sealCopy(a, frame(Kind.ELECTION, 1, BROADCAST, ids(99)), 0)!.length).toBe(235)
    expect(sealCopy(a, frame(Kind.ELECTION, 1, BROADCAST, ids(100)), 0)).toBeNull()
    expect(a.refused[AuthRefusal.TooLong]).toBe(1)
  })

  test("a first frame is held and challenged; the proof releases it; the next ones pass at once", () => {
    const a = auth(3)
    const b = auth(1)
    const plain = frame(Kind.COORDINATOR, 3)
    const first = b.open(sealCopy(a, plain, 0)!, 0)
    expect(first).toMatchObject({ held: true, refusal: AuthRefusal.None, frames: [], replyTo: 3 })
    expect(first.reply!.length).toBe(AUTH_CONTROL_BYTES)
    const proof = a.open(first.reply!, 5)
    expect(proof.replyTo).toBe(1)
    const released = b.open(proof.reply!, 10)
    expect(plainFrames(released)).toEqual([plain])
    const hb = frame(Kind.HEARTBEAT, 3)
    expect(plainFrames(b.open(sealCopy(a, hb, 20)!, 20))).toEqual([hb])
    expect(b.refusedTotal()).toBe(0)
  })

  test("own frames and frames for another node are ignored, not counted", () => {
    const a = auth(3)
    const b = auth(1)
    expect(b.open(sealCopy(a, frame(Kind.OK, 3, 2), 0)!, 0).ignored).toBe(true)
    expect(a.open(sealCopy(a, frame(Kind.OK, 3), 0)!, 0).ignored).toBe(true)
    expect(b.refusedTotal() + a.refusedTotal()).toBe(0)
  })
})

describe("refusals", () => {
  const a = auth(3)
  const b = auth(1)
  exchange(a, b, sealCopy(a, frame(Kind.HEARTBEAT, 3), 0)!, 0)

  test("a frame without a trailer is refused as unsigned", () => {
    const r = b.open(frame(Kind.COORDINATOR, 99), 1)
    expect(r).toMatchObject({ refusal: AuthRefusal.Unsigned, src: 99, frames: [] })
  })

  test("a wrong key, a flipped bit in header, list, counter, nonce or tag: bad tag", () => {
    const rogue = auth(99, OTHER_KEY)
    expect(b.open(sealCopy(rogue, frame(Kind.COORDINATOR, 99), 2)!, 2).refusal).toBe(AuthRefusal.BadTag)
    const good = sealCopy(a, frame(Kind.ELECTION, 3, BROADCAST, [4, 5]), 3)!
    for (const at of [1, 9, 22, good.length - 16, good.length - 10, good.length - 1]) {
      const bad = good.slice()
      bad[at] ^= 1
      expect(b.open(bad, 3).refusal).toBe(AuthRefusal.BadTag)
    }
    expect(b.refused[AuthRefusal.BadTag]).toBe(7)
    // the untouched frame still passes
    expect(b.open(good, 4).frames.length).toBe(1)
  })

  test("a replay is refused, also out of order within the window; late frames inside it pass once", () => {
    const f1 = sealCopy(a, frame(Kind.HEARTBEAT, 3), 10)!
    const f2 = sealCopy(a, frame(Kind.HEARTBEAT, 3), 11)!
    const f3 = sealCopy(a, frame(Kind.HEARTBEAT, 3), 12)!
    expect(b.open(f1, 12).frames.length).toBe(1)
    expect(b.open(f3, 12).frames.length).toBe(1)
    expect(b.open(f2, 13).frames.length).toBe(1) // reordered, not seen: accepted once
    for (const f of [f1, f2, f3]) expect(b.open(f, 14).refusal).toBe(AuthRefusal.Replay)
  })

  test("a frame older than the window is refused even if never seen", () => {
    const old = sealCopy(a, frame(Kind.COORDINATOR, 3), 20)!
    for (let i = 0; i < REPLAY_WINDOW; i++) b.open(sealCopy(a, frame(Kind.HEARTBEAT, 3), 20)!, 20)
    expect(b.open(old, 21).refusal).toBe(AuthRefusal.Replay)
  })

  test("a stale proof (no challenge outstanding) is refused", () => {
    const c = auth(2)
    const first = c.open(sealCopy(a, frame(Kind.HEARTBEAT, 3), 30)!, 30)
    const proof = a.open(first.reply!, 30).reply!
    expect(c.open(proof, 31).frames.length).toBe(1)
    expect(c.open(proof, 32).refusal).toBe(AuthRefusal.Replay)
  })
})

// The counter is the sender's clock; the receiver learns the offset and refuses frames older
// than FRESH_MS. Sender a's clock starts at its first frame; receiver b's clock runs ahead by 10 000.
describe("freshness by the sender's clock", () => {
  const AHEAD = 10_000
  const DELAY = 5 // the quickest transit
  function pair() {
    const a = auth(3)
    const b = auth(1)
    // first contact: held, challenged, proven, each leg DELAY on the way
    const first = b.open(sealCopy(a, frame(Kind.HEARTBEAT, 3), 0)!, AHEAD + DELAY)
    expect(b.open(a.open(first.reply!, 2 * DELAY).reply!, AHEAD + 3 * DELAY).frames.length).toBe(1)
    // heartbeats every 250 ms, each DELAY on the way: b learns the offset
    for (let t = 250; t <= 2000; t += 250) expect(b.open(sealCopy(a, frame(Kind.HEARTBEAT, 3), t)!, AHEAD + t + DELAY).frames.length).toBe(1)
    return { a, b }
  }

  test("the counter is the sender's milliseconds since its first frame, never repeating", () => {
    const a = auth(3)
    const counterOf = (sealed: number[]) => Buffer.from(sealed).readUInt32BE(sealed.length - AUTH_TRAILER_BYTES)
    expect(counterOf(sealCopy(a, frame(Kind.HEARTBEAT, 3), 500)!)).toBe(1) // the clock starts at 1
    expect(counterOf(sealCopy(a, frame(Kind.HEARTBEAT, 3), 750.6)!)).toBe(251)
    expect(counterOf(sealCopy(a, frame(Kind.HEARTBEAT, 3), 750.9)!)).toBe(252) // same millisecond: previous + 1
    expect(counterOf(sealCopy(a, frame(Kind.HEARTBEAT, 3), 2500)!)).toBe(2001)
  })

  /** A stale frame is held and its sender re-proven: never released, refused once the proof comes. */
  function staleAfterProof(a: FrameAuth, b: FrameAuth, missed: number[], at: number, aNow: number) {
    const r = b.open(missed, at)
    expect(r).toMatchObject({ held: true, frames: [], replyTo: 3 })
    const proof = a.open(r.reply!, aNow).reply!
    const released = b.open(proof, at + 1)
    expect(plainFrames(released)).toEqual([])
    expect(b.refused[AuthRefusal.Stale]).toBe(1)
  }

  test("a frame b missed, replayed after the sender fell silent, is refused as stale", () => {
    const { a, b } = pair()
    const missed = sealCopy(a, frame(Kind.COORDINATOR, 3), 2100)! // lost on the way to b
    // the missed frame is newer than any b has, replayed FRESH_MS + 1 later
    const at = AHEAD + 2100 + DELAY + FRESH_MS + 1
    // a crashed: held, never proven, refused once too old to release
    const c = auth(1, KEY, 5000) // another receiver with the same id: its own challenge values
    exchange(a, c, sealCopy(a, frame(Kind.HEARTBEAT, 3), 2050)!, AHEAD + 2050 + DELAY)
    const r = c.open(missed, at)
    expect(r).toMatchObject({ held: true, frames: [] })
    expect(plainFrames(c.open(frame(Kind.HEARTBEAT, 2), at + 2 * FRESH_MS + 1))).toEqual([])
    expect(c.refused[AuthRefusal.Unproven]).toBe(1)
    // a still runs: its proof's floor refuses the frame
    staleAfterProof(a, b, missed, at, at - AHEAD)
  })

  test("a missed frame replayed long after (minutes) is stale too, drift allowance included", () => {
    const { a, b } = pair()
    const missed = sealCopy(a, frame(Kind.COORDINATOR, 3), 2100)!
    staleAfterProof(a, b, missed, AHEAD + 2100 + 10 * 60_000, 2100 + 10 * 60_000)
  })

  test("a delayed but fresh frame is accepted: up to FRESH_MS beyond the quickest transit", () => {
    const { a, b } = pair()
    const f = frame(Kind.COORDINATOR, 3)
    const delayed = sealCopy(a, f, 2100)!
    expect(plainFrames(b.open(delayed, AHEAD + 2100 + DELAY + FRESH_MS))).toEqual([f])
    // and the next one, quick again, passes too
    expect(b.open(sealCopy(a, frame(Kind.HEARTBEAT, 3), 2200)!, AHEAD + 2200 + DELAY).frames.length).toBe(1)
  })

  test("a reordered frame sent within FRESH_MS passes once (no 'newest' rule)", () => {
    const { a, b } = pair()
    const older = sealCopy(a, frame(Kind.ELECTION, 3), 2100)!
    const newer = sealCopy(a, frame(Kind.HEARTBEAT, 3), 2200)!
    expect(b.open(newer, AHEAD + 2200 + DELAY).frames.length).toBe(1)
    expect(b.open(older, AHEAD + 2200 + DELAY + 1500).frames.length).toBe(1)
    expect(b.open(older, AHEAD + 2200 + DELAY + 1600).refusal).toBe(AuthRefusal.Replay)
  })

  test("a sender clock slower by the allowance (200 ppm) is tolerated for hours; a faster one teaches a lower offset", () => {
    for (const rate of [1 - 200e-6, 1 + 200e-6]) {
      const a = auth(3)
      const b = auth(1)
      // b booted (its hello) before a's first frame: a frame sent before b's boot is refused
      b.helloChallenge(0)
      exchange(a, b, sealCopy(a, frame(Kind.HEARTBEAT, 3), 0)!, AHEAD + DELAY, DELAY)
      // three hours of heartbeats every 250 ms of b's time, each 5 ms on the way, plus one
      // in twenty delayed by 1.9 s: a's clock runs at `rate` of b's
      let refused = 0
      const hour = 3_600_000
      for (let t = 250, i = 0; t <= 3 * hour; t += 250, i++) {
        const extra = i % 20 === 0 ? 1900 : 0
        if (b.open(sealCopy(a, frame(Kind.HEARTBEAT, 3), t * rate)!, AHEAD + t + DELAY + extra).refusal !== AuthRefusal.None) refused++
      }
      expect(refused).toBe(0)
      // after those hours a replay of a frame sent 2.5 s earlier is still refused
      const t = 3 * hour + 1000
      const missed = sealCopy(a, frame(Kind.COORDINATOR, 3), t * rate)!
      const r = b.open(missed, AHEAD + t + DELAY + 2500)
      expect(r).toMatchObject({ held: true, frames: [] })
      expect(b.open(a.open(r.reply!, (t + 2500) * rate).reply!, AHEAD + t + DELAY + 2501).frames).toEqual([])
      expect(b.refused[AuthRefusal.Stale]).toBe(1)
    }
  })

  test("a clock past 2^32 ms (49 days) starts a new nonce; the receiver asks for a proof again", () => {
    const a = auth(3)
    const b = auth(1)
    exchange(a, b, sealCopy(a, frame(Kind.HEARTBEAT, 3), 0)!, 0)
    const before = a.nonce
    const late = 2 ** 32 + 10
    const f = frame(Kind.HEARTBEAT, 3)
    const sealed = sealCopy(a, f, late)!
    expect(a.nonce).not.toBe(before)
    expect(Buffer.from(sealed).readUInt32BE(sealed.length - AUTH_TRAILER_BYTES)).toBe(1)
    expect(exchange(a, b, sealed, late)).toEqual([f])
    expect(b.open(sealCopy(a, frame(Kind.HEARTBEAT, 3), late + 250)!, late + 250).frames.length).toBe(1)
  })
})

describe("reboots", () => {
  test("sender reboots: its new boot is proven, its old frames stay refused", () => {
    const a = auth(3, KEY, 100)
    const b = auth(1)
    const recorded = [sealCopy(a, frame(Kind.COORDINATOR, 3), 0)!, sealCopy(a, frame(Kind.HEARTBEAT, 3), 1)!]
    exchange(a, b, recorded[0], 1)
    expect(b.open(recorded[1], 2).frames.length).toBe(1)
    const rebooted = auth(3, KEY, 200) // new nonce
    const hello = frame(Kind.REQUEST, 3)
    expect(exchange(rebooted, b, sealCopy(rebooted, hello, 5000)!, 5000)).toEqual([hello])
    let challenged = 0
    for (const f of recorded) {
      const r: Opened = b.open(f, 5001 + CHALLENGE_RETRY_MS * challenged)
      // an old nonce: held and challenged (rate limited), never released; the challenge names
      // the old boot, so the new one refuses it
      expect(plainFrames(r)).toEqual([])
      if (r.reply) {
        challenged++
        expect(rebooted.open(r.reply, 5001).reply).toBeNull()
      }
    }
    expect(challenged).toBeGreaterThanOrEqual(1)
    expect(rebooted.refused[AuthRefusal.Replay]).toBe(challenged)
  })

  test("receiver reboots: a recorded frame older than FRESH_MS is refused although its sender still runs", () => {
    const a = auth(3)
    const recorded = sealCopy(a, frame(Kind.COORDINATOR, 3), 0)!
    // the sender keeps going (heartbeats) long after
    for (let t = 100; t <= 5000; t += 250) sealCopy(a, frame(Kind.HEARTBEAT, 3), t)
    const b = auth(1, KEY, 7000) // fresh boot: knows nobody
    const r = b.open(recorded, 5000)
    expect(r.held).toBe(true)
    const proof = a.open(r.reply!, 5000).reply!
    expect(plainFrames(b.open(proof, 5001))).toEqual([])
    expect(b.refused[AuthRefusal.Stale]).toBe(1)
    // the sender's next frame passes
    const hb = frame(Kind.HEARTBEAT, 3)
    expect(plainFrames(b.open(sealCopy(a, hb, 5100)!, 5100))).toEqual([hb])
  })

  test("a frame sent just before the challenge is released (sent within FRESH_MS)", () => {
    const a = auth(3)
    for (let t = 0; t < 3000; t += 250) sealCopy(a, frame(Kind.HEARTBEAT, 3), t)
    const b = auth(1, KEY, 9000)
    const now = 3000
    b.helloChallenge(now - 100)
    const f = frame(Kind.COORDINATOR, 3)
    expect(exchange(a, b, sealCopy(a, f, now)!, now + FRESH_MS / 2)).toEqual([f])
  })

  test("a frame sent before the receiver booted, replayed into its boot, is refused however fresh", () => {
    const a = auth(3)
    for (let t = 0; t < 3000; t += 250) sealCopy(a, frame(Kind.HEARTBEAT, 3), t)
    const recorded = sealCopy(a, frame(Kind.COORDINATOR, 3), 3000)!
    // b boots 100 ms later; the recording reaches it 200 ms after it was sent, well within FRESH_MS
    const b = auth(1, KEY, 9000)
    b.helloChallenge(3100)
    expect(exchange(a, b, recorded, 3200)).toEqual([])
    expect(b.refused[AuthRefusal.Stale] + b.refused[AuthRefusal.Replay]).toBe(1)
    // a's frames after b's boot are taken
    const next = frame(Kind.HEARTBEAT, 3)
    expect(plainFrames(b.open(sealCopy(a, next, 3250)!, 3255))).toEqual([next])
  })

  test("one challenge per sender per CHALLENGE_RETRY_MS", () => {
    const a = auth(3)
    const b = auth(1)
    expect(b.open(sealCopy(a, frame(Kind.HEARTBEAT, 3), 0)!, 0).reply).not.toBeNull()
    expect(b.open(sealCopy(a, frame(Kind.HEARTBEAT, 3), 1)!, 1).reply).toBeNull()
    expect(b.open(sealCopy(a, frame(Kind.HEARTBEAT, 3), CHALLENGE_RETRY_MS)!, CHALLENGE_RETRY_MS).reply).not.toBeNull()
    expect(b.challengesSent).toBe(2)
  })
})

test("a board whose key differs sees only bad tags for a while: it suspects its own key", () => {
  const a = auth(3)
  const wrong = auth(4, OTHER_KEY)
  for (let i = 0; i < KEY_MISMATCH_TAGS - 1; i++) wrong.open(sealCopy(a, frame(Kind.HEARTBEAT, 3), i)!, i)
  expect(wrong.keyMismatch(KEY_MISMATCH_MS)).toBe(false) // too few
  wrong.open(sealCopy(a, frame(Kind.HEARTBEAT, 3), 9)!, 9)
  expect(wrong.keyMismatch(KEY_MISMATCH_MS - 1)).toBe(false) // a burst, not yet a pattern
  expect(wrong.keyMismatch(KEY_MISMATCH_MS)).toBe(true)
  // a board that has heard one valid frame does not blame its key for a rogue's frames
  const b = auth(1)
  exchange(a, b, sealCopy(a, frame(Kind.HEARTBEAT, 3), 0)!, 0)
  const rogue = auth(99, OTHER_KEY)
  for (let i = 0; i < 20; i++) b.open(sealCopy(rogue, frame(Kind.COORDINATOR, 99), i)!, i)
  expect(b.keyMismatch(10 * KEY_MISMATCH_MS)).toBe(false)
})

test("key parsing", () => {
  expect(parseKeyHex("ab".repeat(32))!.length).toBe(32)
  expect(parseKeyHex("ab".repeat(31))).toBeNull()
  expect(parseKeyHex("zz" + "ab".repeat(31))).toBeNull()
})

test("the start-up hello: one broadcast challenge, and every pair knows each other before any election", () => {
  const a = auth(1)
  const b = auth(2)
  const c = auth(3)
  const hello = a.helloChallenge(0)
  for (const peer of [b, c]) {
    const answer = peer.open(hello, 1)
    expect(answer.replyTo).toBe(1)
    const taken = a.open(answer.reply!, 2)
    expect(taken.refusal).toBe(AuthRefusal.None)
    // a second copy of the same proof is a replay
    expect(a.open(answer.reply!, 3).refusal).toBe(AuthRefusal.Replay)
    // the peer challenged a back; a proves itself
    const proof = a.open(answer.challengeBack!, 3).reply!
    expect(peer.open(proof, 4).refusal).toBe(AuthRefusal.None)
  }
  // now frames pass at once in both directions, no hold
  for (const [from, to] of [[a, b], [b, a], [c, a], [a, c]] as const) {
    const f = frame(Kind.ELECTION, from.id)
    const r = to.open(sealCopy(from, f, 10)!, 10)
    expect(r.held).toBe(false)
    expect(plainFrames(r)).toEqual([f])
  }
})

describe("against an attacker without the key", () => {
  const counterOf = (sealed: number[]) => Buffer.from(sealed).readUInt32BE(sealed.length - AUTH_TRAILER_BYTES)

  test("6,000 replays of a recorded challenge: answered once, the counter stays on the clock", () => {
    const a = auth(3)
    const b = auth(1)
    sealCopy(a, frame(Kind.HEARTBEAT, 3), 0) // a's clock starts
    const hello = b.helloChallenge(100)
    expect(a.open(hello, 100).reply).not.toBeNull()
    for (let i = 0; i < 6000; i++) {
      const r = a.open(hello, 100 + i / 50)
      expect(r.reply).toBeNull()
    }
    expect(a.refused[AuthRefusal.Replay]).toBe(6000)
    expect(a.proofsSent).toBe(1)
    // the next frame's counter is the clock (221 ms since a's first frame), not 6,000 ahead
    expect(counterOf(sealCopy(a, frame(Kind.HEARTBEAT, 3), 220)!)).toBe(221)
  })

  test("distinct challenges beyond the challenger's rate are dropped as a flood; proofs never move the counter", () => {
    const a = auth(3)
    const b = auth(1)
    sealCopy(a, frame(Kind.HEARTBEAT, 3), 0)
    const challenges = Array.from({ length: 40 }, (_, i) => auth(1, KEY, 50_000 + i * 10).probe(3, 1))
    let proofs = 0
    // (challengers that never proved a: their challenges name no boot of it, as hellos do)
    for (let i = 0; i < challenges.length; i++) if (a.open(challenges[i], 10 + i).reply) proofs++
    expect(proofs).toBe(PROOF_BURST - PROOF_RESERVE)
    expect(a.refused[AuthRefusal.Flood]).toBe(40 - proofs)
    // one more per CHALLENGE_RETRY_MS
    const later = auth(1, KEY, 90_000).probe(3, 2)
    expect(a.open(later, 10 + CHALLENGE_RETRY_MS).reply).not.toBeNull()
    expect(counterOf(sealCopy(a, frame(Kind.HEARTBEAT, 3), 300)!)).toBe(301)
    // the reserve: a challenge naming a's boot is answered where one naming none is not
    const knows = auth(1, KEY, 95_000)
    exchange(a, knows, sealCopy(a, frame(Kind.HEARTBEAT, 3), 301)!, 301)
    expect(a.open(auth(1, KEY, 96_000).probe(3, 3), 302).refusal).toBe(AuthRefusal.Flood)
    expect(a.open(knows.probe(3, 303), 303).reply).not.toBeNull()
  })

  test("a challenge naming another boot of the prover (recorded before its reboot) is a replay and spends no proof", () => {
    const old = auth(3, KEY, 100)
    const b = auth(1)
    exchange(old, b, sealCopy(old, frame(Kind.COORDINATOR, 3), 0)!, 0)
    const recorded = Array.from({ length: 3 * CHALLENGE_MEMORY }, (_, i) => b.probe(3, 10 + i * CHALLENGE_RETRY_MS))
    const a = auth(3, KEY, 200) // the prover reboots
    const end = 10 + recorded.length * CHALLENGE_RETRY_MS
    for (let round = 0; round < 10; round++) for (const c of recorded) expect(a.open(c, end + round).reply).toBeNull()
    expect(a.refused[AuthRefusal.Replay]).toBe(10 * recorded.length)
    expect(a.proofsSent).toBe(0)
    expect(peerRecord(a, 1)!.proofTokens).toBe(PROOF_BURST)
    // b meets the new boot: its challenge names it and is answered (exchange checks the proof)
    expect(exchange(a, b, sealCopy(a, frame(Kind.HEARTBEAT, 3), end)!, end + 10)).toHaveLength(1)
    expect(a.proofsSent).toBe(1)
  })

  test("challenges of a challenger's boot proven here and since replaced are replays, spending no proof", () => {
    const a = auth(3)
    const old = auth(1, KEY, 100)
    exchange(a, old, sealCopy(a, frame(Kind.HEARTBEAT, 3), 0)!, 0) // old knows a
    // a knows old (its challenge back to old's first challenge went unanswered: the next one waits the retry limit)
    exchange(old, a, sealCopy(old, frame(Kind.ELECTION, 1), CHALLENGE_RETRY_MS)!, CHALLENGE_RETRY_MS)
    const recorded = Array.from({ length: 3 * CHALLENGE_MEMORY }, (_, i) => old.probe(3, 300 + i * CHALLENGE_RETRY_MS))
    const b = auth(1, KEY, 200) // the challenger reboots; a proves its new boot
    exchange(b, a, sealCopy(b, frame(Kind.ELECTION, 1), 8000)!, 8000)
    const proofs = a.proofsSent
    const tokens = peerRecord(a, 1)!.proofTokens
    for (let round = 0; round < 10; round++) for (const c of recorded) expect(a.open(c, 8001 + round).reply).toBeNull()
    expect(a.refused[AuthRefusal.Replay]).toBe(10 * recorded.length)
    expect(a.proofsSent).toBe(proofs)
    expect(peerRecord(a, 1)!.proofTokens).toBe(tokens)
  })

  test(`a board remembers a peer's last ${RETIRED_NONCES} replaced boots, no more`, () => {
    const a = auth(3)
    const boots = Array.from({ length: RETIRED_NONCES + 2 }, (_, i) => auth(1, KEY, 100 * (i + 1)))
    const recorded: ByteSource[] = []
    boots.forEach((b, i) => {
      const t = 1000 * i
      exchange(a, b, sealCopy(a, frame(Kind.HEARTBEAT, 3), t)!, t)
      exchange(b, a, sealCopy(b, frame(Kind.ELECTION, 1), t + CHALLENGE_RETRY_MS)!, t + CHALLENGE_RETRY_MS)
      recorded.push(b.probe(3, t + 300))
    })
    const end = 1000 * boots.length
    // the boot proven now answers by its clock; the retired ones are replays; the oldest is forgotten
    const answered = recorded.map((c, i) => {
      const o = a.open(c, end + i)
      return o.reply ? "proof" : authRefusalName(o.refusal)
    })
    expect(answered).toEqual(["proof", ...Array(RETIRED_NONCES).fill("replay"), "proof"])
  })

  test("a new boot's hello and challenges are answered while its earlier boots' challenges are replayed every millisecond", () => {
    const a = auth(3)
    const recorded: ByteSource[] = []
    for (let i = 0; i < 2; i++) {
      const old = auth(1, KEY, 100 * (i + 1))
      const t = 3000 * i
      exchange(a, old, sealCopy(a, frame(Kind.HEARTBEAT, 3), t)!, t)
      exchange(old, a, sealCopy(old, frame(Kind.ELECTION, 1), t + CHALLENGE_RETRY_MS)!, t + CHALLENGE_RETRY_MS)
      // each recorded as it went by, answered
      for (let k = 0; k < 2 * CHALLENGE_MEMORY; k++) {
        const c = old.probe(3, t + 300 + k * 100)
        expect(a.open(c, t + 300 + k * 100).reply).not.toBeNull()
        recorded.push(c)
      }
      recorded.push(old.helloChallenge(t))
    }
    const b = auth(1, KEY, 900)
    const proofs = a.proofsSent
    let answered = 0
    for (let t = 10_000; t < 12_000; t++) {
      expect(a.open(recorded[t % recorded.length], t).reply).toBeNull()
      if (t === 10_500) {
        const hello = a.open(b.helloChallenge(t), t)
        expect(hello.refusal).toBe(AuthRefusal.None)
        expect(hello.challengeBack).not.toBeNull()
        answered++
      }
      if (t === 11_000) {
        exchange(a, b, sealCopy(a, frame(Kind.HEARTBEAT, 3), t)!, t)
        answered++
      }
    }
    expect(a.proofsSent - proofs).toBe(answered)
  })

  test("a proven boot's recorded challenges replayed, more distinct values than CHALLENGE_MEMORY, spend none of its proofs", () => {
    const a = auth(3)
    const b = auth(1)
    exchange(b, a, sealCopy(b, frame(Kind.ELECTION, 1), 0)!, 0) // a now knows b's boot
    const recorded: ByteSource[] = []
    for (let i = 0; i < 3 * CHALLENGE_MEMORY; i++) {
      const challenge = b.probe(3, 10 + i * 300)
      expect(a.open(challenge, 10 + i * 300).reply).not.toBeNull()
      recorded.push(challenge)
    }
    const proofs = a.proofsSent
    const end = 10 + recorded.length * 300
    for (let round = 0; round < 50; round++) for (const c of recorded) expect(a.open(c, end).reply).toBeNull()
    expect(a.proofsSent).toBe(proofs)
    expect(a.refused[AuthRefusal.Replay]).toBe(50 * recorded.length)
    // b's next challenge, in the same millisecond as the flood, is answered
    expect(a.open(b.probe(3, end + 1), end + 1).reply).not.toBeNull()
  })

  test("a flood of an old boot's challenges cannot spend the proofs of the challenger's proven boot", () => {
    const a = auth(3)
    const oldBoot = auth(1, KEY, 100)
    const old = Array.from({ length: 40 }, (_, i) => oldBoot.probe(3, i))
    const b = auth(1, KEY, 500) // rebooted: another nonce
    exchange(b, a, sealCopy(b, frame(Kind.ELECTION, 1), 5000)!, 5000)
    for (let i = 0; i < 2000; i++) a.open(old[i % old.length], 5001 + i / 50)
    expect(a.refused[AuthRefusal.Flood]).toBeGreaterThan(0)
    for (let i = 0; i < PROOF_BURST + 2; i++) expect(a.open(b.probe(3, 5041 + i), 5041 + i).reply).not.toBeNull()
  })

  test("the counter never runs more than MAX_AHEAD_MS ahead of the clock: beyond, the frame is not sealed", () => {
    const a = auth(3)
    let sealed = 0
    for (let i = 0; i < 500; i++) if (sealCopy(a, frame(Kind.HEARTBEAT, 3), 0)) sealed++
    expect(sealed).toBe(MAX_AHEAD_MS + 1)
    expect(a.refused[AuthRefusal.TooFast]).toBe(500 - MAX_AHEAD_MS - 1)
  })

  test("a proof held back longer than PROOF_WINDOW_MS is refused; the sender is asked again", () => {
    const a = auth(3)
    const b = auth(1)
    const first = b.open(sealCopy(a, frame(Kind.COORDINATOR, 3), 0)!, 0)
    const proof = a.open(first.reply!, 5).reply!
    const late = b.open(proof, PROOF_WINDOW_MS + 1)
    expect(late.refusal).toBe(AuthRefusal.Late)
    expect(plainFrames(late)).toEqual([])
    // a hello's proof too
    const c = auth(2)
    const hello = c.helloChallenge(0)
    expect(c.open(a.open(hello, 1).reply!, PROOF_WINDOW_MS + 1).refusal).toBe(AuthRefusal.Late)
    // in time, it is taken: both frames (each fresh when it came) are released
    const again = b.open(sealCopy(a, frame(Kind.COORDINATOR, 3), 1100)!, PROOF_WINDOW_MS + 100)
    expect(b.open(a.open(again.reply!, 1105).reply!, PROOF_WINDOW_MS + 100 + PROOF_WINDOW_MS).frames.length).toBe(2)
  })

  test("replays from old boots never push out a held frame of another boot", () => {
    const oldBoots = [auth(3, KEY, 100), auth(3, KEY, 200), auth(3, KEY, 300)]
    const recorded = oldBoots.flatMap((o) => Array.from({ length: 8 }, (_, i) => sealCopy(o, frame(Kind.HEARTBEAT, 3), i)!))
    const a = auth(3, KEY, 400) // the sender now
    const b = auth(1)
    const genuine = frame(Kind.COORDINATOR, 3, BROADCAST, [1, 2])
    const first = b.open(sealCopy(a, genuine, 5000)!, 5000)
    expect(first.held).toBe(true)
    for (const r of recorded) b.open(r, 5001)
    // one other nonce may hold up to MAX_HELD frames (its older ones go); further boots' are refused outright
    expect(b.refused[AuthRefusal.Unproven]).toBe(8 - MAX_HELD + 16)
    expect(MAX_HELD_NONCES).toBe(2)
    const released = b.open(a.open(first.reply!, 5002).reply!, 5003)
    expect(plainFrames(released)).toEqual([genuine])
    expect(b.refused[AuthRefusal.Replay]).toBe(MAX_HELD)
  })

  test("at most MAX_HELD_ALL frames are held from all senders; the rest are refused, and a sender's next frame after its proof passes", () => {
    const b = auth(1)
    const senders = Array.from({ length: 11 }, (_, i) => auth(i + 2))
    let held = 0
    for (let round = 0; round < MAX_HELD; round++)
      for (const a of senders) if (b.open(sealCopy(a, frame(Kind.HEARTBEAT, a.id), 100 + round)!, 100 + round).held) held++
    expect(held).toBe(MAX_HELD_ALL)
    expect(b.held.length).toBe(MAX_HELD_ALL)
    expect(b.refused[AuthRefusal.Unproven]).toBe(11 * MAX_HELD - MAX_HELD_ALL)
    // the last sender had nothing held: once its boot is proven, its frames pass
    const last = senders[10]
    const refusedOne = b.open(sealCopy(last, frame(Kind.COORDINATOR, last.id), 200)!, 200)
    expect(refusedOne.held).toBe(false)
    const challenge = b.open(sealCopy(last, frame(Kind.HEARTBEAT, last.id), 600)!, 600)
    const proof = last.open(challenge.reply!, 601).reply!
    expect(b.open(proof, 602).refusal).toBe(AuthRefusal.None)
    const next = frame(Kind.COORDINATOR, last.id, BROADCAST, [1])
    expect(plainFrames(b.open(sealCopy(last, next, 700)!, 700))).toEqual([next])
  })

  test("a quiet sender: the drift allowance stops growing; a missed frame 9 s late after 10 h is refused, the sender's next frame passes after a re-proof", () => {
    const hour = 3_600_000
    for (const rate of [1, 1 - 200e-6]) {
      const a = auth(3)
      const b = auth(1)
      exchange(a, b, sealCopy(a, frame(Kind.HEARTBEAT, 3), 0)!, 5, 0)
      expect(b.open(sealCopy(a, frame(Kind.HEARTBEAT, 3), 250)!, 255).frames.length).toBe(1)
      // ten hours of silence; a frame b missed is replayed 9 s after it was sent
      const t = 10 * hour
      const missed = sealCopy(a, frame(Kind.COORDINATOR, 3), t * rate)!
      const r = b.open(missed, t + 9000)
      expect(r).toMatchObject({ held: true, frames: [] })
      expect(b.open(a.open(r.reply!, (t + 9000) * rate).reply!, t + 9001).frames).toEqual([])
      expect(b.refused[AuthRefusal.Stale]).toBe(1)
      // the sender's own next frame after the silence: held, re-proven, released
      const next = frame(Kind.ELECTION, 3)
      const held = b.open(sealCopy(a, next, (t + 20_000) * rate)!, t + 20_005)
      expect(held.held || held.frames.length === 1).toBe(true)
      if (held.held) expect(b.open(a.open(held.reply!, (t + 20_010) * rate).reply!, t + 20_015).frames).toEqual([next])
      else expect(plainFrames(held)).toEqual([next])
      expect(b.open(sealCopy(a, frame(Kind.HEARTBEAT, 3), (t + 20_250) * rate)!, t + 20_255).frames.length).toBe(1)
    }
    expect(CREEP_CAP_MS / DRIFT_DIVISOR).toBe(12)
  })

  test("a sender found stale far behind the clock is re-proven at once, not refused for hours", () => {
    const a = auth(3)
    const b = auth(1)
    exchange(a, b, sealCopy(a, frame(Kind.HEARTBEAT, 3), 0)!, 5, 0)
    // b learnt an offset 6 s too low (as after a counter run ahead): every frame looks 6 s old
    const f = frame(Kind.HEARTBEAT, 3)
    const sealed = sealCopy(a, f, 1000)!
    const shifted = b.open(sealed, 1005 + 6000)
    expect(shifted.held).toBe(true)
    expect(b.open(a.open(shifted.reply!, 1010).reply!, 7015).refusal).toBe(AuthRefusal.None)
    expect(b.open(sealCopy(a, frame(Kind.HEARTBEAT, 3), 1250)!, 7255).frames.length).toBe(1)
  })

  test("probe and proven: a sealed challenge to a node, and whether it answered since", () => {
    const a = auth(3)
    const b = auth(1)
    exchange(a, b, sealCopy(a, frame(Kind.HEARTBEAT, 3), 0)!, 0)
    expect(b.proven(3, -1)).toBe(true)
    // a frame taken at the very time of the check was taken before it (the hint waits behind it)
    expect(b.proven(3, 0)).toBe(false)
    expect(b.proven(3, 100)).toBe(false)
    const challenge = b.probe(3, 100)
    expect(b.open(a.open(challenge, 101).reply!, 102).refusal).toBe(AuthRefusal.None)
    expect(b.proven(3, 100)).toBe(true)
    // nobody answers for a node that is not there
    b.probe(2, 200)
    expect(b.proven(2, 200)).toBe(false)
    // a challenge to our own id reaches a twin (same id, other boot) only: it proves itself
    const twin = auth(1, KEY, 7000)
    const self = b.probe(1, 300)
    expect(b.open(self, 300).ignored).toBe(true) // our own, heard back
    expect(b.open(twin.open(self, 301).reply!, 302).refusal).toBe(AuthRefusal.None)
    expect(b.proven(1, 300)).toBe(true)
  })
})

describe("how long a hint's check waits for the proof", () => {
  const T = 200

  /** `checker` challenges `prover` (a check's probe), which answers `rtt` ms later (half each way); returns the wait measured before. */
  function roundTrip(checker: FrameAuth, prover: FrameAuth, at: number, rtt: number): number {
    const wait = proofWait(checker, prover.id, T)
    const opened = prover.open(checker.probe(prover.id, at), at + rtt / 2)
    expect(opened.refusal).toBe(AuthRefusal.None)
    expect(checker.open(opened.reply!, at + rtt).refusal).toBe(AuthRefusal.None)
    return wait
  }

  /** Two boards that met: each proved its boot to the other (a first contact, measured by neither). */
  function met(a: FrameAuth, b: FrameAuth, at = -1000) {
    exchange(b, a, sealCopy(b, frame(Kind.HEARTBEAT, b.id), at)!, at)
    exchange(a, b, sealCopy(a, frame(Kind.HEARTBEAT, a.id), at)!, at)
  }

  test("no round trip measured yet: the answer timeout", () => {
    const a = auth(1)
    expect(proofWait(a, 3, T)).toBe(T)
    a.probe(3, 0) // a challenge with no proof back measures nothing
    expect(proofWait(a, 3, T)).toBe(T)
  })

  test("a first contact is not measured: it times a board busy booting, not the path", () => {
    const a = auth(1)
    const b = auth(3)
    // b's first frame is held, b challenged and proven 120 ms later
    const first = a.open(sealCopy(b, frame(Kind.HEARTBEAT, 3), 0)!, 0)
    expect(a.open(b.open(first.reply!, 60).reply!, 120).frames.length).toBe(1)
    expect(proofWait(a, 3, T)).toBe(T)
    // nor the answer to the start-up hello
    const c = auth(2)
    const hello = c.helloChallenge(0)
    expect(c.open(b.open(hello, 40).reply!, 80).refusal).toBe(AuthRefusal.None)
    expect(proofWait(c, 3, T)).toBe(T)
  })

  test("one round trip r: 2r + 4·r/2 (RFC 6298's first estimate, SRTT doubled)", () => {
    const a = auth(1)
    const b = auth(3)
    met(a, b)
    roundTrip(a, b, 0, 20)
    expect(proofWait(a, 3, T)).toBe(80)
    // per node: another node's wait is still the answer timeout
    expect(proofWait(a, 2, T)).toBe(T)
    // then 35 ms: SRTT 21.875, RTTVAR 11.25, 88.75 rounded up (the VM test checks the same)
    roundTrip(a, b, 1000, 35)
    expect(proofWait(a, 3, T)).toBe(89)
  })

  test("a proven sender's frame gets a challenge once the last one sent to it is RTT_SAMPLE_MS old: that round trip is measured", () => {
    const a = auth(1)
    const b = auth(3)
    met(a, b, 0)
    let at = 250
    const challenged: number[] = []
    for (; at <= 2 * RTT_SAMPLE_MS + 250; at += 250) {
      const opened = a.open(sealCopy(b, frame(Kind.HEARTBEAT, 3), at)!, at + 2)
      expect(opened.frames.length).toBe(1)
      if (!opened.reply) continue
      challenged.push(at)
      expect(opened.replyTo).toBe(3)
      expect(a.open(b.open(opened.reply, at + 3).reply!, at + 6).refusal).toBe(AuthRefusal.None)
    }
    // counted from the last challenge sent (the first contact's at 0, then 5,002)
    expect(challenged).toEqual([RTT_SAMPLE_MS, 2 * RTT_SAMPLE_MS])
    // two round trips of 4 ms: 8 + 4·1.5, rounded up, the floor is below
    expect(proofWait(a, 3, T)).toBe(14)
  })

  test("election frames never bring a round-trip challenge: on the bus it would go out ahead of the answers", () => {
    const a = auth(1)
    const b = auth(3)
    met(a, b, 0)
    for (let at = RTT_SAMPLE_MS; at <= 3 * RTT_SAMPLE_MS; at += 250) {
      const opened = a.open(sealCopy(b, frame(Kind.ELECTION, 3), at)!, at + 2)
      expect(opened.frames.length).toBe(1)
      expect(opened.reply).toBeNull()
    }
    // the next heartbeat does
    const beat = a.open(sealCopy(b, frame(Kind.HEARTBEAT, 3), 3 * RTT_SAMPLE_MS + 250)!, 3 * RTT_SAMPLE_MS + 252)
    expect(beat.replyTo).toBe(3)
  })

  test("steady round trips: the wait comes down to about two of them", () => {
    const a = auth(1)
    const b = auth(3)
    met(a, b)
    const waits = Array.from({ length: 40 }, (_, i) => roundTrip(a, b, i * 300, 30))
    expect(waits[1]).toBe(120)
    // the deviation decays by a quarter per sample; whole milliseconds, rounded up
    expect(proofWait(a, 3, T)).toBe(61)
  })

  test("jitter: the same mean round trip with spread waits longer", () => {
    const steady = auth(1)
    const jittery = auth(1, KEY, 5000)
    const b = auth(3)
    const c = auth(3, KEY, 9000)
    met(steady, b)
    met(jittery, c)
    for (let i = 0; i < 40; i++) {
      roundTrip(steady, b, i * 300, 30)
      roundTrip(jittery, c, i * 300, i % 2 === 0 ? 10 : 50)
    }
    const calm = proofWait(steady, 3, T)
    const spread = proofWait(jittery, 3, T)
    expect(spread).toBeGreaterThan(calm + 50)
    // every round trip seen so far fits in the wait
    expect(spread).toBeGreaterThan(50)
    expect(spread).toBeLessThan(T)
  })

  test("a slower round trip than the wait still counts (the proof came too late for that check): the next waits past it", () => {
    const a = auth(1)
    const b = auth(3)
    met(a, b)
    for (let i = 0; i < 20; i++) roundTrip(a, b, i * 300, 4)
    const before = proofWait(a, 3, T)
    expect(before).toBe(PROOF_WAIT_FLOOR_MS)
    // a loaded broker: the proof takes 60 ms, six times the wait
    roundTrip(a, b, 20 * 300, 60)
    expect(proofWait(a, 3, T)).toBeGreaterThan(60)
    // a proof held beyond the proof window is refused and measures nothing
    const opened = b.open(a.probe(3, 10_000), 10_000)
    expect(a.open(opened.reply!, 10_000 + PROOF_WINDOW_MS + 1).refusal).toBe(AuthRefusal.Late)
    expect(proofWait(a, 3, T)).toBeLessThan(T)
  })

  test("clamped: never below the floor nor above the answer timeout", () => {
    const quick = auth(1)
    const slow = auth(1, KEY, 5000)
    const b = auth(3)
    const c = auth(3, KEY, 9000)
    met(quick, b)
    met(slow, c)
    roundTrip(quick, b, 0, 1)
    roundTrip(slow, c, 0, 300)
    expect(proofWait(quick, 3, T)).toBe(PROOF_WAIT_FLOOR_MS)
    expect(proofWait(slow, 3, T)).toBe(T)
    // and the ceiling is the caller's: a longer answer timeout lets it wait longer
    expect(proofWait(slow, 3, 2000)).toBe(1200)
  })
})
