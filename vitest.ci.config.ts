import { defineConfig } from "vitest/config"

// The long runs, one file at a time: the VMs share the bus port and the machine's cores, and
// the exhaustive check takes both cores. test/ci/ runs in CI (`npm run test:ci`). test/long/ (`npm run test:long`) holds the runs that
// do not pass every time yet: twelve boards (a restart on the bus can still leave two
// coordinators for tens of milliseconds), the heap ballast, and the example application
// (a host program on the keyed broker; a board that led throughout takes no summary).
export default defineConfig({
  test: {
    include: process.env.ELECTLAB_LONG ? ["test/long/**/*.test.ts"] : ["test/ci/**/*.test.ts"],
    testTimeout: 900_000,
    hookTimeout: 300_000,
    fileParallelism: false,
  },
})
