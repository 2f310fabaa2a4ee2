import { uniqueName } from '@memfade/testing';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { producerConnection } from './connection.js';
import { enqueueCompress, enqueueNightlyRun, openQueues } from './queues.js';

describe('enqueued jobs', () => {
  const producer = producerConnection(inject('redisUrl'));
  const queues = openQueues({ connection: producer, prefix: uniqueName('q') });

  afterAll(async () => {
    await queues.close();
    await producer.quit();
  });

  it('are named by kind, so Bull Board tells a run from a V1 or a V2 compression', async () => {
    const asOf = new Date('2026-11-22T03:00:00Z').toISOString();
    await enqueueNightlyRun(queues, {
      runId: 'nightly-2026-11-22',
      trigger: 'schedule',
      asOf,
      selection: {},
    });
    await enqueueCompress(queues, [
      { runId: 'nightly-2026-11-22', memoryId: 'm1', target: 'v1' },
      { runId: 'nightly-2026-11-22', memoryId: 'm2', target: 'v2' },
    ]);
    expect((await queues.nightly.getJob('nightly-2026-11-22'))?.name).toBe('nightly-run');
    expect((await queues.compress.getJob('m1.v1'))?.name).toBe('compress-v1');
    expect((await queues.compress.getJob('m2.v2'))?.name).toBe('compress-v2');
  });
});
