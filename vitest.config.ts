import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const root = fileURLToPath(new URL('.', import.meta.url));

export default defineConfig({
  resolve: {
    // Tests run every workspace package from its sources, so one module instance serves all.
    alias: [{ find: /^@memfade\/([a-z-]+)$/, replacement: `${root}packages/$1/src/index.ts` }],
  },
  test: {
    include: [
      'packages/*/src/**/*.test.ts',
      'apps/*/src/**/*.test.ts',
      'bench/src/**/*.test.ts',
      'infra/*.test.ts',
      'docs/*.test.ts',
    ],
    globalSetup: ['packages/testing/src/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // At least two test files at once, even on two cores: most of a system test's time is spent
    // waiting on its servers (the MongoDB-wire server, Redis, the emulator), not computing. Vitest's
    // default (cores - 1) ran a 2-core machine's suite one file at a time: 604 s against 442 s.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    reporters: ['default'],
  },
});
