// MQTT topics of a lab: exact topics only (the DeviceScript client matches subscriptions by
// prefix and ignores `+`), each ending in a fixed word so that node 1's topic is not a
// prefix of node 10's.

/** Frames for one node. */
export function nodeTopic(prefix: string, group: number, id: number): string {
    return prefix + "/" + group + "/node/" + id + "/frame"
}

/** Frames for every node of the group. */
export function groupTopic(prefix: string, group: number): string {
    return prefix + "/" + group + "/all/frame"
}

/** Last wills: the broker publishes a node's id here when its connection drops. */
export function leaveTopic(prefix: string, group: number): string {
    return prefix + "/" + group + "/leave"
}

export const DEFAULT_TOPIC_PREFIX = "electlab"
