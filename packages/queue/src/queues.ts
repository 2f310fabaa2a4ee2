import { type DefaultJobOptions, Queue, type Telemetry } from 'bullmq';
import type { Redis } from 'ioredis';
import { notTheMemorysFailure } from './failures.js';
import {
  BATCH_POLL_JOB,
  BATCH_SUBMIT_JOB,
  type BatchPayload,
  type BatchPollPayload,
  type BatchSubmitPayload,
  batchPollJobId,
  batchSubmitJobId,
  type CompressPayload,
  compressJobId,
  compressJobName,
  compressPayload,
  NIGHTLY_RUN_JOB,
  type NightlyRunPayload,
  QUEUES,
} from './registry.js';

export interface QueueOptions {
  connection: Redis;
  /** Redis key prefix; tests use a unique one so queues never meet. */
  prefix?: string;
  /**
   * A failed compress job's first retry delay (JOB_RETRY_BACKOFF_MS), the others' scaled with it;
   * the registry's delays without it. Tests set it short, so a retry does not wait out 5 s.
   */
  retryBackoffMs?: number;
  /** BullMQ's telemetry while traces are on (the app's telemetry/tracing.ts): adds become spans. */
  telemetry?: Telemetry;
}

export interface MemfadeQueues {
  nightly: Queue<NightlyRunPayload>;
  compress: Queue<CompressPayload>;
  /** Batch mode's submit and poll jobs. */
  batch: Queue<BatchPayload>;
  /** The producer connection the queues use; enqueue pre-checks job ids on it. */
  redis: Redis;
  close(): Promise<void>;
}

/**
 * A queue's default job options with its backoff scaled so that a compress job's first retry waits
 * `retryBackoffMs` (the registry's 5 s by default; nightly and batch jobs keep twice that).
 */
export function jobDefaults(key: keyof typeof QUEUES, retryBackoffMs?: number): DefaultJobOptions {
  const defaults = QUEUES[key].defaults;
  if (retryBackoffMs === undefined) return defaults;
  const scale = retryBackoffMs / QUEUES.compress.defaults.backoff.delay;
  return { ...defaults, backoff: { ...defaults.backoff, delay: Math.round(defaults.backoff.delay * scale) } };
}

export function openQueues({ connection, prefix, retryBackoffMs, telemetry }: QueueOptions): MemfadeQueues {
  const open = <T>(key: keyof typeof QUEUES) =>
    new Queue<T>(QUEUES[key].name, {
      connection,
      prefix,
      defaultJobOptions: jobDefaults(key, retryBackoffMs),
      ...(telemetry && { telemetry }),
    });
  const nightly = open<NightlyRunPayload>('nightly');
  const compress = open<CompressPayload>('compress');
  const batch = open<BatchPayload>('batch');
  return {
    nightly,
    compress,
    batch,
    redis: connection,
    close: async () => {
      await Promise.all([nightly.close(), compress.close(), batch.close()]);
    },
  };
}

/** Typed, validated enqueue of a nightly run; the run id is the job id, so firing twice starts one run. */
export async function enqueueNightlyRun(queues: MemfadeQueues, payload: NightlyRunPayload): Promise<void> {
  const data = QUEUES.nightly.jobs[NIGHTLY_RUN_JOB].parse(payload);
  await queues.nightly.add(NIGHTLY_RUN_JOB, data, { jobId: data.runId });
}

/** Typed enqueue of a round's submit job; its id is deterministic, so asking twice adds one. */
export async function enqueueBatchSubmit(queues: MemfadeQueues, payload: BatchSubmitPayload): Promise<void> {
  const data = QUEUES.batch.jobs[BATCH_SUBMIT_JOB].parse(payload);
  await queues.batch.add(BATCH_SUBMIT_JOB, data, {
    jobId: batchSubmitJobId(data.runId, data.round, data.resume),
  });
}

/** Typed enqueue of a round's next poll, after `delayMs`; deterministic id as above. */
export async function enqueueBatchPoll(
  queues: MemfadeQueues,
  payload: BatchPollPayload,
  delayMs: number,
): Promise<void> {
  const data = QUEUES.batch.jobs[BATCH_POLL_JOB].parse(payload);
  await queues.batch.add(BATCH_POLL_JOB, data, {
    jobId: batchPollJobId(data.runId, data.round, data.poll, data.resume, data.drain),
    delay: delayMs,
  });
}

/**
 * Typed, validated enqueue of compress jobs with deterministic ids. Returns how many of them are
 * this payload's, and how many were held back: a failed job of the same memory and stage, kept for
 * less than the registry's removeOnFail age, stays, so no new one could be added.
 *
 * The caller holds every payload's memory for its run (docs/design.md invariant 9), so a job of
 * another run under the same id is not being worked on. A finished one is a past run's and is
 * replaced: a completed job's stage was undone since (the product deleted and re-inserted the
 * memory, the sweep or a rollback took it back) or it left the memory due (the budget was reached);
 * a failed job older than the registry's age has had its day, and one failed because its workers
 * died (stalled past BullMQ's limit) or MongoDB was away as it recorded its failure was never the
 * memory's failure. BullMQ trims finished jobs only
 * when another job finishes, so without this a memory would wait for a trim that may come a night
 * late (docs/design.md invariant 3).
 */
export async function enqueueCompress(
  queues: MemfadeQueues,
  payloads: CompressPayload[],
): Promise<{ enqueued: number; heldBack: number }> {
  const jobs = payloads.map((payload) => {
    // Both compress jobs' schema: the target, once valid, names the job.
    const data = compressPayload.parse(payload);
    return { id: compressJobId(data.memoryId, data.target), name: compressJobName(data.target), data };
  });
  let others = await addNew(queues.redis, queues.compress, jobs);
  const past = await pastJobs(
    queues.compress,
    others.map((job) => job.id),
  );
  if (past.size > 0) {
    for (const id of past) await queues.compress.remove(id);
    const again = await addNew(
      queues.redis,
      queues.compress,
      jobs.filter((job) => past.has(job.id)),
    );
    others = [...others.filter((job) => !past.has(job.id)), ...again];
  }
  const states = await Promise.all(others.map((job) => queues.compress.getJobState(job.id)));
  const heldBack = states.filter((state) => state === 'failed').length;
  return { enqueued: jobs.length - others.length, heldBack };
}

/** Of these job ids, those whose job is finished and past keeping (see enqueueCompress). */
async function pastJobs(queue: Queue<CompressPayload>, ids: string[]): Promise<Set<string>> {
  const failedAgeMs = QUEUES.compress.defaults.removeOnFail.age * 1000;
  const past = new Set<string>();
  for (const id of ids) {
    const job = await queue.getJob(id);
    if (!job) continue;
    const state = await job.getState();
    const failedLongAgo = state === 'failed' && Date.now() - (job.finishedOn ?? Date.now()) > failedAgeMs;
    // A job failed because its workers died, or MongoDB was away as its last attempt recorded its
    // failure, is not the memory's failure: the next run tries again (docs/design.md invariants 3, 12).
    const workersDied = state === 'failed' && notTheMemorysFailure(job.failedReason);
    if (state === 'completed' || failedLongAgo || workersDied) past.add(id);
  }
  return past;
}

/**
 * Adds the jobs whose ids are not in the queue yet and returns those of the given jobs that are
 * another run's: BullMQ's own id check is what guarantees no duplicate job, and a job's stored
 * run id says whose it is, so every job is read back after the add. That counts a job another
 * producer won in a race (two runs the same night) as the other run's, and a job an earlier
 * attempt of the same run added (its producer died and the nightly job was retried) as this run's,
 * which it is: the run's workers count it when it ends, so leaving it out of `enqueued` would
 * finish the run early. (The run id, not the whole data: a job that failed after writing a stage
 * keeps that stage in its data for its next attempt.)
 */
async function addNew(
  redis: Redis,
  queue: Queue<CompressPayload>,
  jobs: { id: string; name: string; data: CompressPayload }[],
): Promise<{ id: string; data: CompressPayload }[]> {
  if (jobs.length === 0) return [];
  const bulk = jobs.map((job) => ({ name: job.name, data: job.data, opts: { jobId: job.id } }));
  await queue.addBulk(bulk as Parameters<Queue<CompressPayload>['addBulk']>[0]);
  // One command for the whole chunk, where one HGET per job cost the producer a command object,
  // a reply and a JSON.parse of each job's data.
  const others = (await redis.eval(
    OTHER_RUNS_JOBS,
    jobs.length,
    ...jobs.map((job) => queue.toKey(job.id)),
    ...jobs.map((job) => job.data.runId),
  )) as number[];
  return others.map((i) => jobs[i - 1]!);
}

/**
 * Of the job hashes in KEYS, the (1-based) positions of those whose stored data (BullMQ stores
 * JSON.stringify(data)) is not of the run ARGV[i] the job was added for, unreadable data included. A job already gone
 * (completed and removed since the add) was, in all but a rare race with the queue's trimming,
 * this call's: it is not listed.
 */
const OTHER_RUNS_JOBS = `
local others = {}
for i, key in ipairs(KEYS) do
  local data = redis.call('HGET', key, 'data')
  if data then
    local ok, parsed = pcall(cjson.decode, data)
    if not ok or type(parsed) ~= 'table' or parsed.runId ~= ARGV[i] then
      others[#others + 1] = i
    end
  end
end
return others`;
