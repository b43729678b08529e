import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { defineConfig } from "vitest/config"
import { BaseSequencer, type TestSpecification } from "vitest/node"

// The test tiers (docs/benchmarks.md, "Test tiers"); each test runs in exactly one:
//   fast    `npm run test:fast`: core, codec, auth, API and host logic; no VM, no devs build,
//           no broker, no browser, no search past a few thousand states
//   medium  with fast in `npm test`: firmware builds, CLI processes, the check at N = 3, a small
//           campaign, and one five-board failover on the bus and one over MQTT ("lab-failover")
//   slow    `npm run test:ci`: the longer searches and campaigns ("slow", at the lowest CPU
//           priority, a vitest run of their own: scripts/test-ci.sh) beside every other lab,
//           broker and browser test, two at a time ("labs"),
//           then the 12-board labs ("twelve"), with no other lab beside them
// A file that spans tiers (SPLIT) runs in each tier's project; test/tiers.ts skips there the
// tests of the other tiers.

/** Whole files of the medium tier. */
const MEDIUM = ["test/firmware-size.test.ts", "test/api-build.test.ts", "test/vm-heap.test.ts"]
/** Files with tests in more than one tier: those that import test/tiers.ts (none is left out by hand). */
const SPLIT = readdirSync(join(import.meta.dirname, "test"))
  .filter((f) => f.endsWith(".test.ts") && /from "\.\/tiers"/.test(readFileSync(join(import.meta.dirname, "test", f), "utf8")))
  .map((f) => `test/${f}`)
/** Searches too long for `npm test`. */
const SEARCHES = ["test/ci/check-large.test.ts", "test/ci/attacks-12.test.ts", "test/ci/attacks-adaptive.test.ts"]
/** Twelve VMs take the machine: nothing runs beside them. */
const TWELVE = ["test/ci/lab12.test.ts"]
/** `npm test`'s VMs: one failover on each transport. */
const LAB_FAILOVER = ["test/lab-failover.test.ts"]
// Files that run the virtual lab, a broker or a browser are timing-sensitive (a loaded core
// makes a VM answer late): in `npm run test:ci` two at a time, with nothing but the niced
// searches beside them.
const LABS = [
  "test/ci/attacks-lab-bus.test.ts",
  "test/ci/attacks-lab-mqtt.test.ts",
  "test/ci/web-live.test.ts",
  "test/ci/package-install.test.ts",
  "test/ci/readme-path.test.ts",
  "test/lab.test.ts",
  "test/lab-keys.test.ts",
  "test/web.test.ts",
  "test/observer.test.ts",
  "test/mqtt.test.ts",
  "test/broker-access.test.ts",
  "test/api-host.test.ts",
  "test/failover-bench.test.ts",
]

/** The longest files, longest first: on two lanes they start first and the short ones fill in around them. */
const LONGEST = ["test/ci/attacks-lab-bus.test.ts", "test/ci/attacks-lab-mqtt.test.ts", "test/ci/package-install.test.ts", "test/lab.test.ts", "test/lab-keys.test.ts", "test/ci/web-live.test.ts", "test/web.test.ts"]

class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (f: TestSpecification) => {
      const i = LONGEST.findIndex((l) => f.moduleId.endsWith(l))
      return i < 0 ? LONGEST.length : i
    }
    const sorted = await super.sort(files)
    return sorted.map((f, i) => ({ f, i })).sort((a, b) => rank(a.f) - rank(b.f) || a.i - b.i).map(({ f }) => f)
  }
}

export default defineConfig({
  test: {
    testTimeout: 60_000,
    sequence: { sequencer: LongestFirst },
    projects: [
      {
        extends: true,
        test: {
          name: "fast",
          include: ["test/**/*.test.ts"],
          exclude: [...MEDIUM, ...LAB_FAILOVER, ...LABS, "test/ci/**", "**/node_modules/**"],
          env: { ELECTLAB_TIER: "fast" },
          maxWorkers: "100%",
          // a worker's files share its modules (a fifth faster here): a test restores what it fakes
          isolate: false,
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: { name: "medium", include: [...MEDIUM, ...SPLIT], env: { ELECTLAB_TIER: "medium" }, maxWorkers: "100%", sequence: { groupOrder: 0 } },
      },
      { extends: true, test: { name: "lab-failover", include: LAB_FAILOVER, fileParallelism: false, sequence: { groupOrder: 1 } } },
      // the searches at the lowest CPU priority, in a vitest run of their own beside the labs (scripts/test-ci.sh)
      {
        extends: true,
        test: {
          name: "slow",
          include: [...SPLIT, ...SEARCHES],
          env: { ELECTLAB_TIER: "slow" },
          setupFiles: ["test/background.ts"],
          testTimeout: 900_000,
          maxWorkers: 2,
          sequence: { groupOrder: 2 },
        },
      },
      // each lab takes free ports (sim/lab/lab.ts): two run side by side
      { extends: true, test: { name: "labs", include: LABS, testTimeout: 300_000, hookTimeout: 300_000, maxWorkers: 2, sequence: { groupOrder: 2 } } },
      { extends: true, test: { name: "twelve", include: TWELVE, testTimeout: 900_000, fileParallelism: false, sequence: { groupOrder: 3 } } },
    ],
  },
})
