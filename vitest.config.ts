import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { splitTestFiles } from './packages/testing/src/test-projects.js';

const root = fileURLToPath(new URL('.', import.meta.url));
const files = splitTestFiles(root);

/**
 * Two projects (docs/development.md): `unit` (no servers: `pnpm test:unit`) and `system` (the run's
 * own Redis, MongoDB-wire servers and PostgreSQL, the emulator, the built worker and CLI, the
 * benchmark's smoke run: `pnpm test:system`). `pnpm test` and ./scripts/test.sh run both.
 */
export default defineConfig({
  resolve: {
    // Tests run every workspace package from its sources, so one module instance serves all.
    alias: [{ find: /^@memfade\/([a-z-]+)$/, replacement: `${root}packages/$1/src/index.ts` }],
  },
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // At least two test files at once, even on two cores: most of a system test's time is spent
    // waiting on its servers (the MongoDB-wire server, Redis, the emulator), not computing. Vitest's
    // default (cores - 1) ran a 2-core machine's suite one file at a time: 604 s against 442 s.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    reporters: ['default'],
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: files.unit,
          setupFiles: ['packages/testing/src/unit-setup.ts'],
          // Without servers a file leaves nothing behind: one module graph per worker thread serves
          // every file, instead of a new process importing the packages again for each.
          pool: 'threads',
          isolate: false,
        },
      },
      {
        extends: true,
        test: {
          name: 'system',
          include: files.system,
          globalSetup: ['packages/testing/src/global-setup.ts'],
        },
      },
    ],
  },
});
