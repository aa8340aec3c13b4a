import { defineConfig } from 'vitest/config';

// Tests that stop and start the local Docker engine: they run alone, after the main suite (`npm test`),
// since every other integration test needs the engine up.
export default defineConfig({
  test: {
    include: ['test/engine/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 600_000,
    fileParallelism: false,
    reporters: ['default'],
  },
});
