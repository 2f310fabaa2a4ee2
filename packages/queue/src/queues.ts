import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { type CompressPayload, compressJobId, type NightlyRunPayload, QUEUES } from './registry.js';

export interface QueueOptions {
  connection: Redis;
  /** Redis key prefix; tests use a unique one so queues never meet. */
  prefix?: string;
}

export interface MemfadeQueues {
  nightly: Queue<NightlyRunPayload>;
  compress: Queue<CompressPayload>;
  /** The producer connection the queues use; enqueue pre-checks job ids on it. */
  redis: Redis;
  close(): Promise<void>;
}

export function openQueues({ connection, prefix }: QueueOptions): MemfadeQueues {
  const open = <T>(key: keyof typeof QUEUES) =>
    new Queue<T>(QUEUES[key].name, { connection, prefix, defaultJobOptions: QUEUES[key].defaults });
  const nightly = open<NightlyRunPayload>('nightly');
  const compress = open<CompressPayload>('compress');
  return {
    nightly,
    compress,
    redis: connection,
    close: async () => {
      await Promise.all([nightly.close(), compress.close()]);
    },
  };
}

/** Typed, validated enqueue of a nightly run; the run id is the job id, so firing twice starts one run. */
export async function enqueueNightlyRun(
  queues: MemfadeQueues,
  payload: NightlyRunPayload,
): Promise<{ added: boolean }> {
  const data = QUEUES.nightly.payload.parse(payload);
  const added = await addNew(queues.redis, queues.nightly, [{ id: data.runId, data }]);
  return { added: added === 1 };
}

/** Typed, validated enqueue of compress jobs with deterministic ids; returns how many were new. */
export async function enqueueCompress(queues: MemfadeQueues, payloads: CompressPayload[]): Promise<number> {
  const jobs = payloads.map((payload) => {
    const data = QUEUES.compress.payload.parse(payload);
    return { id: compressJobId(data.memoryId, data.target), data };
  });
  return addNew(queues.redis, queues.compress, jobs);
}

/**
 * Adds the jobs whose ids are not in the queue yet and returns how many of them this call added.
 * BullMQ's own id check is what guarantees no duplicate job. Counting needs more: two producers
 * racing (two runs the same night) both pass an EXISTS pre-check, and only one of them really adds
 * each job. A job's stored data says whose it is, so it is read back after the add.
 */
async function addNew<T>(redis: Redis, queue: Queue<T>, jobs: { id: string; data: T }[]): Promise<number> {
  if (jobs.length === 0) return 0;
  const exists =
    (await jobs.reduce((p, job) => p.exists(queue.toKey(job.id)), redis.pipeline()).exec()) ?? [];
  const fresh = jobs.filter((_, i) => exists[i]?.[1] === 0);
  if (fresh.length === 0) return 0;
  const bulk = fresh.map((job) => ({ name: 'job', data: job.data, opts: { jobId: job.id } }));
  await queue.addBulk(bulk as Parameters<Queue<T>['addBulk']>[0]);
  const stored =
    (await fresh.reduce((p, job) => p.hget(queue.toKey(job.id), 'data'), redis.pipeline()).exec()) ?? [];
  // BullMQ stores the data as JSON.stringify(data): equal text means this call's job. A job already
  // gone (completed and removed in between) can only be this call's, since it was not there before.
  return fresh.filter((job, i) => {
    const data = stored[i]?.[1];
    return data === null || data === JSON.stringify(job.data);
  }).length;
}
