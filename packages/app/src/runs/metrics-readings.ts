import { holdsByRun, type Models, type OpenRun, openRuns, vectorOutbox } from '@memfade/db';
import { type MemfadeQueues, QUEUES, type QueueKey } from '@memfade/queue';
import type { Redis } from 'ioredis';
import { producerDeath } from './dead-work.js';

/**
 * What the alert rules need beyond the fleet's counters (docs/operations.md "Alerts"), read at
 * scrape time by the dashboard's /metrics (metrics-exposition.ts): the open runs and whether their
 * producer is dead (dead-work.ts), the memories each kind of run holds, the vector outbox, the
 * workers connected to each queue, and whether Redis persists what BullMQ keeps in it.
 */

/** Whose hold a memory is under (holds.ts): only `open` is as it should be. */
export type HolderState = 'open' | 'dead' | 'finished' | 'gone';

export interface OpenRunReading extends OpenRun {
  /** Why its producer is dead (its nightly job failed for good or is gone), else undefined. */
  producerDied?: string;
}

export interface RunReadings {
  openRuns: OpenRunReading[];
  held: Record<HolderState, number>;
  outbox: { pending: number; oldestAt?: Date };
}

/** The open runs, the holds by holder state and the outbox (MongoDB, plus BullMQ for a producer). */
export async function readRuns(models: Models, queues: MemfadeQueues): Promise<RunReadings> {
  const [runs, holds, outbox] = await Promise.all([
    openRuns(models),
    holdsByRun(models),
    vectorOutbox(models),
  ]);
  const open: OpenRunReading[] = await Promise.all(
    runs.map(async (run) => {
      // A producer that said it was done has a completed nightly job, and is not dead for that
      // (the run tracker asks only of runs still producing, as here: run-tracker.ts).
      if (run.producerDoneAt) return run;
      const producerDied = await producerDeath(queues, run.runId);
      return producerDied ? { ...run, producerDied } : run;
    }),
  );
  const dead = new Set(open.filter((run) => run.producerDied).map((run) => run.runId));
  const held: Record<HolderState, number> = { open: 0, dead: 0, finished: 0, gone: 0 };
  for (const hold of holds)
    held[hold.run === 'open' && dead.has(hold.runId) ? 'dead' : hold.run] += hold.memories;
  return { openRuns: open, held, outbox };
}

/**
 * Worker connections per queue (BullMQ names each worker's connection after its queue; CLIENT LIST).
 * A Redis that refuses CLIENT LIST (some managed ones) leaves the queue out.
 */
export async function readWorkers(queues: MemfadeQueues): Promise<{ queue: QueueKey; workers: number }[]> {
  const counted = await Promise.all(
    (Object.keys(QUEUES) as QueueKey[]).map(async (queue) => {
      const workers = await queues[queue].getWorkersCount().catch(() => undefined);
      return workers === undefined ? undefined : { queue, workers };
    }),
  );
  return counted.filter((c) => c !== undefined);
}

/**
 * Whether Redis writes an append-only file (INFO persistence) and RDB snapshots (CONFIG GET save;
 * left out where CONFIG is refused). Without either, a Redis restart loses every queued job.
 */
export async function readRedisPersistence(redis: Redis): Promise<{ kind: 'aof' | 'rdb'; on: boolean }[]> {
  const info = await redis.info('persistence');
  const aof = /^aof_enabled:(\d)/m.exec(info);
  const kinds: { kind: 'aof' | 'rdb'; on: boolean }[] = aof ? [{ kind: 'aof', on: aof[1] === '1' }] : [];
  const save = (await redis.config('GET', 'save').catch(() => undefined)) as string[] | undefined;
  if (save && save.length === 2) kinds.push({ kind: 'rdb', on: save[1]!.trim() !== '' });
  return kinds;
}
