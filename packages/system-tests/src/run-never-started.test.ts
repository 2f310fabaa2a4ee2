import { enqueueRun, RunNeverStarted, RunWaitTimeout, waitForRun } from '@memfade/app';
import { Worker } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from './harness.js';

const NOW = new Date('2026-11-22T03:00:00Z');

// A run whose producer never wrote its record, and never will: its nightly job lost with Redis's
// data, or failed for good. `run-now --wait` waited for it for ever (simulate --seeds 144 and 424);
// now it ends, saying which (exit 4).
describe('a run that never started', () => {
  let harness: Harness;
  beforeAll(async () => {
    harness = await startHarness({ now: NOW });
  });
  afterAll(async () => harness?.close());

  it('Redis lost its job: never started, while a run whose job still waits is waited for', async () => {
    const { services } = harness;
    // No worker runs here: both jobs wait in the queue.
    const lost = await enqueueRun(services, { runId: 'lost-night', trigger: 'manual', asOf: NOW });
    const waiting = await enqueueRun(services, { runId: 'waiting-night', trigger: 'manual', asOf: NOW });
    await (await services.queues.nightly.getJob(lost))!.remove();
    const error = await waitForRun(services, lost, { timeoutMs: 10_000 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RunNeverStarted);
    expect((error as Error).message).toBe(
      'run lost-night never started: its job is gone from the queue (Redis lost its data?); its memories are due again at the next run',
    );
    await expect(waitForRun(services, waiting, { timeoutMs: 600 })).rejects.toBeInstanceOf(RunWaitTimeout);
  });

  // simulate --seed 424: MongoDB away through the nightly job's every attempt, so its producer never
  // wrote the run's record; the job sat failed and `--wait` waited for ever.
  it('its job failed for good before the record: never started, with the reason', async () => {
    const { services } = harness;
    // The first test's waiting job out of the way: the worker below takes the next job there is.
    await (await services.queues.nightly.getJob('waiting-night'))?.remove();
    const failed = await enqueueRun(services, { runId: 'failed-night', trigger: 'manual', asOf: NOW });
    // A worker of the queue's own takes the job and fails it for good, as a last attempt does.
    const { nightly } = services.queues;
    const redis = new URL(harness.config.redisUrl!);
    const worker = new Worker(nightly.name, null, {
      connection: { host: redis.hostname, port: Number(redis.port), maxRetriesPerRequest: null },
      prefix: nightly.opts.prefix,
      autorun: false,
    });
    const job = (await worker.getNextJob('token'))!;
    expect(job.id).toBe(failed);
    job.discard();
    await job.moveToFailed(new Error('connect ECONNREFUSED 127.0.0.1:27017'), 'token');
    await worker.close();
    const error = await waitForRun(services, failed, { timeoutMs: 10_000 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RunNeverStarted);
    expect((error as Error).message).toBe(
      'run failed-night never started: its producer failed for good (connect ECONNREFUSED 127.0.0.1:27017); its memories are due again at the next run',
    );
  });
});
