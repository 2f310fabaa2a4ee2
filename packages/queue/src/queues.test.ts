import { uniqueName } from '@memfade/testing';
import { Worker } from 'bullmq';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { producerConnection } from './connection.js';
import { enqueueCompress, enqueueNightlyRun, jobDefaults, openQueues } from './queues.js';
import { QUEUES } from './registry.js';

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

  it("replace another run's finished job of a memory due again: completed, or failed past its keeping", async () => {
    const prefix = uniqueName('q');
    const own = openQueues({ connection: producer, prefix });
    const worker = new Worker(own.compress.name, null, { connection: { url: inject('redisUrl') }, prefix });
    const finish = async (fail: boolean, reason = 'provider down') => {
      const job = await worker.getNextJob('token');
      if (fail) {
        job!.discard(); // failed for good, not retried
        await job!.moveToFailed(new Error(reason), 'token');
      } else await job!.moveToCompleted('done', 'token', false);
      return job!.id!;
    };
    try {
      await enqueueCompress(own, [
        { runId: 'night-1', memoryId: 'done', target: 'v1' },
        { runId: 'night-1', memoryId: 'failed-now', target: 'v1' },
        { runId: 'night-1', memoryId: 'failed-then', target: 'v1' },
        { runId: 'night-1', memoryId: 'workers-died', target: 'v1' },
      ]);
      expect(await finish(false)).toBe('done.v1');
      expect(await finish(true)).toBe('failed-now.v1');
      expect(await finish(true)).toBe('failed-then.v1');
      // BullMQ's own reason when the workers holding a job died past its stalled limit.
      expect(await finish(true, 'job stalled more than allowable limit')).toBe('workers-died.v1');
      const keptMs = QUEUES.compress.defaults.removeOnFail.age * 1000;
      await producer.hset(own.compress.toKey('failed-then.v1'), 'finishedOn', Date.now() - keptMs - 60_000);

      const next = await enqueueCompress(own, [
        { runId: 'night-2', memoryId: 'done', target: 'v1' },
        { runId: 'night-2', memoryId: 'failed-now', target: 'v1' },
        { runId: 'night-2', memoryId: 'failed-then', target: 'v1' },
        { runId: 'night-2', memoryId: 'workers-died', target: 'v1' },
      ]);
      // The memory's own failure, still within its keeping, holds it back; the other three are night-2's.
      expect(next).toEqual({ enqueued: 3, heldBack: 1 });
      expect((await own.compress.getJob('workers-died.v1'))?.data.runId).toBe('night-2');
      expect((await own.compress.getJob('done.v1'))?.data.runId).toBe('night-2');
      expect((await own.compress.getJob('failed-then.v1'))?.data.runId).toBe('night-2');
      expect(await own.compress.getJobState('failed-now.v1')).toBe('failed');
      // The same run's own jobs are its own: nothing replaced, nothing counted twice.
      expect(await enqueueCompress(own, [{ runId: 'night-2', memoryId: 'done', target: 'v1' }])).toEqual({
        enqueued: 1,
        heldBack: 0,
      });
    } finally {
      await worker.close();
      await own.close();
    }
  });
});
