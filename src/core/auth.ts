// Authenticated frames: a layer around the encoded election frame, not part of any
// algorithm. Pure and portable: the MAC (HMAC-SHA256 with the frame key, which the driver
// derives from the group key, the group and the algorithm: driver.ts frameKey) and the random
// numbers come from the driver, so the same code runs in Node and in the DeviceScript VM.
//
// Sealed election frame: [encoded frame][counter u32][boot nonce u32][tag 8 bytes]
//   tag = first 8 bytes of HMAC-SHA256(frame key, frame || counter || nonce)
// Control frame (32 bytes), answered by the auth layer itself:
//   0 marker 0xA5 | 1 type (1 challenge, 2 proof) | 2 group | 3 zero | 4 src u16 | 6 dst u16
//   8 challenge u32 | 12 nonce u32 | 16 clock u32 (the sender's, rising) | 20 floor u32 | 24 tag 8 bytes (over 0..23)
//   (in a challenge, 20 is the target: the prover's boot nonce it asks for, or ANY_BOOT)
//
// The counter is the sender's clock: max(previous + 1, milliseconds since its first frame), so
// a receiver can tell a frame's age without a field more. Per sender nonce the receiver learns
// the offset between its clock and the sender's (the least receive time − counter, allowed to
// creep by DRIFT_DIVISOR for crystal drift) and refuses a frame older than FRESH_MS: a frame
// captured and replayed later is stale whatever the receiver saw before.
//
// Replay protection, per sender (in the manner of Bluetooth Mesh's replay protection list):
// the receiver keeps the sender's boot nonce, its clock offset and the last REPLAY_WINDOW
// counters it took. Nothing goes to flash (no write wear): after a reboot of either side
// the receiver meets a nonce it does not know, holds the frame and sends a CHALLENGE with a
// fresh random number; the sender's PROOF (tagged, echoing it) names its nonce, its counter
// (the receiver's first offset) and its clock FRESH_MS ago (the floor). Held frames at or above
// that floor and fresh by age are released; older ones, however validly tagged, are refused.
//
// Against an attacker without the key who records, replays, reflects and floods:
// - a proof carries the sender's clock but takes no counter: answering any number of
//   challenges never moves the frame counter, which stays within MAX_AHEAD_MS of the clock;
// - a challenge carries its challenger's clock, rising: once the challenger's boot is proven, a
//   challenge of that boot below the last one answered (or the boot's proof) is a replay; a
//   challenge of a boot not proven here has its value remembered (CHALLENGE_MEMORY) and answered
//   once, rate-limited (PROOF_BURST, one more per CHALLENGE_RETRY_MS): replays of old boots'
//   challenges cannot spend a proven boot's proofs;
// - a challenge names the boot it wants proven (the nonce its challenger saw; ANY_BOOT when it
//   knows none: a hello): one naming another boot of ours was recorded before we booted, and a
//   challenge of a challenger's boot we proved and saw replaced (the last RETIRED_NONCES) was
//   recorded before it rebooted. Both are replays and spend no proof, so that old boots'
//   challenges replayed at a reboot cannot use up the proofs the new boot needs (proof
//   starvation); a challenge naming no boot leaves PROOF_RESERVE proofs to those naming ours;
// - a proof counts only within PROOF_WINDOW_MS of its challenge (a held-back proof is refused);
// - held frames are kept per boot nonce: frames of another boot never push out a held one;
// - the drift allowance stops growing after CREEP_CAP_MS of silence, and a frame found stale
//   is held and its sender re-proven, not refused for as long as the offset is off;
// - probe()/proven() turn an unauthenticated hint (a last will, a duplicate id) into a check,
//   which waits proofWait(): a few round trips of our challenges to that node's proofs.

import { ByteSource, getU16, getU32, parseHex, setUint, zeroBytes } from "./codec"
import { BROADCAST, FRAME_HEADER_BYTES, FRAME_LIST_LENGTH_OFFSET, Kind, MAX_FRAME_BYTES } from "./frame"
import { nameIn, sum } from "./portable"

/** Truncated tag: 64 bits, as Bluetooth Mesh's large NetMIC; a forgery succeeds once in 2^64 tries. */
export const AUTH_TAG_BYTES = 8
/** counter u32 + boot nonce u32 + tag. */
export const AUTH_TRAILER_BYTES = 16
/** Most ids a sealed frame's list can carry: floor((236 - 21 - 16) / 2). */
export const MAX_SEALED_LIST_LENGTH = 99
export const AUTH_CONTROL_MARKER = 0xa5
export const AUTH_CONTROL_BYTES = 32
export const CONTROL_CHALLENGE = 1
export const CONTROL_PROOF = 2
/**
 * Counters taken per sender and remembered; a counter below all of them (with the list full)
 * is refused. A frame overtaken by 16 later ones of its sender is lost so; 16 u32s in the
 * sender's table are 64 bytes of a board's heap per peer.
 */
export const REPLAY_WINDOW = 16
/**
 * A frame is taken only if it arrives at most this long after it was sent, as far as the
 * receiver can tell (its age beyond the quickest frame of that sender; a loaded broker can take
 * a second). A held frame is released only if it was sent at most this long before the proof.
 */
export const FRESH_MS = 2000
/** Clock drift allowed between two boards: 1 ms per 5000 ms, ±100 ppm each (crystals are ±10-40 ppm). */
export const DRIFT_DIVISOR = 5000
/** At most one challenge per sender in this time. */
export const CHALLENGE_RETRY_MS = 250
/**
 * A proof is taken only this long after its challenge left (the hello's too): a man in the
 * middle who holds a proof back stretches the age limit by at most this. Cost: a proof slower
 * than this is refused and the sender is challenged again.
 */
export const PROOF_WINDOW_MS = 1000
/** Proofs answering the start-up hello are taken this long. */
export const HELLO_VALID_MS = PROOF_WINDOW_MS
/** Frames held per boot nonce of an unproven sender (the oldest of that nonce goes first). */
export const MAX_HELD = 4
/** Boot nonces held per sender: a frame of a further nonce is refused, never one held pushed out. */
export const MAX_HELD_NONCES = 2
/**
 * Frames held at most, from all senders: about 165 bytes of a board's heap each. Beyond it a
 * frame of an unproven boot is refused (not held), as one of a third nonce is: its sender's
 * later frames pass once the proof is in. Without it a cluster's reboots after a panic held up
 * to 88 frames at 12 boards, 14 KB.
 */
export const MAX_HELD_ALL = 16
/**
 * The frame counter may run ahead of the clock by at most this (a burst of sends in one
 * millisecond); a frame beyond it is not sealed. Receivers allow for it within FRESH_MS.
 */
export const MAX_AHEAD_MS = 100
/** Challenge values remembered per challenger: a repeat is a replay, answered never (8 × 4 bytes). */
export const CHALLENGE_MEMORY = 8
/** Proofs a challenger gets at once; one more per CHALLENGE_RETRY_MS (4 proofs/s at steady flood). */
export const PROOF_BURST = 4
/** Proofs kept for challenges naming our boot: a challenge naming none (a hello) may not take the last ones. */
export const PROOF_RESERVE = 2
/** A challenge's target naming no boot (a hello; a check of a node not proven yet). */
export const ANY_BOOT = 0
/** Boot nonces of a peer proven earlier and since replaced, remembered: their challenges are recordings (4 × 8 bytes a peer). */
export const RETIRED_NONCES = 4
/** The drift allowance grows for at most this much silence (12 ms); beyond, a stale frame re-proves its sender. */
export const CREEP_CAP_MS = 60000
/**
 * A board suspects its own key after this many bad tags spread over KEY_MISMATCH_MS, with no
 * valid frame ever: a rogue's burst at boot, before the group has spoken, is not enough.
 */
export const KEY_MISMATCH_TAGS = 8
export const KEY_MISMATCH_MS = 3000
/**
 * A hint's check waits at least this for the proof, however quick the round trips measured:
 * timers and a busy event loop are late by a few milliseconds.
 */
export const PROOF_WAIT_FLOOR_MS = 10
/**
 * A sender's fresh heartbeat gets a challenge when the last one we sent it is this old: its
 * proof measures a round trip of the path as it is now, for the next hint's check. A
 * coordinator's heartbeats bring one challenge and one proof per follower in this time; other
 * nodes are measured only by the checks themselves. Not on election frames: there the
 * challenge and its proof went ahead of the answers in the bus's send pacing (5 packets, then
 * one per 20 ms), and the last of a bully's OKs to 11 elections left after T.
 */
export const RTT_SAMPLE_MS = 5000
/** Senders tracked at most (only holders of the key create entries). */
const MAX_PEERS = 64
const MAX_U32 = 4294967295

/**
 * HMAC-SHA256 with the frame key of the first `length` bytes of `data` (at least
 * AUTH_TAG_BYTES bytes out). The data is a received frame as the transport gave it (a Buffer
 * on a board) or a frame being sealed: no copy of it is made here.
 */
export type MacFunction = (data: ByteSource, length: number) => ByteSource
/** A uniformly random integer 0..2^32-1. */
export type Random32 = () => number

export enum AuthRefusal {
    None = 0,
    /** No trailer, or a length that fits no sealed frame. */
    Unsigned = 1,
    /** The tag does not verify: wrong key or forged. */
    BadTag = 2,
    /** Counter already seen, too old, or sent before the proof's freshness floor. */
    Replay = 3,
    /** Held for a proof that never came, or pushed out by later frames. */
    Unproven = 4,
    /** (seal) The sealed frame would not fit one Jacdac packet. */
    TooLong = 5,
    /** Sent longer than FRESH_MS ago by the sender's clock (a captured frame replayed later). */
    Stale = 6,
    /** A challenge beyond the challenger's rate (PROOF_BURST): a flood, dropped unanswered. */
    Flood = 7,
    /** A proof later than PROOF_WINDOW_MS after its challenge (held back on the way). */
    Late = 8,
    /** (seal) The counter would run more than MAX_AHEAD_MS ahead of the clock. */
    TooFast = 9,
}

export const AUTH_REFUSAL_COUNT = 10
const REFUSAL_NAMES = ["none", "unsigned", "bad-tag", "replay", "unproven", "too-long", "stale", "flood", "late", "too-fast"]

export function authRefusalName(r: number): string {
    return nameIn(REFUSAL_NAMES, r, 0, "refusal")
}

/** What open() made of one received frame. */
export interface Opened {
    /** Not for this node (another destination, or its own frame heard back): drop silently. */
    ignored: boolean
    refusal: AuthRefusal
    /** Claimed sender, or -1. */
    src: number
    /**
     * Election frames to decode, oldest first (released held frames, or this one), as they
     * arrived: sealed, so the plain frame is all but the last AUTH_TRAILER_BYTES (the received
     * bytes are kept, not copied: a board's heap is 64 KB).
     */
    frames: ByteSource[]
    /** A control frame to unicast to `replyTo` (challenge or proof), or null. */
    reply: ByteSource
    replyTo: number
    /** After a proof, our own challenge to the same node when we cannot vouch for it yet, or null. */
    challengeBack: ByteSource
    /** The frame was held until its sender proves freshness. */
    held: boolean
}

/** A frame held until its sender (`from`) proves its boot. */
class Held {
    // receivedAt, not at: a read of .at anywhere keeps Array.prototype.at in a board image
    constructor(public from: number, public nonce: number, public counter: number, public receivedAt: number, public frame: ByteSource) {}
}

/**
 * What a receiver keeps of one sender: numbers in the slots of one array, made at once (on a
 * board a class's field takes 16 bytes, its name and its value, and an array's slot 8), and
 * the challenges and boots it remembers in a u32 table of its own (PEER_TABLE_BYTES, 4 bytes each).
 */
const enum Peer {
    Id,
    /** -1 until a proof establishes it. */
    Nonce,
    /** Receiver's clock minus the sender's counter for the quickest frame (learned per nonce). */
    Offset,
    /** Receiver's time when `Offset` was last lowered or confirmed: it may creep up by drift since. */
    OffsetAt,
    Floor,
    Challenge,
    /** The challenge before the last one: its proof may still be on the way. */
    PreviousChallenge,
    ChallengeAt,
    PreviousChallengeAt,
    /** 1 once its proof of the hello came. */
    HelloAnswered,
    /** A challenge of the proven nonce with a clock below this is a replay. */
    ChallengeFloor,
    /** Proofs this challenger's unproven boots may still get now (refilled one per CHALLENGE_RETRY_MS). */
    ProofTokens,
    TokensAt,
    /** 1: a frame of the proven nonce was found stale, and the next proof sets the offset afresh. */
    Reproving,
    /** Last time a proof or a fresh frame of this sender was taken; -1 never. */
    ProvenAt,
    /** Smoothed round trip from our challenges to this node's proofs (RFC 6298's SRTT); -1: none measured yet. */
    Srtt,
    /** Their mean deviation (RTTVAR). */
    Rttvar,
    /** The challenge whose round trip is measured (a check's, or a periodic one); -1: none. */
    Measuring,
    /** Challenge values and retired nonces remembered so far (their rings' next slots). */
    AnsweredCount,
    RetiredCount,
    Slots,
}

// The table's u32s, in rings: the last CHALLENGE_MEMORY challenge values of this challenger's
// unproven boots answered and its last RETIRED_NONCES boots proven here and since replaced;
// then the last REPLAY_WINDOW frame counters taken (0: a free slot; counters start at 1).
const ANSWERED_AT = 0
const RETIRED_AT = ANSWERED_AT + CHALLENGE_MEMORY * 4
const SEEN_AT = RETIRED_AT + RETIRED_NONCES * 4
const PEER_TABLE_BYTES = SEEN_AT + REPLAY_WINDOW * 4


/** 32 bytes from 64 hex digits, or null. */
export function parseKeyHex(text: string): number[] {
    const t = text.trim()
    if (t.length !== 64) return null
    const out: number[] = []
    for (let i = 0; i < 64; i += 2) {
        const byte = parseHex(t.slice(i, i + 2))
        if (byte < 0) return null
        out.push(byte)
    }
    return out
}

export class FrameAuth {
    /** This boot's nonce: random, never stored. */
    nonce: number
    counter = 0
    /** Refused frames by AuthRefusal. */
    refused: number[] = zeroBytes(AUTH_REFUSAL_COUNT)
    /** Frames whose tag verified. */
    verified = 0
    challengesSent = 0
    // (internal, with the fields below: the module's functions after the class use them)
    firstBadTagAt = -1
    helloValue = -1
    helloAt = 0
    proofsSent = 0
    /** Per sender, in the same order: its record (Peer) and its u32 table (challenges, boots, the last REPLAY_WINDOW counters taken). */
    peers: number[][] = []
    tables: ByteSource[] = []
    /** Frames held until their senders prove their boots, oldest first. */
    held: Held[] = []
    /** Our clock's zero: just before the first counter of this nonce (once clockStarted). */
    clockStart = 0
    clockStarted = false

    /**
     * `alloc(n)`: n zero bytes for a control frame (a board: a Buffer, 1 byte a byte; a
     * number[] would take 8).
     */
    constructor(
        readonly id: number,
        readonly group: number,
        readonly mac: MacFunction,
        readonly random32: Random32,
        readonly alloc: (n: number) => ByteSource
    ) {
        this.nonce = random32()
    }

    refusedTotal(): number {
        return sum(this.refused)
    }

    /** The group's frames never verify here: the key is most likely not the group's. */
    keyMismatch(now: number): boolean {
        if (this.verified !== 0) return false
        if (this.refused[AuthRefusal.BadTag] < KEY_MISMATCH_TAGS) return false
        return now - this.firstBadTagAt >= KEY_MISMATCH_MS
    }

    /**
     * Seals the encoded frame in the first `length` bytes of `out` in place: counter, nonce and
     * tag go in the AUTH_TRAILER_BYTES after it. False (nothing written) if it would not fit.
     */
    seal(out: ByteSource, length: number, now: number): boolean {
        if (length + AUTH_TRAILER_BYTES > MAX_FRAME_BYTES) {
            this.refused[AuthRefusal.TooLong] = this.refused[AuthRefusal.TooLong] + 1
            return false
        }
        const counter = nextCounter(this, now)
        if (counter < 0) {
            this.refused[AuthRefusal.TooFast] = this.refused[AuthRefusal.TooFast] + 1
            return false
        }
        setUint(out, length, counter, 4)
        setUint(out, length + 4, this.nonce, 4)
        writeTag(this, out, length + 8)
        return true
    }

    /**
     * A challenge to every node, sent at start: each answers with a proof (and challenges us
     * back), so that first contacts cost no round trip in the middle of an election.
     */
    helloChallenge(now: number): ByteSource {
        this.helloValue = this.random32()
        this.helloAt = now
        return challengeFrame(this, BROADCAST, this.helloValue, now, ANY_BOOT)
    }

    /** A received frame: verified, checked for replay, held or released. Never throws. */
    open(bytes: ByteSource, now: number): Opened {
        expireHeld(this, now)
        const n = bytes ? bytes.length : 0
        if (n >= 1) {
            if (bytes[0] === AUTH_CONTROL_MARKER) return openControl(this, bytes, now)
        }
        const r = newResult(-1)
        if (n >= FRAME_HEADER_BYTES) {
            r.src = getU16(bytes, 8)
            const dst = getU16(bytes, 10)
            let ignore = r.src === this.id
            if (dst !== this.id) {
                if (dst !== BROADCAST) ignore = true
            }
            if (ignore) {
                r.ignored = true
                return r
            }
        }
        if (n < FRAME_HEADER_BYTES + AUTH_TRAILER_BYTES || n !== FRAME_HEADER_BYTES + 2 * bytes[FRAME_LIST_LENGTH_OFFSET] + AUTH_TRAILER_BYTES)
            return refuse(this, r, AuthRefusal.Unsigned, now)
        if (!tagMatches(this, bytes, n - AUTH_TAG_BYTES)) return refuse(this, r, AuthRefusal.BadTag, now)
        this.verified = this.verified + 1
        const counter = getU32(bytes, n - AUTH_TRAILER_BYTES)
        const nonce = getU32(bytes, n - AUTH_TRAILER_BYTES + 4)
        const i = peerIndex(this, r.src)
        const p = this.peers[i]
        if (p[Peer.Nonce] === nonce) {
            const why = fresh(p, this.tables[i], counter, now, now)
            if (why === AuthRefusal.None) {
                r.frames.push(bytes)
                // now and then a round trip of this sender's (a challenge; its proof is measured)
                if (bytes[1] === Kind.HEARTBEAT)
                    if (now - p[Peer.ChallengeAt] >= RTT_SAMPLE_MS) {
                        r.reply = challengeTo(this, p, now, nonce, true)
                        r.replyTo = r.src
                    }
                return r
            }
            if (why !== AuthRefusal.Stale) return refuse(this, r, why, now)
            // Stale by the offset we hold: a replay, or a quiet sender whose clock drifted past
            // the allowance. Hold it and re-prove the sender; the proof's floor sorts them out.
            p[Peer.Reproving] = 1
        }
        // A nonce we cannot vouch for: a reboot (ours or the sender's) or a replay. Hold it.
        r.held = hold(this, r.src, nonce, counter, now, bytes)
        const challenge = challengeTo(this, p, now, nonce)
        if (challenge) {
            r.reply = challenge
            r.replyTo = r.src
        }
        if (!r.held) r.refusal = AuthRefusal.Unproven
        return r
    }

    /**
     * A sealed challenge to node `id`, to check an unauthenticated hint (a last will, a
     * duplicate id) before acting on it: unicast it, then ask proven(id, now) after a round trip.
     * For `id` = this node, the challenge reaches whichever other board claims our id.
     */
    probe(id: number, now: number): ByteSource {
        // a probe asks now: the retry limit applies to frames; the driver probes once per hint
        const p = this.peers[peerIndex(this, id)]
        return challengeTo(this, p, now, p[Peer.Nonce], true)
    }

    /**
     * Whether node `id` proved itself (a proof, or a fresh sealed frame) after `since`: a frame
     * taken at that very time was taken before the hint that asks (the driver takes a hint in
     * order behind the frames that came before it), and a proof needs a round trip.
     */
    proven(id: number, since: number): boolean {
        for (let i = 0; i < this.peers.length; i++) if (this.peers[i][Peer.Id] === id) return this.peers[i][Peer.ProvenAt] > since
        return false
    }
}

/**
 * How long a hint's check waits for node `id`'s proof: twice the smoothed round trip of our
 * challenges to its proofs plus four mean deviations (RFC 6298's RTO, SRTT doubled), whole
 * milliseconds within [PROOF_WAIT_FLOOR_MS, ceiling]; the ceiling until a round trip was measured.
 */
export function proofWait(auth: FrameAuth, id: number, ceiling: number): number {
    // (the check probes `id` next: its entry is made here if it is new)
    const p = auth.peers[peerIndex(auth, id)]
    if (p[Peer.Srtt] < 0) return ceiling
    return Math.min(ceiling, Math.max(PROOF_WAIT_FLOOR_MS, Math.ceil(2 * p[Peer.Srtt] + 4 * p[Peer.Rttvar])))
}

/**
 * The round trip of the challenge now out to `id` is not measured: its check ran out on a node
 * that was late itself, whose proof, if it comes, times the node's pause and not the path
 * (Karn's rule).
 */
export function unmeasured(auth: FrameAuth, id: number) {
    auth.peers[peerIndex(auth, id)][Peer.Measuring] = -1
}

/** Writes the tag of the first `length` bytes of `out` after them. */
function writeTag(auth: FrameAuth, out: ByteSource, length: number) {
    const full = auth.mac(out, length)
    for (let i = 0; i < AUTH_TAG_BYTES; i++) out[length + i] = full[i]
}

/** A copy of the encoded `frame`, sealed; null if it would not fit (FrameAuth.seal). */
export function sealCopy(auth: FrameAuth, frame: ByteSource, now: number): number[] {
    const out = zeroBytes(frame.length + AUTH_TRAILER_BYTES)
    for (let i = 0; i < frame.length; i++) out[i] = frame[i]
    return auth.seal(out, frame.length, now) ? out : null
}

/** Compares every byte whatever the outcome, so timing says nothing about the tag. */
function tagMatches(auth: FrameAuth, bytes: ByteSource, signedLength: number): boolean {
    const expected = auth.mac(bytes, signedLength)
    let diff = 0
    for (let i = 0; i < AUTH_TAG_BYTES; i++) diff |= expected[i] ^ bytes[signedLength + i]
    return diff === 0
}

/** Whole milliseconds since this nonce's first counter. */
function clockOf(auth: FrameAuth, now: number): number {
    // one millisecond before the first counter, so that counter 1 is the clock too
    if (!auth.clockStarted) {
        auth.clockStart = now - 1
        auth.clockStarted = true
    }
    return Math.floor(now - auth.clockStart)
}

/** The sender's clock, never repeating: max(previous + 1, clock); -1 past MAX_AHEAD_MS. */
function nextCounter(auth: FrameAuth, now: number): number {
    const clock = clockOf(auth, now)
    const next = Math.max(auth.counter + 1, clock)
    if (next > clock + MAX_AHEAD_MS) {
        if (clock < MAX_U32) return -1
    }
    if (next >= MAX_U32) {
        // 2^32 ms (49 days) spent: a new nonce and clock, as after a reboot
        auth.nonce = auth.random32()
        auth.clockStart = now - 1
        auth.counter = 1
        return auth.counter
    }
    auth.counter = next
    return auth.counter
}

/**
 * A challenge carrying our clock (a prover that knows this boot refuses one not above the last
 * it answered) and, in the floor's place, the prover's boot it asks for (not known, -1: ANY_BOOT).
 */
function challengeFrame(auth: FrameAuth, dst: number, value: number, now: number, target: number): ByteSource {
    auth.challengesSent = auth.challengesSent + 1
    return controlFrame(auth, CONTROL_CHALLENGE, dst, value, clockOf(auth, now), Math.max(ANY_BOOT, target))
}

function controlFrame(auth: FrameAuth, type: number, dst: number, challenge: number, counter: number, floor: number): ByteSource {
    const out = auth.alloc(AUTH_CONTROL_BYTES)
    setUint(out, 20, floor, 4)
    setUint(out, 16, counter, 4)
    setUint(out, 12, auth.nonce, 4)
    setUint(out, 8, challenge, 4)
    setUint(out, 6, dst, 2)
    setUint(out, 4, auth.id, 2)
    out[3] = 0
    out[2] = auth.group
    out[1] = type
    out[0] = AUTH_CONTROL_MARKER
    writeTag(auth, out, AUTH_CONTROL_BYTES - AUTH_TAG_BYTES)
    return out
}

/** Where sender `id`'s record is in `auth.peers` (its table in `auth.tables`); made if new. */
function peerIndex(auth: FrameAuth, id: number): number {
    let i = 0
    while (i < auth.peers.length) {
        if (auth.peers[i][Peer.Id] === id) return i
        i++
    }
    // beyond MAX_PEERS senders (only holders of the key make records) one takes another's place
    if (i >= MAX_PEERS) i = id % MAX_PEERS
    const p = zeroBytes(Peer.Slots)
    p[Peer.Id] = id
    p[Peer.Nonce] = -1
    p[Peer.Challenge] = -1
    p[Peer.PreviousChallenge] = -1
    p[Peer.ProofTokens] = PROOF_BURST
    p[Peer.ProvenAt] = -1
    p[Peer.Srtt] = -1
    p[Peer.Measuring] = -1
    auth.peers[i] = p
    auth.tables[i] = auth.alloc(PEER_TABLE_BYTES)
    return i
}

/** What this node holds of sender `id`, or null: its proven boot nonce (-1: none yet) and the proofs its unproven boots may still get. */
export function peerRecord(auth: FrameAuth, id: number): { nonce: number; proofTokens: number } {
    for (let i = 0; i < auth.peers.length; i++) {
        const p = auth.peers[i]
        if (p[Peer.Id] === id) return { nonce: p[Peer.Nonce], proofTokens: p[Peer.ProofTokens] }
    }
    return null
}

/** Whether `value` is among the first `count` u32s of `table` from byte `at`. */
function tableHas(table: ByteSource, at: number, count: number, value: number): boolean {
    for (let i = 0; i < count; i++) if (getU32(table, at + 4 * i) === value) return true
    return false
}

/** Remembers `value` in the ring of `size` u32s at `at`, whose count so far is slot `countSlot` of `p`. */
function remember(p: number[], countSlot: number, table: ByteSource, at: number, size: number, value: number) {
    setUint(table, at + 4 * (p[countSlot] % size), value, 4)
    p[countSlot] = p[countSlot] + 1
}

/**
 * The offset as it may have crept since it was learned: clocks drift apart by up to
 * 1/DRIFT_DIVISOR, but for CREEP_CAP_MS at most (a quiet sender is re-proven instead).
 */
function driftedOffset(p: number[], now: number): number {
    return p[Peer.Offset] + Math.min(now - p[Peer.OffsetAt], CREEP_CAP_MS) / DRIFT_DIVISOR
}

/** Takes a sample of receive time − counter: a lower one (a quicker frame, or drift) becomes the offset. */
function learnOffset(p: number[], sample: number, now: number) {
    p[Peer.Offset] = Math.min(driftedOffset(p, now), sample)
    p[Peer.OffsetAt] = now
}

/** Age, window and floor check of a frame received at `at`; records the counter when taken. */
function fresh(p: number[], table: ByteSource, counter: number, at: number, now: number): AuthRefusal {
    const sample = at - counter
    if (sample - driftedOffset(p, now) > FRESH_MS) return AuthRefusal.Stale
    if (counter < p[Peer.Floor]) return AuthRefusal.Replay
    // one pass: a counter taken is a replay; else a free slot (0) first, else the oldest counter's
    let lowest = 0
    let lowestCounter = -1
    for (let i = 0; i < REPLAY_WINDOW; i++) {
        const c = getU32(table, SEEN_AT + 4 * i)
        if (c === counter) return AuthRefusal.Replay
        if (lowestCounter < 0 || c < lowestCounter) {
            lowest = i
            lowestCounter = c
        }
    }
    if (counter < lowestCounter) return AuthRefusal.Replay
    setUint(table, SEEN_AT + 4 * lowest, counter, 4) // the oldest goes
    learnOffset(p, sample, now)
    p[Peer.ProvenAt] = now
    return AuthRefusal.None
}

function newResult(src: number): Opened {
    return { ignored: false, refusal: AuthRefusal.None, src: src, frames: [], reply: null, replyTo: -1, held: false, challengeBack: null }
}

function refuse(auth: FrameAuth, r: Opened, why: AuthRefusal, now: number): Opened {
    auth.refused[why] = auth.refused[why] + 1
    if (why === AuthRefusal.BadTag) {
        if (auth.firstBadTagAt < 0) auth.firstBadTagAt = now
    }
    r.refusal = why
    return r
}

/** Held frames whose sender never proved freshness are refused once they are too old to release. */
function expireHeld(auth: FrameAuth, now: number) {
    if (auth.held.length === 0) return
    const keep: Held[] = []
    for (let j = 0; j < auth.held.length; j++) {
        if (now - auth.held[j].receivedAt <= 2 * FRESH_MS) keep.push(auth.held[j])
        else auth.refused[AuthRefusal.Unproven] = auth.refused[AuthRefusal.Unproven] + 1
    }
    auth.held = keep
}

/**
 * A fresh challenge to `p` if none went out within CHALLENGE_RETRY_MS, or null. One to
 * `measure` a round trip (a check's, or a periodic one) goes whatever that limit says, and its
 * proof's round trip is measured.
 */
function challengeTo(auth: FrameAuth, p: number[], now: number, target: number, measure = false): ByteSource {
    if (!measure) {
        if (p[Peer.Challenge] >= 0) {
            if (now - p[Peer.ChallengeAt] < CHALLENGE_RETRY_MS) return null
        }
    }
    p[Peer.PreviousChallenge] = p[Peer.Challenge]
    p[Peer.PreviousChallengeAt] = p[Peer.ChallengeAt]
    p[Peer.Challenge] = auth.random32()
    p[Peer.ChallengeAt] = now
    if (measure) p[Peer.Measuring] = p[Peer.Challenge]
    return challengeFrame(auth, p[Peer.Id], p[Peer.Challenge], now, target)
}

/**
 * Holds a frame until its sender proves this nonce. Frames are kept per nonce: a frame of a
 * nonce beyond MAX_HELD_NONCES, or beyond MAX_HELD_ALL frames, is refused (it never pushes
 * out another nonce's frames).
 */
function hold(auth: FrameAuth, from: number, nonce: number, counter: number, now: number, frame: ByteSource): boolean {
    let ofNonce = 0
    let oldest = -1
    let nonces: number[] = []
    for (let i = 0; i < auth.held.length; i++) {
        const h = auth.held[i]
        if (h.from !== from) continue
        if (nonces.indexOf(h.nonce) < 0) nonces.push(h.nonce)
        if (h.nonce !== nonce) continue
        ofNonce = ofNonce + 1
        // the list is in the order frames came: the first of this nonce is its oldest
        if (oldest < 0) oldest = i
    }
    const full = ofNonce >= MAX_HELD
    if (!full && (auth.held.length >= MAX_HELD_ALL || (ofNonce === 0 && nonces.length >= MAX_HELD_NONCES))) {
        auth.refused[AuthRefusal.Unproven] = auth.refused[AuthRefusal.Unproven] + 1
        return false
    }
    if (full) {
        const keep: Held[] = []
        for (let i = 0; i < auth.held.length; i++) if (i !== oldest) keep.push(auth.held[i])
        auth.held = keep
        auth.refused[AuthRefusal.Unproven] = auth.refused[AuthRefusal.Unproven] + 1
    }
    auth.held.push(new Held(from, nonce, counter, now, frame))
    return true
}

/** Takes one proof token of challenger `q` if more than `keep` are left (refilled one per CHALLENGE_RETRY_MS up to PROOF_BURST). */
function takeProofToken(q: number[], now: number, keep: number): boolean {
    const refill = Math.floor((now - q[Peer.TokensAt]) / CHALLENGE_RETRY_MS)
    if (refill > 0) {
        q[Peer.ProofTokens] = Math.min(PROOF_BURST, q[Peer.ProofTokens] + refill)
        q[Peer.TokensAt] = q[Peer.TokensAt] + refill * CHALLENGE_RETRY_MS
    }
    if (q[Peer.ProofTokens] === PROOF_BURST) q[Peer.TokensAt] = now
    if (q[Peer.ProofTokens] <= keep) return false
    q[Peer.ProofTokens] = q[Peer.ProofTokens] - 1
    return true
}

function openControl(auth: FrameAuth, bytes: ByteSource, now: number): Opened {
    const r = newResult(bytes.length >= 6 ? getU16(bytes, 4) : -1)
    if (bytes.length !== AUTH_CONTROL_BYTES) return refuse(auth, r, AuthRefusal.Unsigned, now)
    const dst = getU16(bytes, 6)
    const nonce = getU32(bytes, 12)
    // our own control frame heard back; another nonce under our id is a duplicate board.
    // Another group's fails its tag: the frame key is the group's.
    let ignore = r.src === auth.id
    if (nonce !== auth.nonce) ignore = false
    if (dst !== auth.id) {
        if (dst !== BROADCAST) ignore = true
    }
    if (ignore) {
        r.ignored = true
        return r
    }
    if (!tagMatches(auth, bytes, AUTH_CONTROL_BYTES - AUTH_TAG_BYTES)) return refuse(auth, r, AuthRefusal.BadTag, now)
    auth.verified = auth.verified + 1
    const challenge = getU32(bytes, 8)
    // a challenge's clock and target; a proof's clock and floor
    const clock = getU32(bytes, 16)
    const word20 = getU32(bytes, 20)
    // (one call of refuse per branch: each costs a board's image bytes)
    let why = AuthRefusal.None
    const at = peerIndex(auth, r.src)
    const p = auth.peers[at]
    const table = auth.tables[at]
    if (bytes[1] === CONTROL_CHALLENGE) {
        // a recorded challenge replayed, or more than the challenger's rate: no proof, no token.
        // One naming another boot of ours was recorded before we booted; one of a challenger's
        // boot we proved and saw replaced, before it rebooted. A proven boot's challenges are
        // told by their clock (a keyed board challenges a peer at most once per
        // CHALLENGE_RETRY_MS and one probe at a time); others by value and rate.
        let keep = PROOF_RESERVE
        if (word20 !== ANY_BOOT) {
            keep = 0
            if (word20 !== auth.nonce) why = AuthRefusal.Replay
        }
        if (tableHas(table, RETIRED_AT, Math.min(p[Peer.RetiredCount], RETIRED_NONCES), nonce)) why = AuthRefusal.Replay
        if (why !== AuthRefusal.None) {
            // refused below
        } else if (p[Peer.Nonce] === nonce) {
            if (clock < p[Peer.ChallengeFloor]) why = AuthRefusal.Replay
            else p[Peer.ChallengeFloor] = clock + 1
        } else if (tableHas(table, ANSWERED_AT, Math.min(p[Peer.AnsweredCount], CHALLENGE_MEMORY), challenge)) why = AuthRefusal.Replay
        else if (!takeProofToken(p, now, keep)) why = AuthRefusal.Flood
        else remember(p, Peer.AnsweredCount, table, ANSWERED_AT, CHALLENGE_MEMORY, challenge)
        if (why !== AuthRefusal.None) return refuse(auth, r, why, now)
        auth.proofsSent = auth.proofsSent + 1
        // the clock, not a counter: proofs never move the frame counter ahead of the clock; the
        // floor: every frame sent within FRESH_MS has a counter at least this (counters never
        // fall behind the clock)
        const ours = clockOf(auth, now)
        r.reply = controlFrame(auth, CONTROL_PROOF, r.src, challenge, ours, Math.max(0, ours - FRESH_MS))
        r.replyTo = r.src
        // the challenger is probably new (it just started): make sure of it too
        if (p[Peer.Nonce] !== nonce) {
            if (r.src !== auth.id) r.challengeBack = challengeTo(auth, p, now, nonce)
        }
        return r
    }
    // when what it answers was asked; a proof of nothing we asked is a replay (an unset
    // challenge or hello is -1, which no u32 equals)
    let asked = false
    let askedAt = 0
    if (challenge === auth.helloValue) {
        asked = true
        askedAt = auth.helloAt
        // one proof per node for the hello: a second copy is a replay
        if (p[Peer.HelloAnswered] === 1) why = AuthRefusal.Replay
    }
    if (challenge === p[Peer.PreviousChallenge]) {
        asked = true
        askedAt = p[Peer.PreviousChallengeAt]
        why = AuthRefusal.None
    }
    if (challenge === p[Peer.Challenge]) {
        asked = true
        askedAt = p[Peer.ChallengeAt]
        why = AuthRefusal.None
    }
    if (bytes[1] !== CONTROL_PROOF) asked = false
    if (now - askedAt > PROOF_WINDOW_MS) why = AuthRefusal.Late
    if (!asked) why = AuthRefusal.Replay
    if (why !== AuthRefusal.None) return refuse(auth, r, why, now)
    if (challenge === auth.helloValue) p[Peer.HelloAnswered] = 1
    // (the rest in a function of its own: each call's locals are one block of the heap, and a
    // board whose heap is in pieces has no room for a large one: docs/image-size.md)
    return acceptProof(auth, r, p, table, bytes, askedAt, now)
}

/** A proof that answers what we asked, in time: the sender's boot, its clock, a round trip, its held frames. */
function acceptProof(auth: FrameAuth, r: Opened, p: number[], table: ByteSource, bytes: ByteSource, askedAt: number, now: number): Opened {
    const challenge = getU32(bytes, 8)
    const nonce = getU32(bytes, 12)
    // the prover's clock and floor
    const clock = getU32(bytes, 16)
    const word20 = getU32(bytes, 20)
    if (p[Peer.Nonce] !== nonce) {
        // (none before the first proof)
        if (p[Peer.Nonce] >= 0) remember(p, Peer.RetiredCount, table, RETIRED_AT, RETIRED_NONCES, p[Peer.Nonce])
        p[Peer.Nonce] = nonce
        // the offset and floor start afresh (below)
        p[Peer.Floor] = 0
        p[Peer.Reproving] = 1
        // the proof's counter is the sender's clock, not a frame counter: nothing to remember
        for (let i = 0; i < REPLAY_WINDOW; i++) setUint(table, SEEN_AT + 4 * i, 0, 4)
        // this boot's challenges sent before its proof are answered or obsolete
        p[Peer.ChallengeFloor] = clock
    } else if (challenge === p[Peer.Measuring]) {
        // A boot already proven, and a challenge sent to measure (a check's, or a periodic one):
        // its round trip, smoothed as RFC 6298 does (a late one too: the wait grows). First
        // contacts and the hello are not measured: they time a board busy booting (up to ten
        // times the path's round trip), not the path.
        const rtt = now - askedAt
        if (p[Peer.Srtt] < 0) {
            p[Peer.Srtt] = rtt
            p[Peer.Rttvar] = rtt / 2
        } else {
            p[Peer.Rttvar] = (3 * p[Peer.Rttvar] + Math.abs(p[Peer.Srtt] - rtt)) / 4
            p[Peer.Srtt] = (7 * p[Peer.Srtt] + rtt) / 8
        }
    }
    if (p[Peer.Reproving] === 1) {
        // a new boot, or re-proven after a stale frame: the offset starts afresh, the window stands
        p[Peer.Offset] = now - clock
        p[Peer.OffsetAt] = now
        p[Peer.Floor] = Math.max(p[Peer.Floor], word20)
        // nor anything sent before this boot of ours: it cannot have been meant for it (a
        // recording replayed into our reboot), however fresh (the offset's transit errs low)
        if (auth.clockStarted) p[Peer.Floor] = Math.max(p[Peer.Floor], Math.floor(auth.clockStart - p[Peer.Offset]))
    } else learnOffset(p, now - clock, now) // a second proof of a boot already proven: the window stands
    p[Peer.Reproving] = 0
    p[Peer.ProvenAt] = now
    if (challenge === p[Peer.Challenge]) p[Peer.Challenge] = -1
    if (challenge === p[Peer.PreviousChallenge]) p[Peer.PreviousChallenge] = -1
    releaseHeld(auth, r, p, table, now)
    return r
}

/** Releases `r.src`'s held frames of its proven boot into `r`, oldest first, each once. */
function releaseHeld(auth: FrameAuth, r: Opened, p: number[], table: ByteSource, now: number) {
    // this sender's in counter order (an insertion: a handful at most), the others' as they were
    const held: Held[] = []
    const others: Held[] = []
    for (let i = 0; i < auth.held.length; i++) {
        const h = auth.held[i]
        if (h.from !== r.src) others.push(h)
        else {
            let k = held.length
            held.push(h)
            while (k > 0 && held[k - 1].counter > h.counter) {
                held[k] = held[k - 1]
                k--
            }
            held[k] = h
        }
    }
    auth.held = others
    for (let i = 0; i < held.length; i++) {
        const h = held[i]
        const why =
            h.nonce !== p[Peer.Nonce]
                ? AuthRefusal.Replay
                : now - h.receivedAt > 2 * FRESH_MS || h.counter < p[Peer.Floor]
                  ? AuthRefusal.Stale
                  : fresh(p, table, h.counter, h.receivedAt, now)
        if (why === AuthRefusal.None) r.frames.push(h.frame)
        else auth.refused[why] = auth.refused[why] + 1
    }
}

