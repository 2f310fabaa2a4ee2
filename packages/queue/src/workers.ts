import { type Job, type Processor, Worker, type WorkerOptions } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { isConnectionError, redisAddress, redisOutageLog } from './connection.js';
import { type CompressDeps, processCompress } from './processors/compress.js';
import { type NightlyRunDeps, processNightlyRun } from './processors/nightly-run.js';
import { type CompressPayload, type NightlyRunPayload, QUEUES } from './registry.js';

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
}

export interface MemfadeWorkers {
  nightly: Worker<NightlyRunPayload>;
  compress: Worker<CompressPayload>;
  /** Stops taking jobs and waits for the active ones (BullMQ worker.close()). */
  close(): Promise<void>;
}

/** Wraps a processor once with timing and logging, so processors stay plain functions (langfuse workerManager). */
function instrumented<T, R>(
  name: string,
  logger: Logger,
  processor: (job: Job<T>) => Promise<R>,
): Processor<T, R> {
  return async (job) => {
    const started = performance.now();
    try {
      const result = await processor(job);
      logger.debug({ queue: name, jobId: job.id, ms: Math.round(performance.now() - started) }, 'job done');
      return result;
    } catch (err) {
      const attempt = job.attemptsMade + 1;
      logger.warn({ queue: name, jobId: job.id, attempt, err }, 'job failed');
      throw err;
    }
  };
}

export function startWorkers(setup: WorkerSetup, deps: NightlyRunDeps & CompressDeps): MemfadeWorkers {
  const common = {
    connection: setup.connection,
    prefix: setup.prefix,
    // BullMQ rejects an explicit undefined here; leave its defaults unless one was given.
    ...(setup.lockMs !== undefined && { lockDuration: setup.lockMs, stalledInterval: setup.lockMs }),
  };
  const nightly = new Worker<NightlyRunPayload>(
    QUEUES.nightly.name,
    instrumented(QUEUES.nightly.name, setup.logger, (job) => processNightlyRun(job, deps)),
    { ...common, concurrency: 1 },
  );
  const compress: Worker<CompressPayload> = new Worker<CompressPayload>(
    QUEUES.compress.name,
    instrumented(QUEUES.compress.name, setup.logger, (job) =>
      processCompress(job, deps, { rateLimit: (ms): Promise<void> => compress.rateLimit(ms) }),
    ),
    { ...common, concurrency: setup.concurrency, limiter: setup.limiter },
  );
  // Every worker connection retries while Redis is away; one outage log says so, not an error per attempt.
  const outage = redisOutageLog(setup.logger, redisAddress(setup.connection));
  setup.connection.on('ready', outage.ready);
  for (const worker of [nightly, compress]) {
    worker.on('error', (err) =>
      isConnectionError(err)
        ? outage.error(err)
        : setup.logger.error({ err, queue: worker.name }, 'worker error'),
    );
  }
  return {
    nightly,
    compress,
    close: async () => {
      await Promise.all([nightly.close(), compress.close()]);
    },
  };
}
