import { type Memory, transitionsDue } from '@memfade/core';
import { processNightlyRun, producerConnection, QUEUES } from '@memfade/queue';
import type { Operations } from '@memfade/service';
import { enqueueRun } from '@memfade/service';
import { Queue, Worker } from 'bullmq';

export interface ProducerResult {
  memories: number;
  due: number;
  optimized: { seconds: number; perSecond: number; enqueued: number };
  naive: { seconds: number; perSecond: number; enqueued: number };
  speedup: number;
}

/**
 * The nightly producer (indexed streaming due scan + addBulk in chunks, through the real
 * nightly-run job) against seed 003's scheduler loop (per user: load all memories, check each,
 * queue.add one by one) on the same data, each into a queue of its own.
 */
export async function benchmarkProducer(
  operations: Operations,
  due: number,
  memories: number,
): Promise<ProducerResult> {
  const { config, queues } = operations;
  const connection = producerConnection(config.redisUrl!, { maxRetriesPerRequest: null });
  const nightly = new Worker(
    QUEUES.nightly.name,
    (job) => processNightlyRun(job, { ...operations, policy: config.policy }),
    { connection, prefix: config.queuePrefix },
  );
  let started = performance.now();
  const runId = await enqueueRun(operations, { trigger: 'manual' });
  for (;;) {
    const run = await operations.runs.get(runId);
    if (run?.producerDoneAt) break;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const optimizedSeconds = (performance.now() - started) / 1000;
  await nightly.close();
  // A connection handed to a Worker stays open after close(): left open, it would retry forever once Redis stops.
  await connection.quit();
  const enqueued = (await operations.runs.get(runId))!.counts.enqueued;

  // Seed 003's loop, faithfully: users, then all of each user's memories, one add per due memory.
  const naiveQueue = new Queue('naive-compress', {
    connection: operations.redis,
    prefix: `${config.queuePrefix}-naive`,
  });
  started = performance.now();
  const now = operations.now();
  let naiveEnqueued = 0;
  const users = (await operations.models.memories.distinct('userId')) as string[];
  for (const userId of users) {
    const all = (await operations.models.memories.find({ userId }).lean()) as unknown as Memory[];
    for (const memory of all) {
      const steps = transitionsDue(memory.meta.compressionStage, memory.meta.createdAt, now, config.policy);
      if (steps.length === 0) continue;
      await naiveQueue.add('compress', { memoryId: memory.memoryId, target: steps[0] });
      naiveEnqueued++;
    }
  }
  const naiveSeconds = (performance.now() - started) / 1000;
  await naiveQueue.obliterate({ force: true });
  await naiveQueue.close();
  await queues.compress.obliterate({ force: true });
  return {
    memories,
    due,
    optimized: { seconds: optimizedSeconds, perSecond: due / optimizedSeconds, enqueued },
    naive: { seconds: naiveSeconds, perSecond: due / naiveSeconds, enqueued: naiveEnqueued },
    speedup: naiveSeconds / optimizedSeconds,
  };
}
