// The WiFi transport: election frames through an MQTT broker. One topic per node, one per
// group, and a last will that makes the broker announce a board whose connection drops.
// One MQTT connection is the board's only socket (a DeviceScript board has one).

import { MQTTClient } from "@devicescript/net"
import { parseIdList } from "./config"
import { FrameTransport, NodeDriver } from "./driver"
import { log } from "./log"
import { groupTopic, leaveTopic, nodeTopic } from "./topics"

const FIRST_BACKOFF_MS = 250
const MAX_BACKOFF_MS = 8000

export class MqttTransport implements FrameTransport {
    private client: MQTTClient
    connected = false
    private backoff = FIRST_BACKOFF_MS
    private reconnecting = false
    private subscribed = false

    constructor(private driver: NodeDriver) {}

    async start() {
        const c = this.driver.config
        const self = this
        this.client = new MQTTClient({
            host: c.mqttHost,
            port: c.mqttPort,
            proto: "tcp",
            clientId: "electlab-" + c.group + "-" + c.nodeId,
            username: c.mqttUser ? c.mqttUser : undefined,
            password: c.mqttPassword ? c.mqttPassword : undefined,
            // the broker drops a silent board after 1.5 keep-alives and publishes its will
            keepAlive: 3,
            pingInterval: 1000,
            // reconnection is ours, with backoff; the client's own watchdog stays out of the way
            watchdogInterval: 3600000,
            will: { topic: leaveTopic(c.topicPrefix, c.group), message: "" + c.nodeId },
        })
        this.client.onconnect.subscribe(() => {
            self.connected = true
            self.backoff = FIRST_BACKOFF_MS
            log("mqtt", "n=" + c.nodeId + " state=connected")
        })
        this.client.onclose.subscribe(async () => {
            self.connected = false
            log("mqtt", "n=" + c.nodeId + " state=closed")
            await self.reconnectLater()
        })
        this.client.onerror.subscribe(async (e: Error) => {
            log("mqtt", "n=" + c.nodeId + " state=error msg=" + e)
            if (!self.connected) await self.reconnectLater()
        })
        await this.client.start()
        await this.subscribeAll()
    }

    /** Subscriptions are kept by the client and renewed on every reconnection. */
    private async subscribeAll() {
        if (this.subscribed || !this.connected) return
        this.subscribed = true
        const c = this.driver.config
        const self = this
        await this.client.subscribe(nodeTopic(c.topicPrefix, c.group, c.nodeId), async (msg) => {
            await self.driver.receive(msg.content)
        })
        await this.client.subscribe(groupTopic(c.topicPrefix, c.group), async (msg) => {
            await self.driver.receive(msg.content)
        })
        await this.client.subscribe(leaveTopic(c.topicPrefix, c.group), async (msg) => {
            const ids = parseIdList(msg.content.toString())
            if (ids.length === 1) await self.driver.peerLeft(ids[0])
        })
    }

    private async reconnectLater() {
        if (this.reconnecting) return
        this.reconnecting = true
        const wait = this.backoff
        this.backoff = Math.min(this.backoff * 2, MAX_BACKOFF_MS)
        const self = this
        setTimeout(async () => {
            try {
                await self.client.stop()
                await self.client.start()
                await self.subscribeAll()
            } catch (e) {
                log("mqtt", "n=" + self.driver.config.nodeId + " state=error msg=" + e)
            }
            self.reconnecting = false
            if (!self.connected) await self.reconnectLater()
        }, wait)
    }

    async unicast(dst: number, bytes: Buffer) {
        const c = this.driver.config
        await this.publish(nodeTopic(c.topicPrefix, c.group, dst), bytes)
    }

    async broadcast(bytes: Buffer) {
        const c = this.driver.config
        await this.publish(groupTopic(c.topicPrefix, c.group), bytes)
    }

    private async publish(topic: string, bytes: Buffer) {
        const n = this.driver.config.nodeId
        if (!this.connected) {
            log("lost", "n=" + n + " topic=" + topic + " why=offline")
            return
        }
        try {
            if (!(await this.client.publish(topic, bytes))) log("lost", "n=" + n + " topic=" + topic + " why=busy")
        } catch (e) {
            log("err", "n=" + n + " where=publish msg=" + e)
        }
    }
}
