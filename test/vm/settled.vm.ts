// Waiting in the VM tests: real timers run late on a loaded machine, so a test waits for
// the state it expects, within a bound, instead of sleeping a fixed time.

import * as ds from "@devicescript/core"

/** Waits until `done` holds, polling every 20 ms, at most `ms` (the assertions after it then say what failed). */
export async function settled(done: () => boolean, ms: number) {
    for (let waited = 0; waited < ms && !done(); waited += 20) await ds.sleep(20)
}
