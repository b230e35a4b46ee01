import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['domain/**/*.test.ts', 'commands/**/*.test.ts', 'projections/**/*.test.ts', 'api/**/*.test.ts', 'infra/**/*.test.ts', 'tests/**/*.test.ts'],
    exclude: ['tests/perf/**', 'node_modules/**'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    maxWorkers: 2,
  },
});
