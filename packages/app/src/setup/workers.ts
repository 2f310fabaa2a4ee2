import {
  BATCH_SUBMIT_JOB,
  type BatchPayload,
  type BatchPollPayload,
  type BatchSubmitPayload,
  type CompressPayload,
  isConnectionError,
  type NightlyRunPayload,
  outageLog,
  QUEUES,
  type QueueKey,
  redisAddress,
} from '@memfade/queue';
import { type Job, type Processor, Worker, type WorkerOptions } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { processBatchPoll } from '../batch/batch-poll.js';
import type { BatchDeps } from '../batch/batch-requests.js';
import { processBatchSubmit } from '../batch/batch-submit.js';
import { type CompressDeps, processCompress } from '../compress/compress.js';
import { type NightlyRunDeps, processNightlyRun } from '../nightly/nightly-run.js';
import { noteJob, noteJobEnd } from '../telemetry/spans.js';
import { queueTelemetry } from '../telemetry/tracing.js';

export interface WorkerSetup {
  connection: Redis;
  prefix?: string;
  logger: Logger;
  /** Compress jobs in flight per worker process; the model's latency is what they wait on. */
  concurrency: number;
  /** Shared by every worker of the queue (BullMQ's limiter lives in Redis). */
  limiter?: WorkerOptions['limiter'];
  /**
   * How long a job's lock lasts without renewal, and how often workers look for jobs whose lock
   * expired: a worker that died holding jobs gives them back to the queue after one to two of these.
   */
  lockMs?: number;
  /**
   * The process's MongoDB outage log, fed by jobs: `failed` says whether a job's error means MongoDB
   * is away (and reports it there), and such a failed attempt is logged at debug, not once per job
   * with its stack; a job that ends well has read MongoDB, so `answered` closes the outage.
   */
  mongoOutage?: { failed(error: Error): boolean; answered(): void };
}

export interface MemfadeWorkers {
  nightly: Worker<NightlyRunPayload>;
  compress: Worker<CompressPayload>;
  /** Batch mode's submit and poll jobs; absent when batch mode is off. */
  batch?: Worker<BatchPayload>;
  /** Stops taking jobs and waits for the active ones (BullMQ worker.close()). */
  close(): Promise<void>;
}

/** BullMQ's errors when a job's lock renewal came too late, and when its end then finds the lock gone. */
const LOST_LOCK = /^(could not renew lock for job |Missing lock for job )/;
/**
 * What identifies a job on its log lines: its queue (the registry's key, as in the metrics), name
 * and id, and the run and memory its payload names, so one grep for a run id or a memory id finds
 * every line about it.
 */
function jobFields(queue: QueueKey, job: Job): Record<string, unknown> {
  const data = (job.data ?? {}) as Record<string, unknown>;
  const fields: Record<string, unknown> = { queue, job: job.name, jobId: job.id };
  for (const key of ['runId', 'memoryId', 'target']) {
    if (typeof data[key] === 'string') fields[key] = data[key];
  }
  return fields;
}

/** Wraps a processor once with timing and logging, so processors stay plain functions (langfuse workerManager). */
function instrumented<T, R>(
  queue: QueueKey,
  { logger, mongoOutage }: Pick<WorkerSetup, 'logger' | 'mongoOutage'>,
  processor: (job: Job<T>) => Promise<R>,
): Processor<T, R> {
  return async (job) => {
    const started = performance.now();
    noteJob(job.data);
    try {
      const result = await processor(job);
      noteJobEnd(result);
      mongoOutage?.answered();
      logger.debug({ ...jobFields(queue, job), ms: Math.round(performance.now() - started) }, 'job done');
      return result;
    } catch (err) {
      noteJobEnd(undefined, err);
      // err is logged by type, message, code and status (the logger's serializer); provider errors
      // carry only their status and kind in the message (ai/providers/errors.ts), never the body.
      const fields = { ...jobFields(queue, job), attempt: job.attemptsMade + 1, attempts: job.opts.attempts };
      const mongoAway = err instanceof Error && mongoOutage?.failed(err);
      // A last attempt always gets its line: that memory now waits for the next night.
      if (mongoAway && fields.attempt < (job.opts.attempts ?? 1))
        logger.debug({ ...fields, reason: err.message }, 'job failed');
      else logger.warn({ ...fields, err }, 'job failed');
      throw err;
    }
  };
}

export function startWorkers(
  setup: WorkerSetup,
  deps: NightlyRunDeps & CompressDeps,
  batchDeps?: BatchDeps,
): MemfadeWorkers {
  const common = {
    connection: setup.connection,
    prefix: setup.prefix,
    // Traces on (telemetry/tracing.ts): each job is processed under a span continuing its add's.
    ...(queueTelemetry() && { telemetry: queueTelemetry() }),
    // BullMQ rejects an explicit undefined here; leave its defaults unless one was given.
    ...(setup.lockMs !== undefined && { lockDuration: setup.lockMs, stalledInterval: setup.lockMs }),
  };
  const nightly = new Worker<NightlyRunPayload>(
    QUEUES.nightly.name,
    instrumented('nightly', setup, (job) => processNightlyRun(job, deps)),
    { ...common, concurrency: 1 },
  );
  const compress: Worker<CompressPayload> = new Worker<CompressPayload>(
    QUEUES.compress.name,
    instrumented('compress', setup, (job) =>
      processCompress(job, deps, { rateLimit: (ms): Promise<void> => compress.rateLimit(ms) }),
    ),
    { ...common, concurrency: setup.concurrency, limiter: setup.limiter },
  );
  // Submit and poll jobs wait on the provider's batch API, not on models: two at a time is plenty.
  const batch =
    batchDeps &&
    new Worker<BatchPayload>(
      QUEUES.batch.name,
      instrumented<BatchPayload, unknown>('batch', setup, (job) =>
        job.name === BATCH_SUBMIT_JOB
          ? processBatchSubmit(job as Job<BatchSubmitPayload>, batchDeps)
          : processBatchPoll(job as Job<BatchPollPayload>, batchDeps),
      ),
      // A poll killed while applying a results file resumes where it stopped (the records say what is
      // settled): taken back up to 5 times instead of BullMQ's default 1 before it fails; past that the
      // run tracker resumes the run's batch jobs from the records (batch-recovery.ts).
      { ...common, concurrency: 2, maxStalledCount: 5 },
    );
  // Every worker connection retries while Redis is away; one outage log says so, not an error per attempt.
  const outage = outageLog(setup.logger, 'Redis', redisAddress(setup.connection));
  setup.connection.on('ready', outage.ready);
  const all = [
    ['nightly', nightly],
    ['compress', compress],
    ...(batch ? [['batch', batch] as const] : []),
  ] as const;
  // A worker's connections (its own and a blocking one) reconnect on timers of their own: an error
  // from one still settling while the shared connection is up again is the outage's tail, not a new one.
  const connectionError = (err: Error) =>
    setup.connection.status === 'ready'
      ? setup.logger.debug({ reason: err.message }, 'a Redis connection is still reconnecting')
      : outage.error(err);
  for (const [queue, worker] of all) {
    worker.on('error', (err) => {
      if (isConnectionError(err)) return connectionError(err);
      // A job whose lock could not be renewed in time (a busy host, a slow Redis) is taken back as
      // stalled and runs again, harmlessly: its stage write is conditional (docs/design.md invariant
      // 2). Worth a line, not an error with a stack.
      if (LOST_LOCK.test(err.message))
        return setup.logger.warn({ queue, reason: err.message }, 'a job lost its lock and may run again');
      setup.logger.error({ err, queue }, 'worker error');
    });
  }
  return {
    nightly,
    compress,
    ...(batch && { batch }),
    close: async () => {
      await Promise.all([nightly.close(), compress.close(), batch?.close()]);
    },
  };
}
