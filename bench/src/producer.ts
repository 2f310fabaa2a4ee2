import type { Operations } from '@memfade/app';
import { enqueueRun, processNightlyRun } from '@memfade/app';
import { type Memory, transitionsDue } from '@memfade/core';
import { producerConnection, QUEUES } from '@memfade/queue';
import { Queue, Worker } from 'bullmq';
import { cpuDuring } from './proc.js';

export interface ProducerRun {
  seconds: number;
  perSecond: number;
  enqueued: number;
  /**
   * CPU milliseconds per 1000 due memories, by process: `producer` (this process), `db` (the
   * MongoDB-wire server) and `redis`, when the bench started them. Where the wall time goes.
   */
  cpuMsPer1000: Record<string, number>;
}

export interface ProducerResult {
  memories: number;
  due: number;
  optimized: ProducerRun;
  naive: ProducerRun;
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
  servers: { db?: number; redis?: number } = {},
): Promise<ProducerResult> {
  const pids = { producer: process.pid, ...servers };
  const per1000 = (cpuMs: Record<string, number>) =>
    Object.fromEntries(Object.entries(cpuMs).map(([name, ms]) => [name, (ms * 1000) / due]));
  const { config, queues } = operations;
  const connection = producerConnection(config.redisUrl!, { maxRetriesPerRequest: null });
  const nightly = new Worker(
    QUEUES.nightly.name,
    (job) => processNightlyRun(job, { ...operations, policy: config.policy }),
    { connection, prefix: config.queuePrefix },
  );
  // Told by the worker when the nightly job ends: a poll of the run record every 20 ms cost this
  // process and the database CPU the loop below does not pay (~200 reads of 10,000 due).
  const produced = new Promise<void>((resolve, reject) => {
    nightly.once('completed', () => resolve());
    nightly.once('failed', (_job, error) => reject(error));
  });
  let started = performance.now();
  const optimizedRun = await cpuDuring(pids, async () => {
    const runId = await enqueueRun(operations, { trigger: 'manual' });
    await produced;
    return runId;
  });
  const optimizedSeconds = (performance.now() - started) / 1000;
  const runId = optimizedRun.result;
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
  const naiveRun = await cpuDuring(pids, async () => {
    let enqueued = 0;
    const users = (await operations.models.memories.distinct('userId')) as string[];
    for (const userId of users) {
      const all = (await operations.models.memories.find({ userId }).lean()) as unknown as Memory[];
      for (const memory of all) {
        const steps = transitionsDue(memory.meta.compressionStage, memory.meta.createdAt, now, config.policy);
        if (steps.length === 0) continue;
        await naiveQueue.add('compress', { memoryId: memory.memoryId, target: steps[0] });
        enqueued++;
      }
    }
    return enqueued;
  });
  const naiveSeconds = (performance.now() - started) / 1000;
  await naiveQueue.obliterate({ force: true });
  await naiveQueue.close();
  await queues.compress.obliterate({ force: true });
  return {
    memories,
    due,
    optimized: {
      seconds: optimizedSeconds,
      perSecond: due / optimizedSeconds,
      enqueued,
      cpuMsPer1000: per1000(optimizedRun.cpuMs),
    },
    naive: {
      seconds: naiveSeconds,
      perSecond: due / naiveSeconds,
      enqueued: naiveRun.result,
      cpuMsPer1000: per1000(naiveRun.cpuMs),
    },
    speedup: naiveSeconds / optimizedSeconds,
  };
}
