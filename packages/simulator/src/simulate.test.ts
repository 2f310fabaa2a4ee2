import { workerMongoUri } from '@memfade/testing';
import { describe, expect, inject, it } from 'vitest';
import { runSeed } from './night.js';

/**
 * CI's fixed seeds of `pnpm simulate` (docs/guarantees.md "The simulator"): each builds a product
 * and a night with its events, runs them through the built worker and CLI, and must come out with
 * no finding. Chosen to cover both modes and providers, a mapping of each shape, kills, provider
 * faults, edits, deletes and forget; the soak (`pnpm simulate --seeds 300`) covers the rest.
 */
const CI_SEEDS = [10, 4];

describe('pnpm simulate, CI seeds (slow: whole nights through worker processes)', () => {
  const servers = {
    redisUrl: inject('redisUrl'),
    mongoUri: workerMongoUri(inject('mongoUris')),
    close: async () => {},
  };
  it.each(CI_SEEDS)(
    'seed %i: every invariant holds',
    async (seed) => {
      const result = await runSeed(servers, seed);
      expect(result.findings.map((f) => `${f.check}: ${f.detail}`)).toEqual([]);
    },
    400_000,
  );
});
