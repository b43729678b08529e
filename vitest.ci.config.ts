import { defineConfig } from "vitest/config"

// The long runs, one file at a time: the VMs share the bus port and the machine's cores, and
// the exhaustive check takes both cores. test/ci/ runs in CI (`npm run test:ci`), twelve-board
// labs included.
export default defineConfig({
  test: {
    include: ["test/ci/**/*.test.ts"],
    testTimeout: 900_000,
    hookTimeout: 300_000,
    fileParallelism: false,
  },
})
