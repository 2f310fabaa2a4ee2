import type { Models, RunRepository } from '@memfade/db';
import type { MemfadeQueues } from '@memfade/queue';
import { QUEUES, type QueueKey } from '@memfade/queue';
import { MEMFADE_VERSION } from '@memfade/runtime';
import type { Redis } from 'ioredis';
import {
  Counter,
  collectDefaultMetrics,
  Gauge,
  type Metric,
  type MetricValueWithName,
  Registry,
} from 'prom-client';
import {
  BUCKETS,
  type HistogramName,
  readFleetMetrics,
  type StoredHistogram,
  type StoredSample,
} from './metrics.js';
import { type HealthSnapshot, registerHealthGauges } from './metrics-health.js';
import { readRedisPersistence, readRuns, readWorkers } from './metrics-readings.js';

/** How long one scrape waits for Redis or MongoDB before it answers with what it has. */
export const METRICS_READ_TIMEOUT_MS = 2_000;

/**
 * Jobs waiting to run (paused: waiting in a paused queue) or running: the queue's depth.
 * Completed and failed ones are not depth (a night leaves up to 200,000 completed jobs in Redis).
 */
const DEPTH_STATES = ['waiting', 'paused', 'prioritized', 'delayed', 'active'] as const;

const HELP = {
  memfade_jobs_total:
    'Stages written (completed) and memories ended without one (noop, over_budget, failed), by stage; retry: compress attempts to run again.',
  memfade_model_failures_total:
    "Memories failed by the model's reply, by target stage and reason (refused, truncated, invalid).",
  memfade_tokens_total: 'Model tokens by stage and kind (input, output, cache_read, cache_write).',
  memfade_cost_usd_total: 'Model cost in US dollars by stage, from the price table.',
  memfade_sweep_records_total:
    'Vector records the erasure sweep checked, and what it did: gone, outdated and orphans deleted, restaged memories taken back to raw.',
  memfade_job_duration_seconds: 'Time a compress job took, from start to end.',
  memfade_model_duration_seconds: 'Time spent waiting for the model per stage transition.',
  memfade_compression_ratio:
    'Measured compressed/original length per stage transition (skipped ones excluded).',
  memfade_user_night_cost_usd:
    "What each user's memories cost in a finished run (US dollars), one observation per user and run.",
} satisfies Record<string, string>;

/** What one scrape read; each part is missing when its server did not answer in time. */
interface Snapshot extends HealthSnapshot {
  fleet?: { counters: StoredSample[]; histograms: StoredHistogram[] };
  queues?: { queue: QueueKey; depth: Record<string, number>; failed: number }[];
  lastRuns?: { trigger: string; finishedAt: Date }[];
}

export interface MetricsExposition {
  contentType: string;
  /** The Prometheus text exposition; never throws for an unreachable Redis or MongoDB. */
  metrics(): Promise<string>;
}

/**
 * The dashboard's /metrics, in prom-client's registry and text format: the fleet's counters and
 * histograms from the Redis hash the workers add to, queue depths and the last finished runs read
 * at scrape time, whether Redis and MongoDB answered, the build's version, and this process's
 * default Node.js metrics (process_*, nodejs_*; the dashboard's own, not the workers').
 */
export function createMetricsExposition(deps: {
  redis: Redis;
  queues: MemfadeQueues;
  runs: RunRepository;
  queuePrefix: string;
  readTimeoutMs?: number;
  /** For the open runs, holds and outbox gauges (metrics-health.ts); absent without it. */
  models?: Models;
  /** NIGHT_BUDGET_USD, served as memfade_night_budget_usd (0 = none). */
  nightBudgetUsd?: number;
}): MetricsExposition {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  // Each scrape reads Redis and MongoDB once, then the collect() callbacks below turn that into
  // series (a collect() per metric reading the servers would read the hash six times a scrape).
  let snapshot: Snapshot = {};
  const registers = [registry];

  new Gauge({
    name: 'memfade_build_info',
    help: 'Always 1; the version label says which memfade serves these metrics.',
    labelNames: ['version'],
    registers,
  }).set({ version: MEMFADE_VERSION }, 1);
  new Gauge({
    name: 'memfade_redis_up',
    help: 'Whether Redis answered this scrape (1) or not (0): without it the fleet metrics and queue depths are absent.',
    registers,
    collect() {
      this.set(snapshot.fleet && snapshot.queues ? 1 : 0);
    },
  });
  new Gauge({
    name: 'memfade_mongodb_up',
    help: 'Whether MongoDB answered this scrape (1) or not (0): without it the last run times are absent.',
    registers,
    collect() {
      this.set(snapshot.lastRuns ? 1 : 0);
    },
  });
  new Gauge({
    name: 'memfade_last_run_finished_timestamp_seconds',
    help: 'When the last run of each trigger finished (Unix time): alert when the schedule one grows older than a day.',
    labelNames: ['trigger'],
    registers,
    collect() {
      this.reset();
      for (const run of snapshot.lastRuns ?? [])
        this.set({ trigger: run.trigger }, run.finishedAt.getTime() / 1000);
    },
  });
  new Gauge({
    name: 'memfade_queue_depth',
    help: 'Jobs waiting or running in each queue, by state (waiting, paused, prioritized, delayed, active), at scrape time.',
    labelNames: ['queue', 'state'],
    registers,
    collect() {
      this.reset();
      for (const { queue, depth } of snapshot.queues ?? []) {
        for (const state of DEPTH_STATES) this.set({ queue, state }, depth[state] ?? 0);
      }
    },
  });
  new Gauge({
    name: 'memfade_queue_failed_jobs',
    help: 'Failed jobs each queue still keeps (compress: 20 hours), at scrape time.',
    labelNames: ['queue'],
    registers,
    collect() {
      this.reset();
      for (const { queue, failed } of snapshot.queues ?? []) this.set({ queue }, failed);
    },
  });
  const counter = (name: keyof typeof HELP, labelNames: string[]) =>
    new Counter({
      name,
      help: HELP[name],
      labelNames,
      registers,
      collect() {
        this.reset();
        for (const sample of snapshot.fleet?.counters ?? []) {
          if (sample.name === name) this.inc(sample.labels, sample.value);
        }
      },
    });
  counter('memfade_jobs_total', ['stage', 'outcome']);
  counter('memfade_model_failures_total', ['stage', 'reason']);
  counter('memfade_tokens_total', ['stage', 'kind']);
  counter('memfade_cost_usd_total', ['stage']);
  counter('memfade_sweep_records_total', ['action']);
  registerHealthGauges(registers, () => snapshot, deps.nightBudgetUsd ?? 0);
  for (const name of Object.keys(BUCKETS) as HistogramName[]) {
    registry.registerMetric(storedHistogram(name, () => snapshot.fleet?.histograms ?? []));
  }

  const timeoutMs = deps.readTimeoutMs ?? METRICS_READ_TIMEOUT_MS;
  const readQueues = () =>
    Promise.all(
      (Object.keys(QUEUES) as QueueKey[]).map(async (queue) => {
        const { failed = 0, ...depth } = await deps.queues[queue].getJobCounts(...DEPTH_STATES, 'failed');
        return { queue, depth, failed };
      }),
    );
  return {
    contentType: registry.contentType,
    metrics: async () => {
      const { models } = deps;
      const [fleet, queues, lastRuns, runs, workers, persistence] = await Promise.allSettled([
        within(timeoutMs, readFleetMetrics(deps.redis, deps.queuePrefix)),
        within(timeoutMs, readQueues()),
        within(timeoutMs, deps.runs.lastFinished()),
        models ? within(timeoutMs, readRuns(models, deps.queues)) : Promise.reject(new Error('no models')),
        within(timeoutMs, readWorkers(deps.queues)),
        within(timeoutMs, readRedisPersistence(deps.redis)),
      ]);
      const value = <T>(result: PromiseSettledResult<T>) =>
        result.status === 'fulfilled' ? result.value : undefined;
      snapshot = {
        fleet: value(fleet),
        queues: value(queues),
        lastRuns: value(lastRuns),
        runs: value(runs),
        workers: value(workers),
        persistence: value(persistence),
      };
      return registry.metrics();
    },
  };
}

/**
 * A histogram whose buckets were counted elsewhere (the workers, into the Redis hash): prom-client's
 * Histogram only takes observations, but its registry serves any metric with a name and a get()
 * that returns the series, which is what this is.
 */
function storedHistogram(name: HistogramName, read: () => StoredHistogram[]): Metric {
  const metric = {
    name,
    help: HELP[name],
    type: 'histogram',
    aggregator: 'sum',
    reset: () => undefined,
    get: async () => ({
      name,
      help: HELP[name],
      type: 'histogram',
      aggregator: 'sum',
      values: read()
        .filter((h) => h.name === name)
        .flatMap((h): MetricValueWithName<string>[] => [
          ...h.buckets.map((b) => ({
            metricName: `${name}_bucket`,
            labels: { ...h.labels, le: b.le },
            value: b.count,
          })),
          { metricName: `${name}_bucket`, labels: { ...h.labels, le: '+Inf' }, value: h.count },
          { metricName: `${name}_sum`, labels: h.labels, value: h.sum },
          { metricName: `${name}_count`, labels: h.labels, value: h.count },
        ]),
    }),
  };
  return metric as unknown as Metric;
}

/** The promise's value, or a rejection once ms have passed (a scrape must answer in time). */
function within<T>(ms: number, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
