import { compressJobId, type MemfadeQueues } from '@memfade/queue';

/** What releasing some memories' compress jobs did: removed, or left to the worker running them. */
export interface JobRelease {
  removed: number;
  running: number;
}

/**
 * Removes the finished compress jobs of memories taken back to an earlier stage (a rollback, the
 * erasure sweep, forget), so the next run can enqueue them again: their ids are deterministic
 * (docs/design.md §1). A job still running is locked and stays; it finds the memory changed and does
 * the right thing itself. Counted for forget's receipt.
 */
export async function releaseCompressJobs(queues: MemfadeQueues, memoryIds: string[]): Promise<JobRelease> {
  const release = { removed: 0, running: 0 };
  for (const memoryId of memoryIds) {
    for (const target of ['v1', 'v2'] as const) {
      const id = compressJobId(memoryId, target);
      // remove() also answers 1 for a job that does not exist: look first, so the counts are true.
      if (!(await queues.compress.getJob(id))) continue;
      if (await queues.compress.remove(id).catch(() => 0)) release.removed++;
      else release.running++;
    }
  }
  return release;
}
