import {
  BATCH_POLL_JOB,
  BATCH_SUBMIT_JOB,
  type BatchPayload,
  type CompressPayload,
  classifyFailure,
  isConnectionError,
  type JobHandlers,
  jobProcessor,
  NIGHTLY_RUN_JOB,
  type NightlyRunPayload,
  outageLog,
  QUEUES,
  type QueueKey,
  type QueuePayload,
  type RejectedPayload,
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

/**
 * The job table: the handler of each job of each queue (docs/design.md §2, "How a job is
 * dispatched"). A mapped type over the job catalog (queue/registry.ts), so a job the catalog lists
 * without a handler here does not compile. The batch queue has handlers only in batch mode.
 */
type JobTable = { [Q in QueueKey]: Q extends 'batch' ? JobHandlers<Q> | undefined : JobHandlers<Q> };

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
      const fields = {
        ...jobFields(queue, job),
        attempt: job.attemptsMade + 1,
        attempts: job.opts.attempts,
        failure: classifyFailure(err).kind,
      };
      const mongoAway = err instanceof Error && mongoOutage?.failed(err);
      // A last attempt always gets its line: that memory now waits for the next night.
      if (mongoAway && fields.attempt < (job.opts.attempts ?? 1))
        logger.debug({ ...fields, reason: err.message }, 'job failed');
      else logger.warn({ ...fields, err }, 'job failed');
      throw err;
    }
  };
}

/**
 * A payload its schema refused was added around the typed enqueue (by hand, another service, an
 * old version). The reason goes where an operator looks for the memory and the run it names, when
 * they exist: the memory's lastError (nothing else is written on it) and the run's error list. It
 * is not one of the jobs the run's producer counted, so the run's counts stay as they are.
 */
function recordRejected(deps: Pick<CompressDeps, 'store' | 'tracker' | 'now'>) {
  return async ({ memoryId, runId, jobId, message }: RejectedPayload): Promise<void> => {
    if (memoryId)
      await deps.store.recordError(memoryId, { stage: 'input', message, at: deps.now(), attempts: 1 });
    if (runId)
      await deps.tracker.recordError(runId, {
        memoryId: memoryId ?? `(job ${jobId})`,
        stage: 'input',
        message,
      });
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
  const compressJob = (job: Job<CompressPayload>) => processCompress(job, deps);
  const table: JobTable = {
    nightly: { [NIGHTLY_RUN_JOB]: (job) => processNightlyRun(job, deps) },
    compress: { 'compress-v1': compressJob, 'compress-v2': compressJob },
    batch: batchDeps && {
      [BATCH_SUBMIT_JOB]: (job) => processBatchSubmit(job, batchDeps),
      [BATCH_POLL_JOB]: (job) => processBatchPoll(job, batchDeps),
    },
  };
  const record = recordRejected(deps);
  const serve = <Q extends QueueKey>(queue: Q, handlers: JobHandlers<Q>, options: Partial<WorkerOptions>) => {
    // A rate limit pauses this queue's worker (the job's own), whichever queue it is.
    const rateLimit = (ms: number): Promise<void> => worker.rateLimit(ms);
    const worker: Worker<QueuePayload<Q>> = new Worker<QueuePayload<Q>>(
      QUEUES[queue].name,
      instrumented(queue, setup, jobProcessor(queue, handlers, { record, rateLimit })),
      { ...common, ...options },
    );
    return worker;
  };
  const nightly = serve('nightly', table.nightly, { concurrency: 1 });
  const compress = serve('compress', table.compress, {
    concurrency: setup.concurrency,
    limiter: setup.limiter,
  });
  // Submit and poll jobs wait on the provider's batch API, not on models: two at a time is plenty.
  // A poll killed while applying a results file resumes where it stopped (the records say what is
  // settled): taken back up to 5 times instead of BullMQ's default 1 before it fails; past that the
  // run tracker resumes the run's batch jobs from the records (batch-recovery.ts).
  const batch = table.batch && serve('batch', table.batch, { concurrency: 2, maxStalledCount: 5 });
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
      if (classifyFailure(err).kind === 'lost-lock')
        return setup.logger.warn({ queue, reason: err.message }, 'a job lost its lock and may run again');
      setup.logger.error({ err, queue }, 'worker error');
    });
  }
  return {
    nightly,
    compress,
    ...(batch && { batch }),
    close: async () => {
      await Promise.all(
        all.map(async ([, worker]) => {
          await connected(worker);
          await worker.close();
        }),
      );
    },
  };
}

/** How long close() lets a worker finish connecting: a Redis that is up answers well within it. */
const CONNECTING_MS = 2_000;

/**
 * A worker's connections made, or CONNECTING_MS gone by (Redis away: it is closed as it is).
 * BullMQ closing a blocking connection still being made leaves the rejection of its start-up
 * commands to no one ("Connection is closed"), and an unhandled rejection ends the process with
 * exit code 1 where a stop during start-up (a SIGTERM, a rollback) should end with 143.
 */
async function connected(worker: Worker): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const waited = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, CONNECTING_MS);
  });
  await Promise.race([worker.waitUntilReady().catch(() => undefined), waited]);
  clearTimeout(timer);
}
