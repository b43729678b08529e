import { defineConfig } from "vitest/config"

// test/ci/ and test/long/ hold the long lab runs: `npm run test:ci`, `npm run test:long`.
export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    exclude: ["test/ci/**", "test/long/**", "**/node_modules/**"],
    testTimeout: 60_000,
  },
})
