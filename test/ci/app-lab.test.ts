// The example application (examples/sensor-summary) in the virtual lab, on the bus and over
// WiFi, through ten failovers of the coordinator by its crash action and five by a kill:
// every board keeps accepting the coordinators' summaries and none ever accepts an order
// older than one it accepted (staleAccepted 0). And a host program (the `electlab` package's
// joinElection) in a lab of VMs: the same events and tokens on both sides.
import { readFileSync } from "node:fs"
import { describe, expect, test } from "vitest"
import { Algorithm } from "../../src/core/frame"
import { runHeadless } from "../../sim/lab/command"
import { Lab } from "../../sim/lab/lab"
import { parseLabScript } from "../../sim/lab/script"
import { compareTokens, formatToken, joinElection } from "../../sim/node/library"

const PROGRAM = "examples/sensor-summary/main.ts"
const SCRIPT = "sim/lab/scripts/failover-10.txt"
const timing = { answerTimeout: 200, coordinatorTimeout: 400, heartbeatInterval: 250, failureTimeout: 800 }

describe.each(["bus", "mqtt"] as const)("the sensor summary through 10 failovers, %s", (transport) => {
  test("staleAccepted 0 on every board, and every board took summaries", async () => {
    const steps = parseLabScript(readFileSync(SCRIPT, "utf8"), SCRIPT)
    const summary = await runHeadless(
      { ids: [1, 2, 3, 4, 5], algorithm: Algorithm.ImprovedBully, group: 1, timing, transport, program: PROGRAM },
      steps,
      SCRIPT,
      false,
    )
    expect(summary.agreement).toBe(true)
    expect(summary.transitions.length).toBe(30)
    const app = summary.app!
    expect(app.map((b) => b.node)).toEqual([1, 2, 3, 4, 5])
    const figures = JSON.stringify(app)
    for (const b of app) expect(b.staleAccepted, `board ${b.node}: ${figures}`).toBe(0)
    // every board but 5 took summaries (4 only from 5, which leads about a second per cycle);
    // 5 leads whenever it is up and takes over from 4 as soon as it is back, so it may take none
    for (const b of app.filter((b) => b.node !== 5)) {
      expect(b.accepted, `board ${b.node}: ${figures}`).toBeGreaterThan(0)
      expect(b.highestToken, `board ${b.node}`).toMatch(/^\d+\.[45]$/)
    }
    expect(app.reduce((n, b) => n + b.accepted, 0), figures).toBeGreaterThan(50)
    // both coordinators gathered readings: plain messages reached them
    for (const n of [4, 5]) expect(app.find((b) => b.node === n)!.received, figures).toBeGreaterThan(0)
  }, 900_000)
})

describe("a host program joined to a lab of VMs", () => {
  test("it takes the role with a newer token; the VMs accept its orders with that token; after its crash and recovery a newer one", async () => {
    // board 3 starts as a host node (electlab node) and is replaced by a program on the library
    const lab = new Lab({ ids: [1, 2, 3], algorithm: Algorithm.ImprovedBully, group: 1, timing, transport: "mqtt", hostNodes: [3], program: PROGRAM })
    try {
      await lab.start()
      await lab.waitForAgreement(60_000)
      await lab.kill(3)
      await lab.waitForAgreement(30_000)
      expect(lab.coordinator()).toBe(2)
      // a summary of 2's (an order) has reached 1: its token
      const until = async (what: string, ok: () => boolean, ms = 30_000) => {
        const end = Date.now() + ms
        while (!ok()) {
          if (Date.now() > end) throw new Error(`timed out waiting for ${what}`)
          await new Promise((r) => setTimeout(r, 50))
        }
      }
      const board = (n: number) => lab.app.figures([n])[0]
      await until("1 accepts an order of 2", () => board(1).highestToken?.endsWith(".2") ?? false)
      const vmToken = board(1).highestToken!

      // node 3's broker login (the lab's broker checks one per node when it has a key)
      const login = lab.brokerLogin("node-3")
      const host = await joinElection({
        broker: lab.brokerUrl()!,
        id: 3,
        ids: [1, 2, 3],
        timing,
        key: lab.authKey ?? undefined,
        mqttUser: login?.username,
        mqttPassword: login?.password,
      })
      const events: string[] = []
      const readings: number[] = []
      host.onBecomeCoordinator((t) => void events.push(`become ${formatToken(t)}`))
      host.onLoseCoordinator((t) => void events.push(`lose ${formatToken(t)}`))
      host.onMessage((m) => void (!m.order && readings.push(m.from)))
      // the example's coordinator duty, written on the host: publish a summary while leading
      host.whileCoordinator(async (duty) => {
        while (duty.active()) {
          await host.broadcast(Buffer.from(JSON.stringify({ boards: 1, min: 1, max: 1, avg: 1 })))
          await new Promise((r) => setTimeout(r, 300))
        }
      })
      try {
        const follow3 = () => lab.boards.get(1)!.coordinator === 3 && lab.boards.get(2)!.coordinator === 3
        await until("the host leads", () => host.isCoordinator() && follow3())
        const first = host.token()!
        expect(events).toEqual([`become ${formatToken(first)}`])
        // newer than the VM coordinator's token the boards had accepted
        const [e, h] = vmToken.split(".").map(Number)
        expect(compareTokens(first, { epoch: e, holder: h })).toBeGreaterThan(0)
        await until("1 and 2 accept the host's orders", () => board(1).highestToken === formatToken(first) && board(2).highestToken === formatToken(first))
        await until("readings from the boards reach the host", () => readings.includes(1) && readings.includes(2))

        await host.setCrashed(true)
        await lab.waitForAgreement(30_000)
        expect(lab.coordinator()).toBe(2)
        await host.setCrashed(false)
        await until("the host leads again", () => host.isCoordinator())
        const second = host.token()!
        expect(compareTokens(second, first)).toBeGreaterThan(0)
        expect(events).toEqual([`become ${formatToken(first)}`, `lose ${formatToken(first)}`, `become ${formatToken(second)}`])
        await until("1 and 2 accept the new token", () => board(1).highestToken === formatToken(second) && board(2).highestToken === formatToken(second))
        for (const n of [1, 2]) expect(board(n).staleAccepted).toBe(0)
      } finally {
        await host.leave()
      }
    } finally {
      await lab.stop()
    }
  }, 300_000)
})
