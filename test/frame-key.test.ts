// The frame key: derived by the driver from the group key, the group and the algorithm
// (src/firmware/driver.ts frameKey), so that a frame of another group or algorithm sealed with
// the same group key fails its tag. The known answers are computed here with node:crypto.
import { createHmac } from "node:crypto"
import { describe, expect, test } from "vitest"
import { AuthRefusal, RTT_SAMPLE_MS } from "../src/core/auth"
import { Role } from "../src/core/contract"
import { Algorithm, BROADCAST } from "../src/core/frame"
import { frameKey } from "../src/firmware/driver"
import { nodeMac } from "../sim/auth/keys"
import { inject } from "../sim/attacks/attacks"
import { ATTACK_KEY, Cluster, keyBytes } from "../sim/attacks/cluster"
import { advance, ALGORITHMS, SETTLE_MS, settled, useFakeTimers } from "./attack-catalogue"

useFakeTimers()

/** The frame key of ATTACK_KEY for group 1 and bully, computed with Python's hmac module. */
const FRAME_KEY_GROUP_1_BULLY = "e15fb46bca63897bf56fb7cf033f158078fae6d61e81ae9cec1d46d0f1862dc1"

const hex = (b: ArrayLike<number>) => Buffer.from(Array.from(b)).toString("hex")

/** HKDF-Expand (RFC 5869) of one block, written out: HMAC(group key, label || group || algorithm || 0x01). */
function expected(group: number, algorithm: number): string {
  const info = Buffer.concat([Buffer.from("electlab frame key", "ascii"), Buffer.from([group, algorithm, 1])])
  return createHmac("sha256", Buffer.from(keyBytes())).update(info).digest("hex")
}

describe("the derivation", () => {
  test("is HKDF-Expand of the group key with the label, the group and the algorithm (known answers)", () => {
    for (const group of [0, 1, 2, 255])
      for (const algorithm of ALGORITHMS) expect(hex(frameKey(nodeMac(keyBytes()), group, algorithm))).toBe(expected(group, algorithm))
    // pinned: a change of label or layout shows here
    expect(expected(1, Algorithm.Bully)).toBe(FRAME_KEY_GROUP_1_BULLY)
  })

  test("another group or another algorithm gives another key, and none is the group key", () => {
    const keys = new Set<string>()
    for (let group = 0; group < 256; group++) for (const algorithm of ALGORITHMS) keys.add(hex(frameKey(nodeMac(keyBytes()), group, algorithm)))
    expect(keys.size).toBe(256 * ALGORITHMS.length)
    expect(keys.has(ATTACK_KEY)).toBe(false)
  })

  test("a driver's tags are made with the frame key, not the group key", async () => {
    const c = new Cluster({ algorithm: Algorithm.Ring, key: ATTACK_KEY, seed: 1 })
    await c.bootAll()
    await advance(SETTLE_MS)
    const tag = (key: Buffer, bytes: number[]) => createHmac("sha256", key).update(Buffer.from(bytes.slice(0, -8))).digest().subarray(0, 8).toString("hex")
    const derived = Buffer.from(expected(1, Algorithm.Ring), "hex")
    const election = c.recorded.filter((f) => Cluster.kindOf(f.bytes) !== "challenge" && Cluster.kindOf(f.bytes) !== "proof")
    const control = c.recorded.filter((f) => Cluster.kindOf(f.bytes) === "challenge" || Cluster.kindOf(f.bytes) === "proof")
    expect(election.length).toBeGreaterThan(0)
    expect(control.length).toBeGreaterThan(0)
    for (const f of [...election, ...control]) {
      expect(tag(derived, f.bytes)).toBe(hex(f.bytes.slice(-8)))
      expect(tag(Buffer.from(keyBytes()), f.bytes)).not.toBe(hex(f.bytes.slice(-8)))
    }
  })
})

describe("frames of another group or algorithm with the same group key", () => {
  /** Every frame a settled cluster sent (hellos, proofs, handovers, heartbeats), handed to a lone board of `other`. */
  async function fedTo(other: { group?: number; algorithm?: Algorithm }) {
    const source = await settled(Algorithm.Bully, 1)
    const lone = new Cluster({ algorithm: other.algorithm ?? Algorithm.Bully, key: ATTACK_KEY, seed: 2, group: other.group ?? 1 })
    await lone.boot(1)
    const driver = lone.board(1).driver
    const frames = source.recorded.filter((f) => f.from !== 1 && (f.to === BROADCAST || f.to === 1))
    for (const f of frames) await driver.receive(Buffer.from(f.bytes))
    return { driver, count: frames.length }
  }

  test("a frame sealed under group 1 is refused as a bad tag by a group-2 node, never acted on", async () => {
    const { driver, count } = await fedTo({ group: 2 })
    expect(driver.auth!.refused[AuthRefusal.BadTag]).toBe(count)
    expect(driver.auth!.verified).toBe(0)
    expect(driver.auth!.challengesSent).toBe(1) // its own hello only
    expect(driver.node.ignored.reduce((a, b) => a + b, 0)).toBe(0)
  })

  test("so is a frame of another algorithm: the receiver's configuration is not judged by it", async () => {
    const { driver, count } = await fedTo({ algorithm: Algorithm.Echo })
    expect(driver.auth!.refused[AuthRefusal.BadTag]).toBe(count)
    expect(driver.node.misconfigured).toBe(false)
  })

  test("the same group and algorithm verify (the control)", async () => {
    const { driver } = await fedTo({})
    expect(driver.auth!.refused[AuthRefusal.BadTag]).toBe(0)
    expect(driver.auth!.verified).toBeGreaterThan(0)
  })

  test("a board whose GROUP differs from the rest hears only bad tags: it says the key, group or algorithm differs", async () => {
    const c = await settled(Algorithm.Bully, 1)
    const wrong = new Cluster({ algorithm: Algorithm.Bully, key: ATTACK_KEY, seed: 3, group: 2 })
    await wrong.boot(2)
    // both boards on one wire: every frame of the cluster reaches the misconfigured board too
    c.intercept = (f) => {
      wrong.deliverLater({ ...f, from: -1 }, wrong.delay)
      return "pass"
    }
    await advance(5000)
    const d = wrong.board(2).driver
    expect(d.role()).toBe(Role.Misconfigured)
    expect(wrong.board(2).log.some((l) => l.includes("problem=key-mismatch"))).toBe(true)
    expect(d.problems).toEqual(["no frame verifies: AUTH_KEY, GROUP or the algorithm differs from the rest of the group"])
    expect(c.coordinators()).toEqual([3, 3, 3])
  })

  test("frames relayed from another lab cost the cluster no challenge: refused at the tag, not held", async () => {
    const c = await settled(Algorithm.Bully, 1)
    const other = new Cluster({ algorithm: Algorithm.Bully, key: ATTACK_KEY, seed: 7, group: 2 })
    await other.bootAll()
    await advance(SETTLE_MS)
    await c.board(3).driver.setCrashed(true)
    const sent = [1, 2].map((id) => c.board(id).driver.auth!.challengesSent)
    other.intercept = (f) => {
      inject(c, f.bytes, f.to)
      return "pass"
    }
    await advance(2000)
    for (const id of [1, 2]) {
      const auth = c.board(id).driver.auth!
      expect(auth.refused[AuthRefusal.BadTag]).toBeGreaterThan(0)
      expect(auth.refused[AuthRefusal.Unproven]).toBe(0)
      // none for the relayed frames; at most the round-trip sample each peer gets every RTT_SAMPLE_MS
      expect(auth.challengesSent - sent[id - 1]).toBeLessThanOrEqual(2)
      expect(2000).toBeLessThan(RTT_SAMPLE_MS)
    }
  })
})
