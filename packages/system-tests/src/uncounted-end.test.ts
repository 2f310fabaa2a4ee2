import { createServices, processCompress } from '@memfade/app';
import { compressJobName, MONGO_AWAY_FAILURE } from '@memfade/queue';
import { createLogger } from '@memfade/runtime';
import { startTcpProxy, workerMongoUri } from '@memfade/testing';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { type Harness, startHarness } from './harness.js';

const NOW = new Date('2026-11-22T03:00:00Z');

/**
 * docs/design.md invariants 3 and 15: a job whose last attempt did its work but found MongoDB away
 * as it counted its end fails saying so, as a last attempt that failed does: the run tracker counts
 * it once MongoDB answers, and the next run replaces the job. Before, BullMQ failed it for good with
 * the driver's message, which nothing counts: the run said one failed job fewer than BullMQ held.
 */
describe('a last attempt that ended well but could not count its end', () => {
  const closers: (() => Promise<unknown>)[] = [];
  let harness: Harness;
  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close();
    await harness?.close();
  });

  it('fails saying MongoDB was away, for the run tracker to count', async () => {
    harness = await startHarness({ now: NOW });
    const { services, config } = harness;
    // The run's books go through a proxy that can be cut; the memory is read directly (a memory
    // the product deleted: the job has nothing to do but count its end).
    const proxy = await startTcpProxy({ port: Number(new URL(workerMongoUri(inject('mongoUris'))).port) });
    closers.push(() => proxy.close());
    const books = await createServices(
      { ...config, mongodbUri: `mongodb://127.0.0.1:${proxy.port}`, connectTimeoutMs: 500 },
      { logger: createLogger({ level: 'silent' }), now: () => NOW },
    );
    closers.push(() => books.close());
    const data = { runId: 'night-1', memoryId: 'deleted-memory', target: 'v1' as const };
    const job = await services.queues.compress.add(compressJobName('v1'), data, { attempts: 1 });
    await proxy.cut();

    const failure = await processCompress(job, {
      store: services.store,
      compressor: services.compressor,
      tracker: books.tracker,
      policy: config.policy,
      now: () => NOW,
    }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(Error);
    expect((failure as Error).message.slice(0, MONGO_AWAY_FAILURE.length)).toBe(MONGO_AWAY_FAILURE);
  }, 60_000);
});
