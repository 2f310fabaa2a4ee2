import { uniqueName } from '@memfade/testing';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { producerConnection } from './connection.js';
import { enqueueCompress, enqueueNightlyRun, jobDefaults, openQueues } from './queues.js';

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

  it('retry after the registry backoff unless JOB_RETRY_BACKOFF_MS scales it: nightly and batch twice compress', async () => {
    expect(jobDefaults('compress').backoff).toEqual({ type: 'exponential', delay: 5_000, jitter: 0.5 });
    expect(jobDefaults('compress', 200).backoff).toEqual({ type: 'exponential', delay: 200, jitter: 0.5 });
    expect(jobDefaults('nightly', 200).backoff).toEqual({ type: 'exponential', delay: 400 });
    expect(jobDefaults('batch', 200).backoff).toEqual({ type: 'exponential', delay: 400, jitter: 0.5 });
    expect(jobDefaults('compress', 200).attempts).toBe(5);
    // What a job added on queues opened with the setting carries to the worker that retries it.
    const short = openQueues({ connection: producer, prefix: uniqueName('q'), retryBackoffMs: 200 });
    try {
      await enqueueCompress(short, [{ runId: 'r1', memoryId: 'm3', target: 'v1' }]);
      expect((await short.compress.getJob('m3.v1'))?.opts.backoff).toEqual({
        type: 'exponential',
        delay: 200,
        jitter: 0.5,
      });
    } finally {
      await short.close();
    }
  });
});
