import { batchSubmitJobId } from '@memfade/queue';
import { until, WORKER_WAIT_MS } from '@memfade/testing';
import { expect } from 'vitest';
import type { FaultRig } from './fault-rig.js';

/**
 * What the batch-mode rows share (fault-suite.test.ts: the provider's batches and the workers around
 * them; fault-suite-money.test.ts: the rows that count every paid line): the worker's batch
 * settings and the checks on round 0's batches.
 */

/** The rows that count money: every memory's text its own, so requests are told apart (money()). */
export const DISTINCT = { distinct: true };

/**
 * Batch mode (README "Batch mode") with tiny batches and a short poll: round 0 of a night is a
 * handful of batches, and a round's results are applied a few hundred milliseconds after it ends.
 */
export const BATCH = {
  MODEL_MODE: 'batch',
  BATCH_MIN_CALLS: '10',
  BATCH_MAX_REQUESTS: '25',
  BATCH_POLL_MS: '300',
  // Results applied 4 at a time: a kill lands between chunks and inside one.
  BATCH_CHUNK: '4',
  // The rows look at the provider's batches after the night (batch-mode-memories.test.ts tests the default).
  BATCH_DELETE_FILES: 'false',
};

/**
 * Waits until round 0's submit job has ended: every due memory's first request is in a batch the
 * emulator holds (or went the sync way: too short for a model, or several chunks).
 */
export async function roundZeroSubmitted(r: FaultRig, runId: string): Promise<void> {
  const submitted = async () =>
    (await r.services.queues.batch.getJob(batchSubmitJobId(runId, 0)))?.isCompleted() ?? false;
  await until(submitted, WORKER_WAIT_MS, r.tail.bind(r));
  expect(r.emulator.batches.list().length).toBeGreaterThan(3);
}

/** No request was submitted twice: every custom id is in one batch the emulator holds. */
export function submittedOnce(r: FaultRig): void {
  const ids = r.emulator.batches.list().flatMap((b) => b.customIds);
  expect(new Set(ids).size).toBe(ids.length);
}
