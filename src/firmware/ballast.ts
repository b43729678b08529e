// Lab-only heap ballast: holds `kb` KB of buffers from boot on. The runtime has no heap
// counter, so the firmware's high-water mark is found this way: the largest ballast with
// which the boards still run a failover script leaves that much of the heap unused.

const held: Buffer[] = []

export function holdBallast(kb: number) {
    for (let i = 0; i < kb; i++) held.push(Buffer.alloc(1024))
}
