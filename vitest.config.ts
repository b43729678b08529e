import { defineConfig } from "vitest/config"

// test/ci/ holds the long lab runs: `npm run test:ci`.
// Files that run the virtual lab, a broker or a browser are timing-sensitive (a loaded core
// makes a VM answer late) and some own a fixed port: they run one at a time, after the rest,
// which share every core (vitest's default leaves one idle: on two cores, one worker).
const LABS = [
  "test/lab.test.ts",
  "test/web.test.ts",
  "test/observer.test.ts",
  "test/mqtt.test.ts",
  "test/broker-access.test.ts",
  "test/api-host.test.ts",
  "test/failover-bench.test.ts",
]

export default defineConfig({
  test: {
    testTimeout: 60_000,
    projects: [
      {
        extends: true,
        test: {
          name: "core and host",
          include: ["test/**/*.test.ts"],
          exclude: [...LABS, "test/ci/**", "**/node_modules/**"],
          maxWorkers: "100%",
          sequence: { groupOrder: 0 },
        },
      },
      { extends: true, test: { name: "labs", include: LABS, fileParallelism: false, sequence: { groupOrder: 1 } } },
    ],
  },
})
