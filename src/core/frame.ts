// Election frames: the one message format shared by every algorithm and transport.
// Portable: compiled by both tsc (Node) and the DeviceScript compiler.

import { nameIn } from "./portable"

/** Wire format version; a frame with any other version is rejected. 2 added `seq`. */
export const FRAME_VERSION = 2

/** A frame must fit in one Jacdac packet payload (236 bytes). */
export const MAX_FRAME_BYTES = 236

/** Fixed part of a frame, before the id list. */
export const FRAME_HEADER_BYTES = 21

/** Where the header holds the list's length (one byte). */
export const FRAME_LIST_LENGTH_OFFSET = 20

/** Most ids a list can carry in one frame: (236 - 21) / 2. */
export const MAX_LIST_LENGTH = 107

/** Largest sequence number; 0 means "none". */
export const MAX_SEQ = 0xffff

/** Destination of a frame meant for more than one process. */
export const BROADCAST = 0xffff

/** Largest process id (0xffff is reserved for BROADCAST). */
export const MAX_NODE_ID = 0xfffe

/** Message kinds. The numbers are on the wire: never renumber, only append. */
export enum Kind {
    ELECTION = 1,
    OK = 2,
    COORDINATOR = 3,
    REQUEST = 4,
    TABLE = 5,
    UPDATE = 6,
    HEARTBEAT = 7,
    ACK = 8,
    INQUIRY = 9,
    ECHO = 10,
    /** Our extension (handover): "I am about to lead: step down". */
    HANDOVER = 11,
    /** Our extension (handover): the answer, "I do not hold the role (any more)". */
    RESIGN = 12,
    /**
     * An application message (the election API), not part of any algorithm. `initiator`
     * holds the payload's length in bytes, `list` the payload two bytes per entry (the last
     * one's low byte 0 when the length is odd), `bid` the kind of message (0 plain,
     * APP_ORDER, APP_FENCED), `seq` the sender's message number. An order carries its
     * coordinator's fencing token: (epoch, src).
     */
    APP = 13,
}

/** Highest kind number this version understands. */
export const MAX_KIND = 13

/** `bid` flag of an APP frame: an order from the coordinator, fenced by its token (epoch, src). */
export const APP_ORDER = 1

/**
 * `bid` of an APP frame: "your order was refused: I took a newer token", sent by a follower to
 * the coordinator it follows; `epoch` and the 2-byte payload (holder) are that token.
 */
export const APP_FENCED = 2

/**
 * Largest application payload in bytes: what fits one Jacdac packet with the auth trailer
 * (99 list entries of two bytes, see auth.ts), sealed or not.
 */
export const MAX_APP_PAYLOAD = 198

/** Algorithms. The numbers are on the wire: never renumber, only append. */
export enum Algorithm {
    Bully = 1,
    ImprovedBully = 2,
    Ring = 3,
    ActiveListRing = 4,
    BidRing = 5,
    Echo = 6,
}

export const MAX_ALGORITHM = 6

/**
 * One election message. `list` carries ids (ring members, crashed entries of a
 * status table); `initiator` and `bid` are algorithm-specific payload fields.
 * `seq` names a ring message for its whole trip (set by its originator, kept by
 * forwarders), so that an ACK says which message it acknowledges and a receiver
 * can drop a copy it has already handled; an ACK carries the seq it acknowledges.
 */
export interface Frame {
    kind: Kind
    algorithm: Algorithm
    group: number
    epoch: number
    src: number
    dst: number
    initiator: number
    bid: number
    seq: number
    list: number[]
}

const KIND_NAMES = [
    "?",
    "ELECTION",
    "OK",
    "COORDINATOR",
    "REQUEST",
    "TABLE",
    "UPDATE",
    "HEARTBEAT",
    "ACK",
    "INQUIRY",
    "ECHO",
    "HANDOVER",
    "RESIGN",
    "APP",
]

export function kindName(kind: number): string {
    return nameIn(KIND_NAMES, kind, 1, "KIND")
}


export function makeFrame(
    kind: Kind,
    algorithm: Algorithm,
    group: number,
    epoch: number,
    src: number,
    dst: number
): Frame {
    return {
        kind: kind,
        algorithm: algorithm,
        group: group,
        epoch: epoch,
        src: src,
        dst: dst,
        initiator: 0,
        bid: 0,
        seq: 0,
        list: [],
    }
}

/**
 * A copy of `f` that shares its list (no frame's list changes once made: a process that adds
 * itself makes a new list). The simulator sends copies: a ring process passes a frame on again
 * past a dead successor with a new destination, and the copy on its way keeps the old one.
 */
export function copyFrame(f: Frame): Frame {
    const c = makeFrame(f.kind, f.algorithm, f.group, f.epoch, f.src, f.dst)
    c.initiator = f.initiator
    c.bid = f.bid
    c.seq = f.seq
    c.list = f.list
    return c
}
