// For test/vm-heap.test.ts: a program whose heap is known. It makes garbage all the time (so
// the VM collects every 16 KB), holds one Buffer of HOLD bytes from its 40th to its 80th step,
// and says when: "EL hold" and "EL release".
import * as ds from "@devicescript/core"

const HOLD = 10000
let held: Buffer = undefined
let step = 0
setInterval(() => {
    step = step + 1
    if (step === 40) {
        held = Buffer.alloc(HOLD)
        console.log("EL hold n=" + held.length)
    }
    if (step === 80) {
        held = undefined
        console.log("EL release")
    }
    // garbage: 20 short Buffers a step, none kept
    for (let i = 0; i < 20; i++) Buffer.alloc(100)
}, 20)
