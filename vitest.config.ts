import { defineConfig } from "vitest/config"

// test/ci/ and test/lab12/ hold the long lab runs: `npm run test:ci`, `npm run test:lab12`.
export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    exclude: ["test/ci/**", "test/lab12/**", "**/node_modules/**"],
    testTimeout: 60_000,
  },
})
