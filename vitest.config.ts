import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "forks",
    reporters: ["default"],
    // scripts/loop-flaky.mjs builds once and then runs vitest many times
    globalSetup: process.env.GATEHOUSE_TESTS_BUILT ? [] : ["test/support/global-setup.ts"],
  },
});
