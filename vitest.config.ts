import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // these stop the Docker engine: vitest.engine.config.ts runs them alone, after the rest
    exclude: ['test/engine/**', '**/node_modules/**'],
    testTimeout: 30_000,
    hookTimeout: 600_000,
    // Integration tests drive the real Docker engine; on 2 cores two files at a time is the sweet spot.
    maxWorkers: 2,
    reporters: ['default'],
  },
});
