// A host program (the `electlab` package's joinElection) in a lab of VMs running the example
// application (examples/sensor-summary): the same events and tokens on both sides. The
// application alone through failover-10 at 12 boards is test/ci/lab12.test.ts.
import { describe, expect, test } from "vitest"
import { Algorithm } from "../../src/core/frame"
import { Lab } from "../../sim/lab/lab"
import { compareTokens, formatToken, joinElection } from "../../sim/node/library"

const PROGRAM = "examples/sensor-summary/src/main.ts"
const timing = { answerTimeout: 200, coordinatorTimeout: 400, heartbeatInterval: 250, failureTimeout: 800 }

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
