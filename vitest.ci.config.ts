import { defineConfig } from "vitest/config"

// The long lab runs, one file at a time: the VMs share the bus port and the machine's cores.
export default defineConfig({
  test: {
    include: ["test/ci/**/*.test.ts"],
    testTimeout: 300_000,
    hookTimeout: 300_000,
    fileParallelism: false,
  },
})
