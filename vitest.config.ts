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
    reporters: ['default'],
  },
});
