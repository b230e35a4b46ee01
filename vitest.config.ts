import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: [
      'domain/**/*.test.ts',
      'commands/**/*.test.ts',
      'stores/**/*.test.ts',
      'projections/**/*.test.ts',
      'api/**/*.test.ts',
      'infra/**/*.test.ts',
      'app/**/*.test.ts',
      'tests/**/*.test.ts',
    ],
    exclude: ['tests/perf/**', 'node_modules/**'],
    globalSetup: ['tests/support/testDatabases.globalSetup.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // A worker runs its files one after another in one module graph: every e2e file imports the whole
    // service, and importing it afresh per file was about a third of the suite's CPU. No file mocks a
    // module; the few fake timers and spies are undone in the file that sets them.
    isolate: false,
    maxWorkers: 2,
  },
});
