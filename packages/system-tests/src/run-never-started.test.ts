import { enqueueRun, RunNeverStarted, RunWaitTimeout, waitForRun } from '@memfade/app';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from './harness.js';

const NOW = new Date('2026-11-22T03:00:00Z');

// Redis restarted without its data before a producer took a run's nightly job: the run has no
// record and never will. `run-now --wait` waited for it for ever (simulate --seed 144: a batch night,
// MongoDB away at its start, then Redis back empty); now it ends, saying so (exit 4).
describe('a run whose nightly job Redis lost before any producer took it', () => {
  let harness: Harness;
  beforeAll(async () => {
    harness = await startHarness({ now: NOW });
  });
  afterAll(async () => harness?.close());

  it('is reported as never started, while a run whose job still waits is waited for', async () => {
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
});
