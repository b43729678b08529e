// The failure detector as a component: one interface, the fixed and the adaptive implementation.
import { describe, expect, test } from "vitest"
import { AdaptiveDetector, FixedDetector, makeFailureDetector } from "../src/core/failure-detector"

describe("failure detector component", () => {
  test("fixed: the failure timeout whatever the heartbeats did", () => {
    const d = new FixedDetector(800)
    d.watch(5)
    for (let t = 0; t < 5000; t += 250) d.heartbeat(t, 0)
    expect(d.delay()).toBe(800)
    expect(d.learns()).toBe(false)
  })

  test("the factory: adaptive only when asked and heartbeats are on", () => {
    expect(makeFailureDetector("fixed", 50, 250)).toBeInstanceOf(FixedDetector)
    expect(makeFailureDetector("adaptive", 0, 250)).toBeInstanceOf(FixedDetector)
    const adaptive = makeFailureDetector("adaptive", 50, 250)
    expect(adaptive).toBeInstanceOf(AdaptiveDetector)
    expect(adaptive.learns()).toBe(true)
    // 100 regular heartbeats: earlier than the ceiling; the loss estimate, (0 + 1/2) / 101,
    // still asks for two misses in a row: 3 periods plus half an interval
    adaptive.watch(3)
    for (let t = 0; t <= 50 * 100; t += 50) adaptive.heartbeat(t, 0)
    expect(adaptive.delay()).toBe(3 * 50 + 25)
  })
})
