// electlab check with the nodes' own heartbeats, failure detector and handover
// (`--detection heartbeats`), and the fencing tokens of the election API (`--property
// fenced`). Each cell of the docs' tables for them is a test here or, for the longer
// searches, in test/ci/check-large.test.ts.

import { describe, expect } from "vitest"
import { parseAlgorithm } from "../src/core/algorithms"
import { MAX_TIMERS, TIMER_HEARTBEAT, TIMER_WATCH } from "../src/core/contract"
import { Kind } from "../src/core/frame"
import {
  applyEvent,
  cloneNode,
  cloneState,
  continueFaultFree,
  enabledEvents,
  EventType,
  initialState,
  type ModelConfig,
  sendHeartbeats,
  stateKey,
  stateText,
} from "../sim/check/model"
import { counterexampleScenario } from "../sim/check/replay"
import { defaultOptions, type Property, promisedProperties, search } from "../sim/check/search"
import { settleTokens, type TokenRule } from "../sim/check/fence"
// this file spans the tiers: `test` is the fast tier's (test/tiers.ts)
import { mediumTest, test } from "./tiers"

function heartbeats(algorithm: string, crashes: number, recoveries: number, losses: number, nodes = 3): ModelConfig {
  return { algorithm: parseAlgorithm(algorithm), nodes, timing: "ideal", crashes, recoveries, losses, duplicates: 0, detection: "heartbeats" }
}

function check(c: ModelConfig, properties: Property[], tokens?: TokenRule) {
  const options = defaultOptions({ ...c, tokens }, properties)
  options.all = true
  return search(options)
}

function keyOf(c: ModelConfig, s: ReturnType<typeof initialState>): string {
  const key = new Uint32Array(2)
  stateKey(s, c.timing, key)
  return `${key[0]}:${key[1]}`
}

describe("the model with heartbeats", () => {
  test("the nodes run their own detector: no detect events, the coordinator's heartbeat timer armed", () => {
    const c = heartbeats("bully", 1, 1, 1)
    const s = initialState(c)
    expect(s.deadlines[2 * MAX_TIMERS + TIMER_HEARTBEAT]).toBe(10)
    expect(s.deadlines[0 * MAX_TIMERS + TIMER_WATCH]).toBe(25)
    applyEvent(s, { type: EventType.Crash, a: 2, b: 0 }, c, false)
    for (let k = 0; k < 40; k++) {
      expect(enabledEvents(s, c).some((e) => e.type === EventType.Detect)).toBe(false)
      const due = enabledEvents(s, c).find((e) => e.type === EventType.Deliver || e.type === EventType.Fire || e.type === EventType.Tick)
      if (!due) break
      applyEvent(s, due, c, false)
    }
    // the followers' watch timed out by itself and they elected 2
    expect(s.nodes.map((n) => n.coordinator)).toEqual([2, 2, -1])
  })

  test("a settled cluster comes back to its state a heartbeat period later (heartbeat numbers, heard-at times and past deadlines are left out)", () => {
    for (const algorithm of ["bully", "improved-bully", "ring", "echo"]) {
      const c = heartbeats(algorithm, 1, 1, 1)
      const s = initialState(c)
      const steps = continueFaultFree(cloneState(s), 200, 0)
      expect(steps, algorithm).toBeGreaterThan(0)
      expect(steps, algorithm).toBeLessThan(40)
      // and after an election with a lost ACK left in echo's link, too
      const t = initialState(c)
      applyEvent(t, { type: EventType.Crash, a: 0, b: 0 }, c, false)
      applyEvent(t, { type: EventType.Recover, a: 0, b: 0 }, c, false)
      expect(continueFaultFree(t, 400, 0), algorithm).toBeGreaterThan(0)
    }
  })

  test("an improved-bully win is hashed as now or past, not by its age", () => {
    const c = heartbeats("improved-bully", 1, 1, 1)
    const a = initialState(c)
    const b = initialState(c)
    // a node is never changed once keyed (its key is kept on it): change a copy
    const won = (s: typeof a, at: number) => {
      s.nodes[2] = cloneNode(s.nodes[2])
      ;(s.nodes[2] as unknown as { wonAt: number }).wonAt = at
    }
    won(a, 0)
    won(b, 0)
    expect(keyOf(c, a)).toBe(keyOf(c, b))
    for (const s of [a, b]) s.clocks.fill(7)
    won(b, 3)
    // both in the past: one state
    expect(stateText(a, c.timing)).toBe(stateText(b, c.timing))
    expect(keyOf(c, a)).toBe(keyOf(c, b))
    // won at this instant: another
    won(b, 7)
    expect(keyOf(c, a)).not.toBe(keyOf(c, b))
  })

  test("a ring process's down mark is hashed by its age, capped at the round trip (it probes again after R)", () => {
    const c = heartbeats("bid-ring", 1, 1, 1)
    const marked = (age: number) => {
      const s = initialState(c)
      s.nodes[0] = cloneNode(s.nodes[0])
      const r = s.nodes[0] as unknown as { down: boolean[]; downAt: number[]; roundTrip(): number }
      r.down[2] = true
      s.clocks.fill(1000)
      r.downAt[2] = 1000 - age
      return s
    }
    const R = (initialState(c).nodes[0] as unknown as { roundTrip(): number }).roundTrip()
    expect(keyOf(c, marked(R))).toBe(keyOf(c, marked(R + 7)))
    expect(keyOf(c, marked(R - 1))).not.toBe(keyOf(c, marked(R)))
    expect(keyOf(c, marked(1))).not.toBe(keyOf(c, marked(2)))
  })

  mediumTest("the search's key tells states apart exactly as their text does, heartbeats and tokens included", () => {
    for (const [algorithm, tokens] of [["bully", "issued"], ["echo", undefined], ["ring", "raw"]] as [string, TokenRule | undefined][]) {
      const c = { ...heartbeats(algorithm, 1, 1, 1), tokens }
      const textOf = new Map<string, string>()
      const keyFor = new Map<string, string>()
      const options = defaultOptions(c, ["valid-coordinator"])
      options.order = "breadth"
      options.maxStates = 5_000
      options.visit = (s) => {
        const k = keyOf(c, s)
        const t = stateText(s, c.timing)
        expect(textOf.get(k) ?? t).toBe(t)
        expect(keyFor.get(t) ?? k).toBe(k)
        textOf.set(k, t)
        keyFor.set(t, k)
      }
      search(options)
      expect(textOf.size, algorithm).toBeGreaterThan(4_000)
    }
  })

  test("with heartbeats a recovery keeps one coordinator (the handover); without, it does not", () => {
    expect(promisedProperties(heartbeats("bully", 1, 1, 0))).toContain("unique-coordinator")
    expect(promisedProperties(heartbeats("bully", 1, 1, 1))).not.toContain("unique-coordinator")
    expect(promisedProperties({ ...heartbeats("bully", 1, 1, 0), detection: "timed" })).not.toContain("unique-coordinator")
  })

  // one crash and one recovery, N = 3: every algorithm keeps one coordinator (seconds each:
  // a state with heartbeats costs several of the ideal model's)
  mediumTest.each([
    ["bully", 1465],
    ["improved-bully", 1279],
    ["ring", 2615],
    ["active-list-ring", 2149],
    ["bid-ring", 1717],
    ["echo", 1710],
  ] as [string, number][])("%s, N = 3, one crash, one recovery: never two coordinators (%i states)", (algorithm, states) => {
    const r = check(heartbeats(algorithm, 1, 1, 0), ["unique-coordinator", "eventual-agreement", "valid-coordinator"])
    expect(r.violations.map((v) => `${v.property}: ${v.detail}`)).toEqual([])
    expect(r).toMatchObject({ complete: true, detection: "heartbeats", states })
  })

  // a lost ELECTION looks like a crash to bully and active-list-ring, heartbeats or not
  test.each([
    ["bully", 11],
    ["active-list-ring", 26],
  ] as [string, number][])("%s, N = 3, one crash, one loss: two coordinators after %i steps", (algorithm, length) => {
    const r = check(heartbeats(algorithm, 1, 0, 1), ["unique-coordinator"])
    expect(r.violations.map((v) => [v.property, v.steps.length])).toEqual([["unique-coordinator", length]])
  })

  test.each([
    ["improved-bully", 726],
    ["ring", 939],
    ["bid-ring", 941],
    ["echo", 867],
  ] as [string, number][])("%s, N = 3, one crash, one loss: never two coordinators (%i states)", (algorithm, states) => {
    const r = check(heartbeats(algorithm, 1, 0, 1), ["unique-coordinator"])
    expect(r).toMatchObject({ complete: true, violations: [], states })
  })

  // a crash, a recovery and a loss together: improved-bully, ring, bid-ring and echo still
  // keep one coordinator; a lost ELECTION makes a second in bully and active-list-ring
  mediumTest.each([
    ["bully", 11],
    ["active-list-ring", 26],
  ] as [string, number][])("%s, N = 3, one crash, one recovery, one loss: two coordinators after %i steps", (algorithm, length) => {
    const r = check(heartbeats(algorithm, 1, 1, 1), ["unique-coordinator"])
    expect(r.violations.map((v) => [v.property, v.steps.length])).toEqual([["unique-coordinator", length]])
  })
  mediumTest.each([
    ["improved-bully", 7982],
    ["ring", 74540],
    ["bid-ring", 19509],
    ["echo", 17961],
  ] as [string, number][])("%s, N = 3, one crash, one recovery, one loss: never two coordinators (%i states)", (algorithm, states) => {
    const r = check(heartbeats(algorithm, 1, 1, 1), ["unique-coordinator"])
    expect(r).toMatchObject({ complete: true, violations: [], states })
  })

  // one crash, one recovery, one loss, N = 3 (the rest, and N = 4: test/ci/check-large.test.ts)
  mediumTest.each([
    ["bully", 8856],
    ["improved-bully", 7418],
  ] as [string, number][])("%s, N = 3, one crash, one recovery, one loss: %i states, eventual agreement and valid coordinators", (algorithm, states) => {
    const c = heartbeats(algorithm, 1, 1, 1)
    expect(promisedProperties(c)).toEqual(["eventual-agreement", "valid-coordinator"])
    const r = check(c, promisedProperties(c))
    expect(r.violations.map((v) => `${v.property}: ${v.detail}`)).toEqual([])
    expect(r).toMatchObject({ complete: true, order: "depth", states })
  })

  test("a written counterexample names the detector's timing", () => {
    const c = heartbeats("bully", 1, 0, 1)
    const r = check(c, ["unique-coordinator"])
    const v = r.violations[0]
    let text = ""
    try {
      text = counterexampleScenario(c, v.steps, ["test"]).text
    } catch (e) {
      // a trace whose timers fire at one instant in an order the simulator's clock cannot
      // give is not written; the search still prints it
      expect(String(e)).toMatch(/no real-time schedule/)
      return
    }
    expect(text).toMatch(/heartbeat=10 failure-timeout=25/)
  })
})

describe("the fenced property: the election API's tokens on every state", () => {
  // one crash, one recovery, one loss, N = 3: the API's tokens keep every rule, with and
  // without heartbeats (the other four, and N = 4: test/ci/check-large.test.ts)
  mediumTest.each([
    ["bully", 825, 16258],
    ["improved-bully", 369, 10939],
  ] as [string, number, number][])("%s: timed %i states, heartbeats %i, no violation", (algorithm, timed, beats) => {
    for (const [c, states] of [
      [{ ...heartbeats(algorithm, 1, 1, 1), detection: "timed" }, timed],
      [heartbeats(algorithm, 1, 1, 1), beats],
    ] as [ModelConfig, number][]) {
      const r = check(c, ["fenced", "eventual-agreement"])
      expect(r.violations.map((v) => `${v.property}: ${v.detail}`)).toEqual([])
      expect(r).toMatchObject({ complete: true, states })
    }
  })

  // the election's own (epoch, id) as the token, never raised: a follower ends fenced off
  // its coordinator (as the campaign's raw figures count); the API's raise is what helps
  test.each([
    ["bully", 3],
    ["improved-bully", 4],
    ["ring", 3],
    ["bid-ring", 3],
  ] as [string, number][])("%s, raw tokens: a follower refuses its coordinator's orders after %i steps", (algorithm, length) => {
    const r = check({ ...heartbeats(algorithm, 1, 1, 1), detection: "timed" }, ["fenced"], "raw")
    expect(r.violations.map((v) => [v.property, v.steps.length])).toEqual([["fenced", length]])
    expect(r.violations[0].detail).toMatch(/refuses the orders of its coordinator/)
  })

  mediumTest.each([
    ["active-list-ring", 10805],
    ["echo", 5899],
  ] as [string, number][])("%s, raw tokens: every follower still takes its coordinator's orders (%i states)", (algorithm, states) => {
    const r = check({ ...heartbeats(algorithm, 1, 1, 1), detection: "timed" }, ["fenced"], "raw")
    expect(r).toMatchObject({ complete: true, violations: [], states })
  })

  test("a follower that accepted a higher token gets one above it from its coordinator", () => {
    const c = { ...heartbeats("bully", 1, 1, 1, 4), detection: "timed" as const, tokens: "issued" as TokenRule }
    const s = initialState(c)
    // process 1 had accepted (5, 3); its coordinator 4 holds (0, 4)
    s.fence!.words[2] = 5
    s.fence!.words[3] = 3
    settleTokens(s.fence!, s.nodes)
    expect(s.fence!.broken).toBe("")
    // 4 leads on with (6, 4), which 1 and the others take
    expect(s.fence!.words.slice(3 * 6 + 4, 3 * 6 + 6)).toEqual([6, 4])
    expect(s.fence!.words.slice(2, 4)).toEqual([6, 4])
    expect(s.fence!.words.slice(6 + 2, 6 + 4)).toEqual([6, 4])
  })

  test("at the start the highest process holds the first token and the others took it", () => {
    const c = { ...heartbeats("bully", 1, 1, 1), tokens: "issued" as TokenRule }
    const s = initialState(c)
    // per process: the issuer's last, the gate's highest, the token held; (epoch, holder)
    expect(s.fence!.words).toEqual([0, 0, 0, 3, 0, 0, 0, 0, 0, 3, 0, 0, 0, 3, 0, 3, 0, 3])
    expect(s.fence!.broken).toBe("")
  })
})

describe("the continuation's heartbeats", () => {
  // Without the nodes' own detector the fault-free continuation sends a heartbeat round
  // itself: it must be the frame a coordinator's own heartbeat is, but for its number
  // (which the state leaves out).
  test.each(["bully", "improved-bully", "ring", "active-list-ring", "bid-ring", "echo"])("%s: the model's heartbeat is the node's", (algorithm) => {
    const c = heartbeats(algorithm, 0, 0, 0)
    const own = initialState(c)
    // time up to the coordinator's heartbeat timer, then the timer
    while (!enabledEvents(own, c).some((e) => e.type === EventType.Fire)) applyEvent(own, enabledEvents(own, c).find((e) => e.type === EventType.Tick)!, c, false)
    applyEvent(own, { type: EventType.Fire, a: 2, b: TIMER_HEARTBEAT }, c, false)
    const sent = own.messages.filter((m) => m.frame.kind === Kind.HEARTBEAT)
    expect(sent.length).toBe(2)
    const timed = initialState({ ...heartbeats(algorithm, 0, 0, 0), detection: "timed" })
    expect(timed.messages).toEqual([])
    sendHeartbeats(timed)
    expect(timed.messages.map((m) => m.dst)).toEqual(sent.map((m) => m.dst))
    for (let i = 0; i < sent.length; i++) expect({ ...timed.messages[i].frame, seq: 0 }).toEqual({ ...sent[i].frame, seq: 0 })
  })
})
