// Fixed frames sealed with a fixed key: the DeviceScript VM (auth.vm.ts) and Node
// (run-vm-tests.js) print the same lines, or tags would not verify between boards and hosts.
// Portable: compiled by both tsc and the DeviceScript compiler.

import { FrameAuth, MacFunction, MAX_SEALED_LIST_LENGTH, parseKeyHex, sealCopy } from "../../src/core/auth"
import { ByteSource, encodeFrame, zeroBytes } from "../../src/core/codec"
import { Algorithm, BROADCAST, Frame, Kind, makeFrame } from "../../src/core/frame"
import { frameKey } from "../../src/firmware/driver"

export const VECTOR_KEY = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"

function hex(bytes: ByteSource): string {
    const digits = "0123456789abcdef"
    let s = ""
    for (let i = 0; i < bytes.length; i++) s += digits.charAt(Math.floor(bytes[i] / 16)) + digits.charAt(bytes[i] % 16)
    return s
}

function vectorFrames(): Frame[] {
    const election = makeFrame(Kind.ELECTION, Algorithm.Ring, 3, 1, 7, 8)
    for (let i = 1; i <= 10; i++) election.list.push(i)
    const coordinator = makeFrame(Kind.COORDINATOR, Algorithm.BidRing, 3, 4294967295, 7, BROADCAST)
    coordinator.bid = 4294967295
    coordinator.initiator = 65534
    const heartbeat = makeFrame(Kind.HEARTBEAT, Algorithm.ImprovedBully, 3, 1000000000, 7, BROADCAST)
    const longest = makeFrame(Kind.ELECTION, Algorithm.ActiveListRing, 3, 2, 7, BROADCAST)
    for (let i = 0; i < MAX_SEALED_LIST_LENGTH; i++) longest.list.push(65534 - i)
    return [election, coordinator, heartbeat, longest]
}

/** The frame keys the driver derives, then one line per sealed frame (its trailer: counter, nonce, tag), then the challenge and proof. */
export function authVectorLines(makeMac: (key: number[]) => MacFunction): string[] {
    const key = parseKeyHex(VECTOR_KEY)
    const lines: string[] = []
    lines.push("ELECTLAB-AUTH frame-key g=1 a=1 " + hex(frameKey(makeMac(key), 1, Algorithm.Bully)))
    lines.push("ELECTLAB-AUTH frame-key g=255 a=6 " + hex(frameKey(makeMac(key), 255, Algorithm.Echo)))
    let r1 = 0x12345678
    let r2 = 0xfedcba98
    const sender = new FrameAuth(7, 3, makeMac(key), () => r1++, zeroBytes)
    const receiver = new FrameAuth(8, 3, makeMac(key), () => r2++, zeroBytes)
    // the receiver boots first (its hello): a frame sent before its boot would be refused
    receiver.helloChallenge(0)
    const frames = vectorFrames()
    let first: number[] = null
    for (let i = 0; i < frames.length; i++) {
        const sealed = sealCopy(sender, encodeFrame(frames[i]).bytes, i * 10)
        if (!first) first = sealed
        lines.push("ELECTLAB-AUTH frame" + i + " len=" + sealed.length + " " + hex(sealed.slice(sealed.length - 16)))
    }
    const challenge = receiver.open(first, 100).reply
    lines.push("ELECTLAB-AUTH challenge " + hex(challenge))
    const proof = sender.open(challenge, 101).reply
    lines.push("ELECTLAB-AUTH proof " + hex(proof))
    const released = receiver.open(proof, 102).frames.length
    lines.push("ELECTLAB-AUTH released=" + released + " refused=" + receiver.refusedTotal())
    return lines
}
