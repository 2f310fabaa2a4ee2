import type { BatchCompressor, PipelineOutcome } from '@memfade/core';
import { RunBudgets } from '@memfade/db';
import {
  attemptEnd,
  classifyFailure,
  enqueueNightlyRun,
  isConnectionError,
  workerConnection,
} from '@memfade/queue';
import type { BatchDeps } from '../batch/batch-requests.js';
import { runStart } from '../nightly/run-now.js';
import { type Scheduler, type SchedulerOptions, startScheduler } from '../nightly/scheduler.js';
import { budgetKeeper, hasBudget } from '../runs/budget.js';
import type { FleetMetrics } from '../runs/metrics.js';
import { tracedCompressor, tracedStore } from '../telemetry/spans.js';
import type { Services } from './services.js';
import { type MemfadeWorkers, startWorkers } from './workers.js';

/**
 * The night's budget (NIGHT_BUDGET_USD / _TOKENS), when one is set and a model is called: every
 * request is reserved on the run first (queue/budget.ts).
 */
function nightBudget(services: Services) {
  const { config } = services;
  if (!hasBudget(config.nightBudget) || config.provider.provider === 'offline') return undefined;
  return {
    keeper: budgetKeeper(new RunBudgets(services.models), config.nightBudget, services.logger),
    price: config.prices[config.provider.model ?? ''],
  };
}

/** What the batch-submit and batch-poll jobs read and write (a worker adds its logger and outbox). */
export function batchDeps(services: Services, model: BatchCompressor): BatchDeps {
  const { config } = services;
  const budget = nightBudget(services);
  return {
    ...(budget && { budget }),
    model,
    store: tracedStore(services.store),
    batches: services.batches,
    runs: services.runs,
    tracker: services.tracker,
    queues: services.queues,
    policy: config.policy,
    now: services.now,
    prices: config.prices,
    settings: config.batch,
  };
}

/** How often a worker checks for runs that ended without their counts adding up (RunTracker.sweep). */
const RUN_WATCHDOG_MS = 2_000;

/**
 * The worker role: BullMQ workers for both queues plus, unless VECTOR_SYNC_ENABLED is off, the
 * vector outbox sweeper (the outbox keeps what a replica without it writes for one that has it).
 */
export function startWorkerRole(services: Services): MemfadeWorkers {
  const { config, logger } = services;
  const syncVectors = config.vectorSync.enabled;
  const connection = workerConnection(config.redisUrl!);
  if (syncVectors) services.vectorSync.start(config.vectorSync.intervalMs);
  const mongo = services.mongoOutage;
  // With Redis or MongoDB away the sweep fails quietly: an outage log says so once, and the next
  // sweep tries again.
  const finishIdle = () =>
    services.tracker
      .sweep()
      .catch(
        (err) =>
          isConnectionError(err) ||
          mongo.failed(err) ||
          logger.error({ err }, 'could not check for finished runs'),
      );
  const watchdog = setInterval(() => {
    void finishIdle();
    void mongo.check();
  }, RUN_WATCHDOG_MS);
  const model = services.batchCompressor;
  const budget = nightBudget(services);
  const onTransition = syncVectors ? () => services.vectorSync.notify() : undefined;
  const workers = startWorkers(
    {
      connection,
      prefix: config.queuePrefix,
      logger,
      concurrency: config.concurrency,
      lockMs: config.jobLockMs,
      mongoOutage: mongo,
      // Shared through Redis by every worker of the queue, so N replicas together stay under the limit.
      limiter: config.modelRpm > 0 ? { max: config.modelRpm, duration: 60_000 } : undefined,
    },
    {
      // What the processors read and write, named: the producer scans memories and enqueues, the
      // compress jobs load, compress and write them, the tracker keeps the runs' books.
      models: services.models,
      queues: services.queues,
      // With traces on, each model call and stage write is a span under its job (telemetry/spans.ts).
      store: tracedStore(services.store),
      compressor: tracedCompressor(services.compressor),
      runs: services.runs,
      tracker: services.tracker,
      holds: services.holds,
      now: services.now,
      logger,
      policy: config.policy,
      prices: config.prices,
      jobTimeoutMs: config.jobTimeoutMs,
      runMaxMemories: config.runMaxMemories,
      ...(budget && { budget }),
      onTransition,
      ...(model && {
        batchMode: {
          model,
          batches: services.batches,
          minCalls: config.batch.minCalls,
        },
      }),
    },
    // Batch mode (MODEL_MODE=batch with the anthropic or openai provider): submit and poll jobs.
    model && { ...batchDeps(services, model), logger, onTransition },
  );
  workers.compress.on('drained', finishIdle);
  workers.batch?.on('drained', finishIdle);
  recordAttempts(workers, services);
  return {
    ...workers,
    close: async () => {
      clearInterval(watchdog);
      await workers.close();
      await services.metrics.flush().catch((err) => logger.warn({ err }, 'last metrics not recorded'));
      // Flush what the last jobs wrote before the connections go; the flush their writes scheduled
      // (FLUSH_DELAY_MS) is called off first, or it drains after the role closed (a test's sweep saw it).
      if (syncVectors) {
        await services.vectorSync.stop();
        await services.vectorSync.drain().catch((err) => logger.error({ err }, 'final vector sync failed'));
      }
      await connection.quit();
    },
  };
}

/**
 * What only the worker sees goes into the fleet metrics: each compress attempt's duration, its
 * retry, the model's time. Jobs, stages, tokens and cost are recorded by the run tracker as it
 * counts them (runs/metrics.ts), in batch mode too.
 */
function recordAttempts(workers: MemfadeWorkers, services: Services): void {
  const seconds = (job: { processedOn?: number; finishedOn?: number }) =>
    ((job.finishedOn ?? Date.now()) - (job.processedOn ?? Date.now())) / 1000;
  const record = (attempt: Parameters<FleetMetrics['attemptEnded']>[0]) =>
    services.metrics
      .attemptEnded(attempt)
      .catch((err) => services.logger.warn({ err }, 'metrics not recorded'));
  workers.compress.on('completed', (job, result: PipelineOutcome) => {
    const written = result.kind === 'advanced' ? result.transitions : [];
    const modelMs = written.flatMap((t) => ('modelMs' in t ? [{ stage: t.stage, ms: t.modelMs }] : []));
    void record({ stage: job.data.target, seconds: seconds(job), retry: false, modelMs });
  });
  workers.compress.on('failed', (job, error) => {
    if (!job) return;
    // After the attempt: BullMQ has counted it in attemptsMade.
    const { final } = attemptEnd(classifyFailure(error), job.attemptsMade, job.opts.attempts);
    void record({ stage: job.data.target, seconds: seconds(job), retry: !final });
  });
}

/** The scheduler role: node-cron at SCHEDULE_CRON in SCHEDULE_TZ, with catch-up on start. */
export function startSchedulerRole(
  services: Services,
  options: Pick<SchedulerOptions, 'watchMs'> = {},
): Promise<Scheduler> {
  const { config } = services;
  return startScheduler({
    ...options,
    cron: config.schedule.cron,
    tz: config.schedule.tz,
    logger: services.logger,
    now: services.now,
    fire: async (runId, asOf) => {
      // A night enqueued again because it never started: its job failed for good holds the id.
      if ((await runStart(services, runId)).kind === 'never-started')
        await (await services.queues.nightly.getJob(runId))?.remove();
      await enqueueNightlyRun(services.queues, {
        runId,
        trigger: 'schedule',
        asOf: asOf.toISOString(),
        selection: {},
      });
    },
    runExists: async (runId) => (await services.runs.get(runId)) !== null,
    runStart: (runId) => runStart(services, runId),
    catchUp: config.schedule.catchUp,
    scheduledBefore: () => services.runs.hasRun('schedule'),
  });
}
