// The attack catalogue in the virtual lab over MQTT (test/ci/attacks-lab-suite.ts), and the
// broker's hardening: logins, topic rights, wills.
import mqtt from "mqtt"
import { describe, expect, test } from "vitest"
import { Algorithm } from "../../src/core/frame"
import { leaveTopic } from "../../src/firmware/topics"
import { CoordinatorWatch, type MqttWire } from "../../sim/attacks/lab-attacks"
import { nodeUser } from "../../sim/lab/broker-access"
import { type LabOptions, sleep } from "../../sim/lab/lab"
import { catalogueSuite, HIGHEST, IDS, PREFIX, until } from "./attacks-lab-suite"

describe("the catalogue over MQTT, and the broker's hardening", () => {
  const timing = { answerTimeout: 300, coordinatorTimeout: 600, heartbeatInterval: 250, failureTimeout: 1500 }
  // improved bully: a leave of the coordinator used to start an election at once
  const options: LabOptions = { ids: IDS, algorithm: Algorithm.ImprovedBully, group: 1, timing, transport: "mqtt", brokerGuests: ["intruder", "guest"] }
  catalogueSuite("mqtt", options, (env) => {
    const leavesSeen = () => (env().wire as MqttWire).leaves

    test("an anonymous client is refused: it cannot connect, publish a leave or leave a will", async () => {
      const { lab } = env()
      const watch = new CoordinatorWatch(lab, HIGHEST)
      watch.start()
      const before = leavesSeen().length
      const transitions = lab.transitions.length
      for (const clientId of ["electlab-1-3", "forger"]) {
        const anonymous = mqtt.connect(lab.brokerUrl()!, {
          clientId,
          reconnectPeriod: 0,
          will: { topic: leaveTopic(PREFIX, 1, 3), payload: Buffer.from("3"), qos: 0, retain: false },
        })
        const error = await new Promise<Error>((resolve) => anonymous.once("error", resolve))
        expect(error.message).toMatch(/Not authorized|Bad username or password/i)
        await anonymous.endAsync(true)
      }
      await sleep(2 * timing.failureTimeout)
      expect(leavesSeen().slice(before)).toEqual([])
      expect(watch.stop()).toEqual([])
      expect(lab.transitions.length).toBe(transitions)
    }, 60_000)

    test("a member's login cannot publish another node's leave; taking node 3's client id replaces only its own session", async () => {
      const { lab } = env()
      await lab.waitForAgreement(60_000)
      const watch = new CoordinatorWatch(lab, HIGHEST)
      watch.start()
      const before = leavesSeen().length
      const transitions = lab.transitions.length
      const c = lab.brokerLogin(nodeUser(1))!
      // node 3's client id, with node 3's will: on an open broker this dropped node 3 and published its will
      const member = await mqtt.connectAsync(lab.brokerUrl()!, {
        clientId: "electlab-1-3",
        username: c.username,
        password: c.password,
        reconnectPeriod: 0,
        will: { topic: leaveTopic(PREFIX, 1, 3), payload: Buffer.from("3"), qos: 0, retain: false },
      })
      for (let i = 0; i < 10; i++) {
        member.publish(leaveTopic(PREFIX, 1, 3), Buffer.from("3"))
        member.publish(leaveTopic(PREFIX, 1, 2), Buffer.from("2"))
        // its own leave topic naming another node: refused by every node (the id must match the topic)
        member.publish(leaveTopic(PREFIX, 1, 1), Buffer.from("3"))
      }
      await sleep(200)
      // another guest login (no node id, no key) tries the same
      const g = lab.brokerLogin("guest")!
      const guest = await mqtt.connectAsync(lab.brokerUrl()!, { clientId: "electlab-1-2", username: g.username, password: g.password, reconnectPeriod: 0 })
      for (let i = 0; i < 10; i++) guest.publish(leaveTopic(PREFIX, 1, 3), Buffer.from("3"))
      await sleep(2 * timing.failureTimeout)
      // all ten of node 1's own leaves, however late a busy host delivers them
      await until(() => leavesSeen().slice(before).filter((l) => l === "leave/1=3").length >= 10)
      // the broker let through node 1's own topic only (and board 1's will, when the member took its session)
      const leaves = leavesSeen().slice(before)
      expect(leaves.filter((l) => !l.startsWith("leave/1="))).toEqual([])
      expect(leaves.filter((l) => l === "leave/1=3")).toHaveLength(10)
      await member.endAsync(true)
      await guest.endAsync(true)
      // board 1, put off the broker by its own login, comes back (on a busy host, later)
      await sleep(3000)
      await lab.waitForAgreement(60_000)
      expect(watch.stop()).toEqual([])
      expect(lab.transitions.length).toBe(transitions)
      expect(lab.coordinator()).toBe(HIGHEST)
    }, 150_000)
  })
})

