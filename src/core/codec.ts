// Binary codec for election frames. Big-endian, packed by hand so that the same
// code runs on a DeviceScript Buffer, a Node Buffer, a Uint8Array or a number[].
//
// Layout (21-byte header, then the id list):
//   0 version u8 | 1 kind u8 | 2 algorithm u8 | 3 group u8 | 4 epoch u32
//   8 src u16 | 10 dst u16 | 12 initiator u16 | 14 bid u32 | 18 seq u16
//   20 list length u8 | 21.. list entries, u16 each
// Decoding never throws: a bad frame comes back with a reason, to be dropped and counted.
// An APP frame (application message) carries its payload in the list (see Kind.APP); its own
// rules are checked apart, by appFrameError, so that the election's code stays as small.

import {
    APP_FENCED,
    APP_ORDER,
    Frame,
    FRAME_HEADER_BYTES,
    FRAME_LIST_LENGTH_OFFSET,
    FRAME_VERSION,
    MAX_ALGORITHM,
    Kind,
    MAX_APP_PAYLOAD,
    MAX_FRAME_BYTES,
    MAX_KIND,
    MAX_LIST_LENGTH,
    MAX_NODE_ID,
    MAX_SEQ,
} from "./frame"
import { mod, nameIn } from "./portable"

/** Anything indexable as bytes: Buffer, Uint8Array, number[]. */
export interface ByteSource {
    readonly length: number
    [index: number]: number
}

export enum CodecError {
    None = 0,
    /** Fewer bytes than the fixed header. */
    Short = 1,
    /** More bytes than fit one Jacdac packet. */
    Long = 2,
    /** Version byte is not FRAME_VERSION. */
    Version = 3,
    /** Kind byte names no known message kind. */
    Kind = 4,
    /** Algorithm byte names no known algorithm. */
    Algorithm = 5,
    /** Declared list length disagrees with the number of bytes. */
    Length = 6,
    /** An input element is not an integer 0..255. */
    Byte = 7,
    /** A field is out of its range (for example a source id of 0xffff). */
    Field = 8,
    /** (encode) The list has more entries than fit one frame. */
    ListTooLong = 9,
    /** An APP frame whose length, flags or padding disagree with its payload. */
    Payload = 10,
}

export const CODEC_ERROR_COUNT = 11

const CODEC_ERROR_NAMES = [
    "none",
    "short",
    "long",
    "version",
    "kind",
    "algorithm",
    "length",
    "byte",
    "field",
    "list-too-long",
    "payload",
]

export function codecErrorName(error: number): string {
    return nameIn(CODEC_ERROR_NAMES, error, 0, "error")
}

export interface DecodeResult {
    frame: Frame
    error: CodecError
}

export interface EncodeResult {
    bytes: number[]
    error: CodecError
}

function isUint(x: number, max: number): boolean {
    if (x < 0) return false
    if (x > max) return false
    return Math.floor(x) === x
}

/** Value of a hex string, or -1 if it is not one (`parseInt(s, 16)` does not compile in DeviceScript). */
export function parseHex(text: string): number {
    return parseDigits(text.toLowerCase(), 16)
}

/** Value of `text` in `base` (10 or 16, lower-case digits), or -1 when it is empty or holds another character. */
export function parseDigits(text: string, base: number): number {
    if (text.length === 0) return -1
    let value = 0
    for (let i = 0; i < text.length; i++) {
        const digit = "0123456789abcdef".indexOf(text.charAt(i))
        if (digit < 0) return -1
        if (digit >= base) return -1
        value = value * base + digit
    }
    return value
}

/** Writes `x` as `count` bytes, big-endian, at `out[at]` (one function for both widths: fewer bytes on a board). */
export function setUint(out: ByteSource, at: number, x: number, count: number) {
    for (let i = count - 1; i >= 0; i--) {
        out[at + i] = mod(x, 256)
        x = Math.floor(x / 256)
    }
}

/**
 * `n` zeros, in one allocation of exactly `n` slots: an array grown by pushes is copied a
 * quarter larger at a time, and on a board each copy is a block of 8 bytes per element (an
 * array sized by its first write gets a quarter more slots than it needs).
 */
export function zeroBytes(n: number): number[] {
    const out: number[] = new Array(n)
    for (let i = 0; i < n; i++) out[i] = 0
    return out
}

export function getU16(b: ByteSource, at: number): number {
    return b[at] * 256 + b[at + 1]
}

export function getU32(b: ByteSource, at: number): number {
    return ((b[at] * 256 + b[at + 1]) * 256 + b[at + 2]) * 256 + b[at + 3]
}

/** Size in bytes of the encoded frame (valid frames only). */
export function encodedSize(frame: Frame): number {
    return FRAME_HEADER_BYTES + 2 * frame.list.length
}

/** Checks every field, so that a bad frame is refused before it reaches a wire. */
export function validateFrame(frame: Frame): CodecError {
    // one check a line: a board's compiler spends bytes on each || it evaluates
    if (!isUint(frame.kind, MAX_KIND)) return CodecError.Kind
    if (frame.kind < 1) return CodecError.Kind
    if (!isUint(frame.algorithm, MAX_ALGORITHM)) return CodecError.Algorithm
    if (frame.algorithm < 1) return CodecError.Algorithm
    if (!isUint(frame.group, 255)) return CodecError.Field
    if (!isUint(frame.epoch, 4294967295)) return CodecError.Field
    if (!isUint(frame.src, MAX_NODE_ID)) return CodecError.Field
    if (!isUint(frame.dst, 0xffff)) return CodecError.Field
    if (!isUint(frame.initiator, 0xffff)) return CodecError.Field
    if (!isUint(frame.bid, 4294967295)) return CodecError.Field
    if (!isUint(frame.seq, MAX_SEQ)) return CodecError.Field
    const list = frame.list
    if (list.length > MAX_LIST_LENGTH) return CodecError.ListTooLong
    for (let i = 0; i < list.length; i++)
        if (!isUint(list[i], 0xffff)) return CodecError.Field
    return CodecError.None
}

/** Two payload bytes per list entry, big-endian; an odd last byte is padded with 0. */
export function packPayload(bytes: ByteSource): number[] {
    const out: number[] = []
    // from the end: the first write sizes the array
    for (let i = (bytes.length + 1) >> 1; i-- > 0; ) out[i] = bytes[2 * i] * 256 + (2 * i + 1 < bytes.length ? bytes[2 * i + 1] : 0)
    return out
}

/** Writes an APP frame's payload (the frame must be valid) into `out`: frame.initiator bytes (a board: a Buffer). */
export function writePayload(frame: Frame, out: ByteSource) {
    for (let i = 0; i < frame.initiator; i++) {
        const v = frame.list[i >> 1]
        out[i] = mod(i, 2) === 0 ? Math.floor(v / 256) : mod(v, 256)
    }
}

/** An APP frame's payload bytes as numbers (the frame must be valid). */
export function unpackPayload(frame: Frame): number[] {
    const out = zeroBytes(frame.initiator)
    writePayload(frame, out)
    return out
}

/**
 * An APP frame's own rules, checked by the driver on top of decodeFrame and validateFrame
 * (which know the layout only): the length fits, matches the list, pads with 0; known
 * flags only. CodecError.None for any other kind.
 */
export function appFrameError(frame: Frame): CodecError {
    if (frame.kind !== Kind.APP) return CodecError.None
    const n = frame.initiator
    if (n > MAX_APP_PAYLOAD) return CodecError.Payload
    if (frame.list.length !== (n + 1) >> 1) return CodecError.Payload
    if (frame.bid !== 0) {
        if (frame.bid !== APP_ORDER) {
            if (frame.bid !== APP_FENCED) return CodecError.Payload
        }
    }
    if (frame.bid === APP_FENCED) {
        if (n !== 2) return CodecError.Payload
    }
    if (mod(n, 2) === 1) {
        if (mod(frame.list[frame.list.length - 1], 256) !== 0) return CodecError.Payload
    }
    return CodecError.None
}

export function encodeFrame(frame: Frame): EncodeResult {
    const error = validateFrame(frame)
    if (error !== CodecError.None) return { bytes: null, error: error }
    const out = zeroBytes(encodedSize(frame))
    writeFrame(frame, out)
    return { bytes: out, error: CodecError.None }
}

/** Writes a valid frame's encodedSize(frame) bytes at the start of `out` (a board: a Buffer of the sealed size). */
export function writeFrame(frame: Frame, out: ByteSource) {
    out[0] = FRAME_VERSION
    out[1] = frame.kind
    out[2] = frame.algorithm
    out[3] = frame.group
    setUint(out, 4, frame.epoch, 4)
    setUint(out, 8, frame.src, 2)
    setUint(out, 10, frame.dst, 2)
    setUint(out, 12, frame.initiator, 2)
    setUint(out, 14, frame.bid, 4)
    setUint(out, 18, frame.seq, 2)
    out[FRAME_LIST_LENGTH_OFFSET] = frame.list.length
    for (let i = 0; i < frame.list.length; i++) setUint(out, FRAME_HEADER_BYTES + 2 * i, frame.list[i], 2)
}

function fail(error: CodecError): DecodeResult {
    return { frame: null, error: error }
}

/** Decodes the first `length` bytes (default: all; a sealed frame's trailer is left out so). */
export function decodeFrame(bytes: ByteSource, length?: number): DecodeResult {
    if (!bytes) return fail(CodecError.Short)
    const n = length === undefined ? bytes.length : length
    if (!(n >= FRAME_HEADER_BYTES)) return fail(CodecError.Short)
    if (n > MAX_FRAME_BYTES) return fail(CodecError.Long)
    for (let i = 0; i < n; i++) if (!isUint(bytes[i], 255)) return fail(CodecError.Byte)
    if (bytes[0] !== FRAME_VERSION) return fail(CodecError.Version)
    const kind = bytes[1]
    if (kind < 1 || kind > MAX_KIND) return fail(CodecError.Kind)
    const algorithm = bytes[2]
    if (algorithm < 1 || algorithm > MAX_ALGORITHM) return fail(CodecError.Algorithm)
    const count = bytes[FRAME_LIST_LENGTH_OFFSET]
    if (n !== FRAME_HEADER_BYTES + 2 * count)
        return fail(CodecError.Length)
    const src = getU16(bytes, 8)
    if (src > MAX_NODE_ID) return fail(CodecError.Field)
    const list: number[] = []
    for (let i = 0; i < count; i++) list.push(getU16(bytes, FRAME_HEADER_BYTES + 2 * i))
    return {
        frame: {
            kind: kind,
            algorithm: algorithm,
            group: bytes[3],
            epoch: getU32(bytes, 4),
            src: src,
            dst: getU16(bytes, 10),
            initiator: getU16(bytes, 12),
            bid: getU32(bytes, 14),
            seq: getU16(bytes, 18),
            list: list,
        },
        error: CodecError.None,
    }
}
