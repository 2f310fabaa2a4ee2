import { findMemory, type Models, type RollbackResult, rollbackStage } from '@memfade/db';
import type { MemfadeQueues } from '@memfade/queue';
import { releaseCompressJobs } from './release-jobs.js';

/**
 * Takes a memory back to raw or V1 (the dropped results stay on it, `compression.rollbacks`) and
 * releases its finished compress jobs so the next run enqueues it again. Undefined when the memory
 * does not exist. The rollback flags the memory in the vector outbox; the workers' drain rewrites
 * its record.
 */
export async function rollbackMemory(
  operations: { models: Models; queues: MemfadeQueues; now: () => Date },
  memoryId: string,
  to: 'raw' | 'v1',
): Promise<RollbackResult | undefined> {
  if (!(await findMemory(operations.models, memoryId))) return undefined;
  const result = await rollbackStage(operations.models, memoryId, to, operations.now());
  await releaseCompressJobs(operations.queues, [memoryId]);
  return result;
}
