// Epochs live in a u32 field and wrap by serial-number arithmetic: a cluster whose epoch
// is 0xffffffff (a valid wire value) elects past it and every frame it sends still encodes.
import { describe, expect, test } from "vitest"
import { ALGORITHMS } from "../src/core/algorithms"
import { CodecError, validateFrame } from "../src/core/codec"
import { Algorithm, type Frame, Kind } from "../src/core/frame"
import { type Action, ActionType, Role, type SendAction } from "../src/core/contract"
import { EPOCH_MODULUS, epochAfter, nextEpoch } from "../src/core/portable"
import { summarize } from "../src/core/summary"
import { TraceType } from "../src/core/trace"
import { defaultTiming } from "../src/core/timing"
import { frameFrom, makeEngine } from "./helpers"

const LAST = EPOCH_MODULUS - 1 // 0xffffffff

describe("epochs wrap", () => {
  test("nextEpoch and epochAfter at the edge of the u32 field", () => {
    expect(nextEpoch(LAST)).toBe(0)
    expect(nextEpoch(LAST - 1)).toBe(LAST)
    expect(epochAfter(0, LAST)).toBe(true)
    expect(epochAfter(LAST, 0)).toBe(false)
    expect(epochAfter(5, LAST - 5)).toBe(true)
  })

  for (const d of ALGORITHMS)
    test(`${d.name}: from epoch 0xffffffff, two coordinator crashes in a row elect and every frame encodes`, () => {
      const ids = [1, 2, 3, 4, 5]
      const engine = makeEngine(d.algorithm, ids)
      const refused: string[] = []
      let sent = 0
      engine.tracer = (r) => {
        if (r.type !== TraceType.Send) return
        sent++
        const f = (r as { frame: Frame }).frame
        const e = validateFrame(f)
        if (e !== CodecError.None) refused.push(`t=${r.time} ${r.node}: epoch ${f.epoch} bid ${f.bid}, error ${e}`)
      }
      engine.start()
      for (const n of engine.nodes) n.epoch = LAST
      const epochs: number[] = []
      for (const down of [5, 4]) {
        engine.crash(down)
        for (const id of ids) if (id < down) engine.detect(id)
        expect(engine.settle(1_000_000)).toBe(true)
        const s = summarize(engine)
        expect(s.violations).toEqual([])
        expect(s.coordinator).toBe(down - 1)
        const leader = engine.nodes.find((n) => n.id === down - 1)!
        expect(leader.role).toBe(Role.Coordinator)
        epochs.push(leader.epoch)
      }
      expect(refused).toEqual([])
      expect(sent).toBeGreaterThan(0)
      // the first election moved past 0xffffffff to 0, the second to a newer epoch still
      expect(epochAfter(epochs[0], LAST)).toBe(true)
      expect(epochs[0]).toBeLessThan(LAST)
      expect(epochAfter(epochs[1], epochs[0])).toBe(true)
    })

  for (const d of ALGORITHMS)
    test(`${d.name}: with heartbeats, from epoch 0xffffffff the coordinator's crash is detected, a new one elected, its recovery settles, and every frame encodes`, () => {
      const ids = [3, 1, 5, 2, 4]
      const engine = makeEngine(d.algorithm, ids, { timing: defaultTiming("bus") })
      const refused: string[] = []
      engine.tracer = (r) => {
        if (r.type !== TraceType.Send) return
        const f = (r as { frame: Frame }).frame
        if (validateFrame(f) !== CodecError.None) refused.push(`t=${r.time} ${r.node}: epoch ${f.epoch}`)
      }
      engine.start()
      for (const n of engine.nodes) n.epoch = LAST
      engine.runUntil(1000)
      engine.crash(5)
      engine.runUntil(10_000)
      expect(summarize(engine).violations).toEqual([])
      expect(engine.nodes.filter((n) => !n.crashed).map((n) => n.coordinator)).toEqual([4, 4, 4, 4])
      engine.recover(5)
      engine.runUntil(20_000)
      expect(summarize(engine).violations).toEqual([])
      expect(engine.nodes.map((n) => n.coordinator)).toEqual([5, 5, 5, 5, 5])
      expect(engine.nodes.filter((n) => n.role === Role.Coordinator).map((n) => n.id)).toEqual([5])
      expect(refused).toEqual([])
    })
})

describe("ring: the newest accepted epoch an ELECTION carries wraps too", () => {
  test("a process that accepted epoch 2 after the wrap forwards 2, not an ELECTION's 0xffffffff", () => {
    const ids = [1, 2, 3, 4, 5]
    const engine = makeEngine(Algorithm.Ring, ids)
    engine.start()
    // everybody accepted 0xffffffff, then the wrap: 1..4 accepted epoch 2 when 5 crashed
    for (const n of engine.nodes) n.epoch = LAST
    engine.crash(5)
    engine.detect(1)
    expect(engine.settle(1_000_000)).toBe(true)
    engine.crash(4)
    engine.detect(1)
    expect(engine.settle(1_000_000)).toBe(true)
    const leader = engine.nodes.find((n) => n.id === 3)!
    expect(leader.role).toBe(Role.Coordinator)
    // 2 still holds the wrapped epoch; an ELECTION from 1 carrying 0xffffffff must leave 2 with the newer one
    const two = engine.nodes.find((n) => n.id === 2)!
    const accepted = leader.epoch
    expect(epochAfter(accepted, LAST)).toBe(true)
    const out: Action[] = []
    two.receive(frameFrom(Algorithm.Ring, Kind.ELECTION, 1, 2, { initiator: 1, list: [1], bid: LAST, epoch: LAST }), engine.now + 1, out)
    const forwarded = out.find((a): a is SendAction => a.type === ActionType.Send && a.frame.kind === Kind.ELECTION)!
    expect(forwarded.frame.bid).toBe(accepted)
  })
})
