import {
  costOf,
  type ModelFailureReason,
  type PipelineOutcome,
  type PriceTable,
  type Usage,
} from '@memfade/core';
import type { Redis } from 'ioredis';

/**
 * Fleet-wide Prometheus metrics kept in one Redis hash: every worker process adds to the same
 * counters and histogram buckets (HINCRBY), so one scrape of the dashboard sees the whole fleet,
 * and a restarted worker starts from the fleet's totals, not from zero. The dashboard serves them
 * with prom-client (metrics-exposition.ts).
 *
 * Label values are one vocabulary: queue = the registry's key (nightly, compress, batch), stage = v1/v2,
 * outcome = completed/noop/retry/failed, kind = input/output/cache_read/cache_write.
 */

/** Bucket upper bounds, ascending (the exposition writes them in this order, then +Inf). */
export const BUCKETS = {
  memfade_job_duration_seconds: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120],
  memfade_model_duration_seconds: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
  memfade_compression_ratio: [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.8, 1],
} as const;
export type HistogramName = keyof typeof BUCKETS;

/**
 * The hash's key. `metrics:2`: label values became snake_case (cache_read) and one queue name;
 * a new key keeps the old spellings out of the exposition, and Prometheus reads the restart of
 * the counters as a counter reset.
 */
export const metricsKey = (prefix: string) => `${prefix}:metrics:2`;

/** Usage field names (cacheReadTokens) as label values (cache_read). */
const tokenKind = (usageKey: string) =>
  usageKey.replace(/Tokens$/, '').replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

const labels = (values: Record<string, string>) =>
  `{${Object.entries(values)
    .map(([k, v]) => `${k}="${v.replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"`)
    .join(',')}}`;

/** Increments not yet sent to Redis: integer counters and float sums, by hash field. */
interface PendingIncrements {
  counts: Map<string, number>;
  sums: Map<string, number>;
}

const emptyIncrements = (): PendingIncrements => ({ counts: new Map(), sums: new Map() });

/** A stage an earlier attempt of a job wrote, as the job's data carries it (registry `carried`). */
export interface WrittenStage {
  stage: string;
  skipped: boolean;
  usage: Usage;
  ratio: number;
  /** Priced when it was written. */
  cost?: number;
}

/** How often a worker sends what its jobs recorded (one Redis pipeline however many jobs ended). */
export const METRICS_FLUSH_MS = 1_000;

export class FleetMetrics {
  private readonly key: string;
  private pending = emptyIncrements();
  private timer: NodeJS.Timeout | undefined;

  /**
   * flushMs: jobs' increments are summed in the process and sent at most this long after the first
   * of them (about a dozen Redis commands per job otherwise). 0 sends each job's at once. A crash
   * loses at most that much; a graceful shutdown flushes (close()).
   */
  constructor(
    private readonly redis: Redis,
    prefix: string,
    private readonly flushMs = METRICS_FLUSH_MS,
  ) {
    this.key = metricsKey(prefix);
  }

  /**
   * Records one ended compress job attempt; resolves once it is in Redis only when flushMs is 0.
   * `memfade_jobs_total{outcome="completed"}` counts stage transitions written, each under the
   * stage it wrote: a job that takes a raw memory to V2 writes V1 then V2 and counts once under
   * each (labelled by the job's target, 300 V1 writes read as a handful). `written` holds what the
   * job's earlier attempts wrote (its carried data) besides this attempt's `result`, so a stage is
   * counted when its job ends, once, even if a later step of that job failed. A job that wrote
   * nothing counts once under its target: `noop`, `retry` or `failed`; a job that wrote a stage
   * and then failed for good counts the stage `completed` and the job `failed`.
   */
  async jobEnded(event: {
    /** The job's target stage. */
    stage: string;
    /** `over_budget`: the night's budget was reached before the job's model call (budget.ts). */
    outcome: 'completed' | 'noop' | 'retry' | 'failed' | 'over_budget';
    seconds: number;
    result?: PipelineOutcome;
    /** Stages written by the job's earlier attempts (for a failed job: by all of them). */
    written?: WrittenStage[];
    prices?: PriceTable;
    /** Why the model's reply failed the memory (refused, truncated, invalid), for a failed job. */
    reason?: ModelFailureReason;
  }): Promise<void> {
    const here = event.result?.kind === 'advanced' ? event.result.transitions : [];
    const transitions = [...(event.written ?? []), ...here];
    for (const t of transitions)
      this.count(`memfade_jobs_total${labels({ stage: t.stage, outcome: 'completed' })}`, 1);
    if (event.outcome !== 'completed' || transitions.length === 0)
      this.count(`memfade_jobs_total${labels({ stage: event.stage, outcome: event.outcome })}`, 1);
    if (event.outcome === 'failed' && event.reason)
      this.count(`memfade_model_failures_total${labels({ stage: event.stage, reason: event.reason })}`, 1);
    this.observe('memfade_job_duration_seconds', { queue: 'compress' }, event.seconds);
    for (const t of transitions) {
      if (t.skipped) continue;
      // Earlier attempts' model time is not in the job's data: only this attempt's is observed.
      if ('modelMs' in t)
        this.observe('memfade_model_duration_seconds', { stage: t.stage }, t.modelMs / 1000);
      this.observe('memfade_compression_ratio', { stage: t.stage }, t.ratio);
      for (const [kind, n] of Object.entries(t.usage)) {
        if (n) this.count(`memfade_tokens_total${labels({ stage: t.stage, kind: tokenKind(kind) })}`, n);
      }
      const cost = 'model' in t ? costOf(t.usage, event.prices?.[t.model]) : t.cost;
      if (cost) this.add(`memfade_cost_usd_total${labels({ stage: t.stage })}`, cost);
    }
    if (this.flushMs <= 0) return this.flush();
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      // A failed flush keeps nothing back: metrics are best effort, never worth a retry loop.
      void this.flush().catch(() => undefined);
    }, this.flushMs);
  }

  /** Sends everything recorded so far in one pipeline. */
  async flush(): Promise<void> {
    const { counts, sums } = this.pending;
    if (counts.size === 0 && sums.size === 0) return;
    this.pending = emptyIncrements();
    const pipeline = this.redis.pipeline();
    for (const [field, n] of counts) pipeline.hincrby(this.key, field, n);
    for (const [field, x] of sums) pipeline.hincrbyfloat(this.key, field, x);
    const results = (await pipeline.exec()) ?? [];
    const failed = results.find(([error]) => error);
    if (failed) throw failed[0];
  }

  /** Stops the timer and sends what is left (worker shutdown). */
  async close(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.flush();
  }

  private count(field: string, n: number) {
    this.pending.counts.set(field, (this.pending.counts.get(field) ?? 0) + n);
  }

  private add(field: string, x: number) {
    this.pending.sums.set(field, (this.pending.sums.get(field) ?? 0) + x);
  }

  /**
   * One bucket hit per observation (not one per bucket at or above it): a job records three
   * histograms per stage, and cumulative buckets would cost ~50 Redis commands per job.
   * readFleetMetrics() turns the per-bucket hits into Prometheus's cumulative buckets.
   */
  private observe(name: HistogramName, base: Record<string, string>, value: number) {
    const le = BUCKETS[name].find((bound) => value <= bound);
    this.count(`${name}_hits${labels({ ...base, le: le === undefined ? '+Inf' : String(le) })}`, 1);
    this.add(`${name}_sum${labels(base)}`, value);
    this.count(`${name}_count${labels(base)}`, 1);
  }
}

/** One stored series: its metric name, labels and value. */
export interface StoredSample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** A histogram's series for one label set, buckets cumulative and ascending (le = +Inf last). */
export interface StoredHistogram {
  name: HistogramName;
  labels: Record<string, string>;
  buckets: { le: number; count: number }[];
  sum: number;
  count: number;
}

const FIELD = /^(\w+)\{(.*)\}$/;
const LABEL = /(\w+)="((?:[^"\\]|\\.)*)"/g;

function parseField(field: string): { name: string; labels: Record<string, string> } | undefined {
  const match = FIELD.exec(field);
  if (!match) return undefined;
  const values: Record<string, string> = {};
  for (const [, key, value] of match[2]!.matchAll(LABEL)) values[key!] = value!.replace(/\\(.)/g, '$1');
  return { name: match[1]!, labels: values };
}

const seriesKey = (name: string, values: Record<string, string>) => `${name}${labels(values)}`;

/** Everything the fleet recorded: counters as they are, histograms with cumulative buckets. */
export async function readFleetMetrics(
  redis: Redis,
  prefix: string,
): Promise<{ counters: StoredSample[]; histograms: StoredHistogram[] }> {
  const stored = await redis.hgetall(metricsKey(prefix));
  const counters: StoredSample[] = [];
  const histograms = new Map<string, StoredHistogram & { hits: Map<string, number> }>();
  for (const [field, text] of Object.entries(stored)) {
    const parsed = parseField(field);
    if (!parsed) continue;
    const value = Number(text);
    const part = /^(\w+)_(hits|sum|count)$/.exec(parsed.name);
    const name = part?.[1] as HistogramName | undefined;
    if (!part || !name || !(name in BUCKETS)) {
      counters.push({ ...parsed, value });
      continue;
    }
    const { le, ...base } = parsed.labels;
    const key = seriesKey(name, base);
    const entry = histograms.get(key) ?? {
      name,
      labels: base,
      buckets: [],
      sum: 0,
      count: 0,
      hits: new Map(),
    };
    histograms.set(key, entry);
    if (part[2] === 'hits') entry.hits.set(le ?? '+Inf', value);
    else entry[part[2] as 'sum' | 'count'] = value;
  }
  return {
    counters,
    histograms: [...histograms.values()].map(({ hits, ...histogram }) => {
      let total = 0;
      const buckets = BUCKETS[histogram.name].map((le) => {
        total += hits.get(String(le)) ?? 0;
        return { le, count: total };
      });
      return { ...histogram, buckets };
    }),
  };
}
