import { classifyFailure, type MemfadeQueues, notTheMemorysFailure } from '@memfade/queue';

/**
 * Work whose worker died for good, as BullMQ's queues tell it (docs/design.md invariants 12 and 15):
 * the run tracker finishes or counts it, so nothing waits on a dead claimant and no report is silent.
 */

/** Why the run's producer is dead, or undefined while its nightly job may still run. */
export async function producerDeath(queues: MemfadeQueues, runId: string): Promise<string | undefined> {
  const job = await queues.nightly.getJob(runId);
  if (!job) return 'its nightly job is gone';
  const state = await job.getState();
  if (state === 'failed') return `its nightly job failed for good: ${job.failedReason ?? 'no reason given'}`;
  // Completed without saying it was done: cannot happen (producerDone comes first), but it would
  // be as dead.
  if (state === 'completed' || state === 'unknown') return `its nightly job is ${state}`;
  return undefined;
}

/**
 * The run's compress jobs failed with no end counted: BullMQ failed them as stalled (their processor
 * never ended them), or MongoDB was away as their last attempt recorded its failure.
 */
export async function deadCompressJobs(queues: MemfadeQueues, runId: string) {
  const failed = await queues.compress.getFailed();
  return failed.filter((job) => job.data?.runId === runId && notTheMemorysFailure(job.failedReason));
}

export const deadJobMessage = (reason: string | undefined) =>
  classifyFailure(reason ?? '').kind === 'mongo-away'
    ? `${reason}; the next run compresses it again`
    : `its workers died while compressing it (${reason}); the next run compresses it again`;
