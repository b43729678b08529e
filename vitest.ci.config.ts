import { defineConfig } from "vitest/config"

// The long lab runs, one file at a time: the VMs share the bus port and the machine's cores.
// test/ci/ runs in CI (`npm run test:ci`); test/lab12/ (twelve boards, the heap ballast) is
// `npm run test:lab12`, kept out of CI while a restart at twelve boards on the bus can still
// leave two coordinators for a few tens of milliseconds (docs/benchmarks.md).
export default defineConfig({
  test: {
    include: process.env.ELECTLAB_LAB12 ? ["test/lab12/**/*.test.ts"] : ["test/ci/**/*.test.ts"],
    testTimeout: 900_000,
    hookTimeout: 300_000,
    fileParallelism: false,
  },
})
