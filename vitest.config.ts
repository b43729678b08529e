import { defineConfig } from "vitest/config"

// test/ci/ holds the long lab runs: `npm run test:ci`.
export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    exclude: ["test/ci/**", "**/node_modules/**"],
    testTimeout: 60_000,
  },
})
