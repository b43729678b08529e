// For test/vm-heap.test.ts: a program that runs out of heap with much of it free. It holds
// SMALL Buffers of 100 bytes, lets every other one go (the free space in pieces of 112
// bytes between the held ones), then asks for Buffers of 1,000 bytes until none fits.
import * as ds from "@devicescript/core"

const SMALL = 300
const held: Buffer[] = []
for (let i = 0; i < SMALL; i++) held.push(Buffer.alloc(100))
for (let i = 0; i < SMALL; i += 2) held[i] = undefined
console.log("EL split")
const large: Buffer[] = []
setInterval(() => {
    large.push(Buffer.alloc(1000))
}, 5)
