// The WiFi transport: election frames through an MQTT broker. One topic per node, one per
// group, and a last will that makes the broker announce a board whose connection drops.
// One MQTT connection is the board's only socket (a DeviceScript board has one).

import { Backoff } from "./backoff"
import { FrameTransport, NodeDriver } from "./driver"
import { log } from "./log"
import { MqttLink } from "./mqtt-link"
import { groupTopic, leaveTopicRoot, leftNode, nodeTopic } from "./topics"

export class MqttTransport implements FrameTransport {
    client: MqttLink
    connected = false
    backoff = new Backoff()
    reconnecting = false
    /** Leave messages refused: the payload's id is not the one in the topic. */
    leavesRefused = 0

    constructor(readonly driver: NodeDriver) {}

    async start() {
        const c = this.driver.config
        const self = this
        const mine = nodeTopic(c.topicPrefix, c.group, c.nodeId)
        const all = groupTopic(c.topicPrefix, c.group)
        // every node's leave topic starts so (leaveTopic and leaveTopics, written out: two
        // functions less in a board's image)
        const leaves = leaveTopicRoot(c.topicPrefix, c.group)
        this.client = new MqttLink({
            host: c.mqttHost,
            port: c.mqttPort,
            clientId: "electlab-" + c.group + "-" + c.nodeId,
            // unset or empty: no login (the link tests each for truth)
            username: c.mqttUser,
            password: c.mqttPassword,
            // the broker drops a silent board after 1.5 keep-alives and publishes its will
            keepAliveSec: 3,
            // our own leave topic: the broker's ACL lets no one else publish there
            willTopic: leaves + c.nodeId,
            willMessage: "" + c.nodeId,
            topics: [mine, all, leaves + "#"],
            timeoutMs: 3000,
        })
        this.client.onMessage = async (topic: string, payload: Buffer) => {
            if (topic === mine || topic === all) {
                // handled in a fiber of its own: the reader goes on, and a burst meets the inbox's bound
                await self.driver.receive(payload, true)
            } else {
                // a leave is only a hint: the driver checks it before it acts
                const id = leftNode(c.topicPrefix, c.group, topic, payload.toString())
                if (id >= 0) await self.driver.peerLeft(id)
                else self.leavesRefused = self.leavesRefused + 1
            }
        }
        this.client.onLost = async (why: string) => {
            self.connected = false
            // msg= is free text, last: the reason as it is
            log("mqtt", "n=" + c.nodeId + " state=closed msg=" + why)
            await reconnectLater(self)
        }
        await connect(this)
    }

    async unicast(dst: number, bytes: Buffer) {
        const c = this.driver.config
        await publish(this, nodeTopic(c.topicPrefix, c.group, dst), bytes)
    }

    async broadcast(bytes: Buffer) {
        const c = this.driver.config
        await publish(this, groupTopic(c.topicPrefix, c.group), bytes)
    }
}

async function connect(mqtt: MqttTransport) {
    const n = mqtt.driver.config.nodeId
    if (await mqtt.client.open()) {
        mqtt.connected = true
        mqtt.backoff.reset()
        log("mqtt", "n=" + n + " state=connected")
    } else await reconnectLater(mqtt)
}

async function reconnectLater(mqtt: MqttTransport) {
    if (mqtt.reconnecting) return
    mqtt.reconnecting = true
    const wait = mqtt.backoff.failed()
    setTimeout(async () => {
        mqtt.reconnecting = false
        try {
            await connect(mqtt)
        } catch (e) {
            log("mqtt", "n=" + mqtt.driver.config.nodeId + " state=error msg=" + e)
            await reconnectLater(mqtt)
        }
    }, wait)
}

async function publish(mqtt: MqttTransport, topic: string, bytes: Buffer) {
    // the link throws nothing (a failed write is false); the driver's outbox catches the rest
    if (mqtt.connected) if (await mqtt.client.publish(topic, bytes)) return
    log("lost", "n=" + mqtt.driver.config.nodeId + " topic=" + topic + " why=" + (mqtt.connected ? "write" : "offline"))
}
