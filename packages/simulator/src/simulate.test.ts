import { workerMongoUri } from '@memfade/testing';
import { describe, expect, inject, it } from 'vitest';
import { runSeed } from './night.js';

/**
 * CI's fixed seeds of `pnpm simulate` (docs/guarantees.md "The simulator"): each builds a product
 * and a night with its events, runs them through the built worker and CLI, and must come out with
 * no finding. Seed 10: batch mode on OpenAI's SDK with 2 memories a request, a prefix mapping with
 * epoch dates, a token budget and a per-user cap ($0.1), the producer killed twice, the fleet killed
 * as a batch's results are applied and while the vector outbox drains, a forget, a concurrent
 * run-now, an edit (its budget stops most stages), MongoDB cut off from the workers for 14 s (a
 * worker started again meanwhile exits 2 and is started again). Seed 1043: batch mode on Anthropic's SDK with 4
 * memories a request and the fleet killed twice just after a batch's results were downloaded
 * (grouped lines recovered mid-apply), edits, deletes, a backfill, a full erasure sweep from the CLI
 * (reindex --prune) while the workers drain. Seed 3: sync mode on a prefix mapping whose product
 * wrote one memory's turn time as "at noon": it must fail naming `messages.14.ts` (the product's
 * path, not memfade's), nothing written, amid a backfill, a kill, wrong-language replies, a delete
 * and a re-insert. Seed 16: sync mode on a prefix mapping whose memory ids are integers and users
 * ObjectIds, one memory a conversation in Korean (it must fail naming `messages` and the language,
 * never translated), Redis cut off from the workers for 4.7 s, workers frozen (SIGSTOP) while a job is at work.
 * Seed 1: a prefix mapping whose turn times are ISO strings without a zone, workers in New York's time
 * zone and the CLI in Shanghai's (its `reindex --prune` must not take a stage for an edit's), each
 * turn's sender stored by id (the mapping's roles `$userId` and `$partnerId`), Redis back without its data.
 * Seed 41: the offline compressor (the default) on a side collection, role card names stored with a space
 * or a line break around them (on the code before, 17 memories refused for good by the faithfulness gate).
 * Every seed's product also draws a quarter of its chats from the chat fuzz (packages/eval fuzz).
 * The soak (`pnpm simulate --seeds 300`) covers the rest.
 */
const CI_SEEDS = [10, 1043, 3, 16, 1, 41];

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
