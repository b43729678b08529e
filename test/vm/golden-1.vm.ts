// Runs inside the DeviceScript VM: `devs run test/vm/golden-1.vm.ts --test --test-self-exit`
// (npm run test:vm first generates the golden files' data, see generate-golden.ts).
// Replays part 1 of the golden scenario files and compares each command's output with the
// file's, line for line, and the trace digest with the host's.

import * as ds from "@devicescript/core"
import { describe, expect, test } from "@devicescript/test"
import { goldenFiles, goldenScenarios } from "./golden-scenarios-1.generated"
import { checkGolden } from "./golden-runner"

// The VM under test runs with GC stress and stops a fiber that runs too long without
// yielding ("InfiniteLoop"): the runner sleeps between slices of ten events.
async function pause() {
    await ds.sleep(1)
}

describe("golden scenario files in the VM", () => {
    goldenFiles.forEach((file, i) => {
        test(file, async () => {
            const difference = await checkGolden(goldenScenarios[i](), pause)
            if (difference !== "") console.log("ELECTLAB-GOLDEN " + difference)
            expect(difference).toBe("")
        })
    })
})
