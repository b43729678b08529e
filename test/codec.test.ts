import fc from "fast-check"
import { describe, expect, test } from "vitest"
import { CodecError, decodeFrame, encodeFrame, encodedSize } from "../src/core/codec"
import {
  Algorithm,
  BROADCAST,
  type Frame,
  FRAME_HEADER_BYTES,
  Kind,
  makeFrame,
  MAX_FRAME_BYTES,
  MAX_KIND,
  MAX_LIST_LENGTH,
} from "../src/core/frame"

const sample = (): Frame => ({
  ...makeFrame(Kind.TABLE, Algorithm.ImprovedBully, 7, 70000, 4, BROADCAST),
  initiator: 9,
  bid: 4_000_000_000,
  seq: 513,
  list: [1, 2, 300],
})

const frameArb: fc.Arbitrary<Frame> = fc.record({
  kind: fc.integer({ min: 1, max: 10 }),
  algorithm: fc.integer({ min: 1, max: 6 }),
  group: fc.integer({ min: 0, max: 255 }),
  epoch: fc.integer({ min: 0, max: 4294967295 }),
  src: fc.integer({ min: 0, max: 0xfffe }),
  dst: fc.integer({ min: 0, max: 0xffff }),
  initiator: fc.integer({ min: 0, max: 0xffff }),
  bid: fc.integer({ min: 0, max: 4294967295 }),
  seq: fc.integer({ min: 0, max: 0xffff }),
  list: fc.array(fc.integer({ min: 0, max: 0xffff }), { maxLength: MAX_LIST_LENGTH }),
})

function bytesOf(frame: Frame): number[] {
  const r = encodeFrame(frame)
  expect(r.error).toBe(CodecError.None)
  return r.bytes
}

describe("frame codec", () => {
  test("a known frame has the documented big-endian layout", () => {
    expect(bytesOf(sample())).toEqual([
      2, 5, 2, 7, 0, 1, 17, 112, 0, 4, 255, 255, 0, 9, 238, 107, 40, 0, 2, 1, 3, 0, 1, 0, 2, 1, 44,
    ])
  })

  test("round trip of any valid frame, from number[], Buffer and Uint8Array alike", () => {
    fc.assert(
      fc.property(frameArb, (frame) => {
        const bytes = bytesOf(frame)
        expect(bytes.length).toBe(encodedSize(frame))
        expect(bytes.length).toBeLessThanOrEqual(MAX_FRAME_BYTES)
        for (const input of [bytes, Buffer.from(bytes), Uint8Array.from(bytes)]) {
          const back = decodeFrame(input)
          expect(back.error).toBe(CodecError.None)
          expect(back.frame).toEqual(frame)
        }
      }),
    )
  })

  test("a frame with the longest list fills exactly one Jacdac packet", () => {
    const frame = { ...sample(), list: Array.from({ length: MAX_LIST_LENGTH }, (_, i) => i) }
    expect(bytesOf(frame).length).toBe(MAX_FRAME_BYTES - 1)
    expect(FRAME_HEADER_BYTES + 2 * MAX_LIST_LENGTH).toBeLessThanOrEqual(MAX_FRAME_BYTES)
  })

  test("decoding never throws, whatever the bytes", () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: -1, max: 300 }), { maxLength: 300 }), (bytes) => {
        const r = decodeFrame(bytes)
        expect(r.error === CodecError.None).toBe(r.frame !== null)
      }),
    )
  })

  describe("decoding rejects, with a reason", () => {
    const good = () => bytesOf(sample())
    const cases: [string, () => unknown, CodecError][] = [
      ["empty input", () => [], CodecError.Short],
      ["null input", () => null, CodecError.Short],
      ["one byte short of a header", () => good().slice(0, FRAME_HEADER_BYTES - 1), CodecError.Short],
      ["more than 236 bytes", () => new Array(MAX_FRAME_BYTES + 1).fill(0), CodecError.Long],
      ["an unknown version", () => Object.assign(good(), { 0: 3 }), CodecError.Version],
      ["version 1 (before seq)", () => Object.assign(good(), { 0: 1 }), CodecError.Version],
      ["version 0", () => Object.assign(good(), { 0: 0 }), CodecError.Version],
      ["kind 0", () => Object.assign(good(), { 1: 0 }), CodecError.Kind],
      ["a kind past the last", () => Object.assign(good(), { 1: MAX_KIND + 1 }), CodecError.Kind],
      ["algorithm 0", () => Object.assign(good(), { 2: 0 }), CodecError.Algorithm],
      ["an algorithm past the last", () => Object.assign(good(), { 2: 7 }), CodecError.Algorithm],
      ["a list length larger than the bytes", () => Object.assign(good(), { 20: 4 }), CodecError.Length],
      ["a list length smaller than the bytes", () => Object.assign(good(), { 20: 2 }), CodecError.Length],
      ["a trailing odd byte", () => [...good(), 0], CodecError.Length],
      ["a list length over 107 in 236 bytes", () => [...good().slice(0, 20), 108, ...new Array(215).fill(0)], CodecError.Length],
      ["a source of 0xffff (broadcast)", () => Object.assign(good(), { 8: 255, 9: 255 }), CodecError.Field],
      ["a byte above 255", () => Object.assign(good(), { 5: 256 }), CodecError.Byte],
      ["a negative byte", () => Object.assign(good(), { 5: -1 }), CodecError.Byte],
      ["a fractional byte", () => Object.assign(good(), { 5: 1.5 }), CodecError.Byte],
    ]
    for (const [name, make, error] of cases)
      test(name, () => {
        const r = decodeFrame(make() as number[])
        expect(r.error).toBe(error)
        expect(r.frame).toBeNull()
      })
  })

  describe("encoding refuses a frame that could not be decoded", () => {
    const cases: [string, Partial<Frame>, CodecError][] = [
      ["seq past u16", { seq: 0x10000 }, CodecError.Field],
      ["kind 0", { kind: 0 as Kind }, CodecError.Kind],
      ["kind past the last", { kind: (MAX_KIND + 1) as Kind }, CodecError.Kind],
      ["algorithm 7", { algorithm: 7 as Algorithm }, CodecError.Algorithm],
      ["group 256", { group: 256 }, CodecError.Field],
      ["negative epoch", { epoch: -1 }, CodecError.Field],
      ["epoch past u32", { epoch: 2 ** 32 }, CodecError.Field],
      ["source 0xffff", { src: 0xffff }, CodecError.Field],
      ["destination past u16", { dst: 0x10000 }, CodecError.Field],
      ["fractional initiator", { initiator: 1.5 }, CodecError.Field],
      ["bid past u32", { bid: 2 ** 32 }, CodecError.Field],
      ["a list entry past u16", { list: [1, 70000] }, CodecError.Field],
      ["108 list entries", { list: new Array(MAX_LIST_LENGTH + 1).fill(1) }, CodecError.ListTooLong],
    ]
    for (const [name, patch, error] of cases)
      test(name, () => {
        const r = encodeFrame({ ...sample(), ...patch })
        expect(r.error).toBe(error)
        expect(r.bytes).toBeNull()
      })
  })
})
