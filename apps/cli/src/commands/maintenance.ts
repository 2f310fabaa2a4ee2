import type { TargetStage } from '@memfade/core';
import { markVectorPending, rollbackStage } from '@memfade/db';
import { compressJobId } from '@memfade/queue';
import { withOperations, withServices } from '../context.js';

/** Puts the failed compress jobs (optionally of one target stage) back in the queue. */
export async function retryFailed(options: { stage?: TargetStage; json: boolean }): Promise<void> {
  await withOperations(async ({ queues }) => {
    const failed = await queues.compress.getFailed();
    const chosen = failed.filter((job) => !options.stage || job.data.target === options.stage);
    for (const job of chosen) await job.retry('failed');
    const ids = chosen.map((job) => job.data.memoryId);
    console.log(
      options.json
        ? JSON.stringify({ retried: ids.length, memoryIds: ids })
        : `retried ${ids.length} failed jobs`,
    );
  });
}

/**
 * Takes a memory back to raw or V1; the dropped results stay on the memory (compression.rollbacks).
 * Its finished jobs are removed from the queue so the next run can enqueue it again. The rollback
 * flags the memory in the vector outbox; the workers' vector sync writes its record to the
 * configured store (this command opens no vector store).
 */
export async function rollback(memoryId: string, options: { to: 'raw' | 'v1' }): Promise<void> {
  await withOperations(async (operations) => {
    const result = await rollbackStage(operations.models, memoryId, options.to, operations.now());
    for (const target of ['v1', 'v2'] as const)
      await operations.queues.compress.remove(compressJobId(memoryId, target));
    console.log(`memory ${memoryId}: ${result.from} -> ${result.to}; it is due again at the next run`);
  });
}

/** Re-embeds the searchable text of some users' memories (or all) into the configured vector store. */
export async function reindex(options: { user: string[]; all: boolean }): Promise<void> {
  if (!options.all && options.user.length === 0)
    throw new Error('choose the memories: --user <id> (repeatable) or --all');
  await withServices(async (services) => {
    const flagged = await markVectorPending(services.models, options.all ? 'all' : { userIds: options.user });
    const synced = await services.vectorSync.drain();
    await services.vectors.optimize();
    console.log(`reindexed ${synced} of ${flagged} memories`);
  });
}
