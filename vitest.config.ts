import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { LONGEST_FILES, splitTestFiles } from './packages/testing/src/test-projects.js';

const root = fileURLToPath(new URL('.', import.meta.url));
const files = splitTestFiles(root);

/** Vitest's order (longest first when it has timed them, else largest first), LONGEST_FILES first. */
class LongestFirst extends BaseSequencer {
  override async sort(specs: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(specs);
    const long = (spec: TestSpecification) =>
      LONGEST_FILES.some((path) => spec.moduleId.includes(`/${path}`));
    return [...sorted.filter(long), ...sorted.filter((spec) => !long(spec))];
  }
}

/**
 * Two projects (docs/development.md): `unit` (no servers: `pnpm test:unit`) and `system` (the run's
 * own Redis, MongoDB-wire servers and PostgreSQL, the emulator, the built worker and CLI, the
 * benchmark's smoke run: `pnpm test:system`). `pnpm test` and ./scripts/test.sh run both.
 */
export default defineConfig({
  resolve: {
    // Tests run every workspace package from its sources, so one module instance serves all; a
    // subpath export (`@memfade/db/mapping`) is named after its source file for the same reason.
    alias: [
      { find: /^@memfade\/([a-z-]+)$/, replacement: `${root}packages/$1/src/index.ts` },
      { find: /^@memfade\/([a-z-]+)\/([a-z/-]+)$/, replacement: `${root}packages/$1/src/$2.ts` },
    ],
  },
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Four test files at once even on two cores: most of a system test's time is spent waiting on
    // its servers (the MongoDB-wire server, Redis, the emulator, the worker processes), not computing.
    // Vitest's default (cores - 1) ran a 2-core machine's suite one file at a time.
    maxWorkers: Math.max(4, availableParallelism()),
    // Every worker kept until the end: with fewer, Tinypool stopped an idle worker while the others
    // ran, and that stop rejected ('Terminating worker thread') and ended the whole run.
    minWorkers: Math.max(4, availableParallelism()),
    // Test files share their worker (a process for the system project, a thread for the unit one)
    // and its module graph, instead of a new one importing every package again for each file: on
    // two cores that import was a third of the system project's CPU and half the unit project's.
    // Set here, not per project: the pools are made from the root options (a project's `isolate`
    // alone still started a worker per file). Nothing here needs a fresh module graph: no file mocks
    // a module (vi.mock is nowhere), and every file opens and closes its own services.
    poolOptions: { forks: { isolate: false }, threads: { isolate: false } },
    sequence: { sequencer: LongestFirst },
    reporters: ['default'],
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: files.unit,
          setupFiles: ['packages/testing/src/unit-setup.ts'],
          // Without servers a file leaves nothing behind: threads, lighter than processes.
          pool: 'threads',
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
