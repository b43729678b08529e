// Frames between drivers in one VM, as the bus would carry them (a broadcast reaches all but
// its sender): for the VM tests of the driver.

import { FrameTransport, NodeDriver } from "../../src/firmware/driver"

export class MemoryBus {
    drivers: NodeDriver[] = []
    /** Frames sent. */
    frames = 0
    /** Every frame as sent, for replays; null (the default): none kept, the heap is a board's. */
    log: Buffer[] = null
    /** A frozen node: nothing it sends goes out, nothing reaches it; 0 for none. */
    frozen = 0
}

export class MemoryTransport implements FrameTransport {
    constructor(public bus: MemoryBus, public me: number) {}
    async unicast(dst: number, bytes: Buffer) {
        this.sent(bytes)
        if (this.me === this.bus.frozen) return
        for (let i = 0; i < this.bus.drivers.length; i++) {
            const d = this.bus.drivers[i]
            if (d.config.nodeId === dst && dst !== this.bus.frozen) await d.receive(bytes)
        }
    }
    async broadcast(bytes: Buffer) {
        this.sent(bytes)
        if (this.me === this.bus.frozen) return
        for (let i = 0; i < this.bus.drivers.length; i++) {
            const d = this.bus.drivers[i]
            if (d.config.nodeId !== this.me && d.config.nodeId !== this.bus.frozen) await d.receive(bytes)
        }
    }
    private sent(bytes: Buffer) {
        this.bus.frames++
        if (this.bus.log) this.bus.log.push(bytes)
    }
}
