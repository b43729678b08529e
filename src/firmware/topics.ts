// MQTT topics of a lab: exact topics only (the DeviceScript client matches subscriptions by
// prefix and ignores `+`), each ending in a fixed word so that node 1's topic is not a
// prefix of node 10's. Leave topics are one per node, so that the broker's ACL can let a
// node publish its own leave (its last will) and nobody else's.

import { parseDigits } from "../core/codec"

/** Frames for one node. */
export function nodeTopic(prefix: string, group: number, id: number): string {
    return prefix + "/" + group + "/node/" + id + "/frame"
}

/** Frames for every node of the group. */
export function groupTopic(prefix: string, group: number): string {
    return prefix + "/" + group + "/all/frame"
}

/** Node `id`'s last will: the broker publishes the id here when the node's connection drops. */
export function leaveTopic(prefix: string, group: number, id: number): string {
    return leaveTopicRoot(prefix, group) + id
}

/** What every node's leave topic starts with (subscribe to it with a trailing `#`). */
export function leaveTopicRoot(prefix: string, group: number): string {
    return prefix + "/" + group + "/leave/"
}

/** Every leave topic of the group, as a subscription. */
export function leaveTopics(prefix: string, group: number): string {
    return leaveTopicRoot(prefix, group) + "#"
}

/**
 * The node id a leave topic names; -1 when `topic` is not a leave topic of the group or
 * its last level is not a whole number (a node id is 0..65534).
 */
export function leaveTopicId(prefix: string, group: number, topic: string): number {
    const root = leaveTopicRoot(prefix, group)
    if (topic.length <= root.length) return -1
    if (topic.slice(0, root.length) !== root) return -1
    const rest = topic.slice(root.length)
    if (rest.length > 5) return -1
    const v = parseDigits(rest, 10)
    return v <= 0xfffe ? v : -1
}

/**
 * The node that left, from a message on its leave topic: the id in the topic, when the
 * payload names the same id (and nothing else); -1 otherwise (refused and counted).
 */
export function leftNode(prefix: string, group: number, topic: string, payload: string): number {
    const id = leaveTopicId(prefix, group, topic)
    if (id < 0) return -1
    return payload.trim() === "" + id ? id : -1
}

export const DEFAULT_TOPIC_PREFIX = "electlab"
