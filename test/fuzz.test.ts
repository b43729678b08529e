// Frames cannot hurt: every algorithm, fed random well-formed frames interleaved with its
// timers, suspicions, departures, crashes and recoveries, never throws, never recurses
// without bound, never follows a process outside the membership, and every frame it sends
// encodes (no field pushed out of its range, epochs near 2^32 included).
import fc from "fast-check"
import { describe, expect, test } from "vitest"
import { createNode } from "../src/core/algorithms"
import { CodecError, encodeFrame } from "../src/core/codec"
import { Algorithm, BROADCAST, type Frame, MAX_ALGORITHM, MAX_KIND } from "../src/core/frame"
import { type Action, ActionType, MAX_TIMERS, NO_NODE } from "../src/core/contract"

type Event =
  | { type: "frame"; frame: Frame }
  | { type: "timer"; timer: number }
  | { type: "suspect" }
  | { type: "left"; id: number }
  | { type: "crash" }
  | { type: "recover" }

const IDS = [2, 3, 5, 7, 11]
const MY_ID = 5

/** Mostly members, sometimes any u16: the node must check every id it takes from a payload. */
const anId = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...IDS) },
  { weight: 1, arbitrary: fc.integer({ min: 0, max: 0xfffe }) },
)
const anEpoch = fc.oneof(
  fc.integer({ min: 0, max: 5 }),
  fc.integer({ min: 4294967290, max: 4294967295 }),
  fc.integer({ min: 0, max: 4294967295 }),
)
const aBid = fc.oneof(anId, fc.tuple(fc.integer({ min: 0, max: 65535 }), anId).map(([s, id]) => s * 65536 + id))

function frameArb(algorithm: Algorithm): fc.Arbitrary<Frame> {
  return fc.record({
    kind: fc.integer({ min: 1, max: MAX_KIND }),
    algorithm: fc.oneof({ weight: 9, arbitrary: fc.constant(algorithm) }, { weight: 1, arbitrary: fc.integer({ min: 1, max: MAX_ALGORITHM }) }),
    group: fc.oneof({ weight: 9, arbitrary: fc.constant(1) }, { weight: 1, arbitrary: fc.integer({ min: 0, max: 255 }) }),
    epoch: anEpoch,
    src: anId,
    dst: fc.oneof(fc.constant(MY_ID), fc.constant(BROADCAST), anId),
    initiator: anId,
    bid: aBid,
    seq: fc.integer({ min: 0, max: 0xffff }),
    list: fc.array(anId, { maxLength: 8 }),
  })
}

function eventArb(algorithm: Algorithm): fc.Arbitrary<Event> {
  return fc.oneof(
    { weight: 12, arbitrary: frameArb(algorithm).map((frame) => ({ type: "frame" as const, frame })) },
    { weight: 4, arbitrary: fc.integer({ min: 0, max: MAX_TIMERS - 1 }).map((timer) => ({ type: "timer" as const, timer })) },
    { weight: 1, arbitrary: fc.constant({ type: "suspect" as const }) },
    { weight: 1, arbitrary: anId.map((id) => ({ type: "left" as const, id })) },
    { weight: 1, arbitrary: fc.constant({ type: "crash" as const }) },
    { weight: 1, arbitrary: fc.constant({ type: "recover" as const }) },
  )
}

const timings = [
  { answerTimeout: 3, coordinatorTimeout: 5, heartbeatInterval: 0, failureTimeout: 0 },
  { answerTimeout: 200, coordinatorTimeout: 400, heartbeatInterval: 250, failureTimeout: 800 },
]

describe("fuzz: random well-formed frames cannot hurt a node", () => {
  for (let a = 1; a <= MAX_ALGORITHM; a++) {
    const algorithm = a as Algorithm
    test(Algorithm[algorithm], () => {
      fc.assert(
        fc.property(
          fc.constantFrom(...timings),
          fc.integer({ min: 0, max: 1000 }),
          fc.array(eventArb(algorithm), { maxLength: 60 }),
          (timing, seed, events) => {
            const node = createNode(algorithm, {
              id: MY_ID,
              ids: IDS,
              group: 1,
              timing,
              suitability: 3,
              neighbors: [2, 3, 11],
              seed,
            })
            const out: Action[] = []
            const check = () => {
              for (const action of out) {
                if (action.type === ActionType.Send) {
                  expect(encodeFrame(action.frame).error).toBe(CodecError.None)
                  expect(action.frame.src).toBe(MY_ID)
                  for (const to of action.to) expect(IDS).toContain(to)
                } else if (action.type === ActionType.RoleChange) {
                  if (action.coordinator !== NO_NODE) expect(IDS).toContain(action.coordinator)
                } else if (action.type === ActionType.SetTimer) {
                  // a timer always moves the clock
                  expect(action.delay).toBeGreaterThan(0)
                }
              }
              if (node.coordinator !== NO_NODE) expect(IDS).toContain(node.coordinator)
              expect(node.epoch).toBeGreaterThanOrEqual(0)
              expect(node.epoch).toBeLessThanOrEqual(4294967295)
              out.length = 0
            }
            node.start(0, out)
            check()
            let now = 0
            for (const e of events) {
              now += 1
              if (e.type === "frame") node.receive(e.frame, now, out)
              else if (e.type === "timer") node.timer(e.timer, now, out)
              else if (e.type === "suspect") node.suspect(now, out)
              else if (e.type === "left") node.peerLeft(e.id, now, out)
              else if (e.type === "crash") node.crash(now, out)
              else node.recover(now, out)
              check()
            }
          },
        ),
        { numRuns: 400 },
      )
    })
  }
})
