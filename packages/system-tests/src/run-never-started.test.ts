import {
  enqueueRun,
  RunNeverStarted,
  RunWaitTimeout,
  startSchedulerRole,
  startWorkerRole,
  waitForRun,
} from '@memfade/app';
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
    harness = await startHarness({
      now: NOW,
      config: { schedule: { cron: '0 3 * * *', tz: 'UTC', enabled: true, catchUp: 'always' } },
    });
  });
  afterAll(async () => harness?.close());

  /** A worker of the queue's own takes the next nightly job and fails it for good, as a last attempt does. */
  const failForGood = async (runId: string) => {
    const { nightly } = harness.services.queues;
    const redis = new URL(harness.config.redisUrl!);
    const worker = new Worker(nightly.name, null, {
      connection: { host: redis.hostname, port: Number(redis.port), maxRetriesPerRequest: null },
      prefix: nightly.opts.prefix,
      autorun: false,
    });
    const job = (await worker.getNextJob('token'))!;
    expect(job.id).toBe(runId);
    job.discard();
    await job.moveToFailed(new Error('connect ECONNREFUSED 127.0.0.1:27017'), 'token');
    await worker.close();
  };

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
    await failForGood(failed);
    const error = await waitForRun(services, failed, { timeoutMs: 10_000 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RunNeverStarted);
    expect((error as Error).message).toBe(
      'run failed-night never started: its producer failed for good (connect ECONNREFUSED 127.0.0.1:27017); its memories are due again at the next run',
    );
  });

  // A scheduled night whose job is lost before a producer takes it was skipped, silently, until the
  // next night: the scheduler now watches the night it fired and enqueues it again (scheduler.ts).
  it('the scheduler enqueues its night again when the job is lost or fails for good before any record', async () => {
    const { services } = harness;
    const { nightly } = services.queues;
    const runId = 'nightly-2026-11-22';
    // Started at 03:00 with no run of today: it catches up at once (CATCH_UP=always), no worker yet.
    const scheduler = await startSchedulerRole(services, { watchMs: 100 });
    const jobBack = async (seen: (state: string) => boolean) => {
      for (let i = 0; i < 100; i++) {
        const job = await nightly.getJob(runId);
        if (job && seen(await job.getState())) return job;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      throw new Error(`the nightly job was not enqueued again`);
    };
    try {
      await jobBack((state) => state === 'waiting');
      // Redis lost it (restarted without its data).
      await (await nightly.getJob(runId))!.remove();
      await jobBack((state) => state === 'waiting');
      // Failed for good before its producer wrote the record (MongoDB away through every attempt).
      await failForGood(runId);
      await jobBack((state) => state === 'waiting');
      // A producer takes it at last: the night runs, and the scheduler stops enqueueing it.
      const workers = startWorkerRole(services);
      try {
        expect((await waitForRun(services, runId, { timeoutMs: 30_000 })).finishedAt).toBeInstanceOf(Date);
      } finally {
        await workers.close();
      }
    } finally {
      await scheduler.stop();
    }
  });
});
