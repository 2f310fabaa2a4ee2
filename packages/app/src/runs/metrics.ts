import type { ModelFailureReason, TargetStage, Usage } from '@memfade/core';
import type { DiscardedCount, RunOutcome, TransitionCount } from '@memfade/db';
import type { Redis } from 'ioredis';

/**
 * Fleet-wide Prometheus metrics kept in one Redis hash: every worker process adds to the same
 * counters and histogram buckets (HINCRBY), so one scrape of the dashboard sees the whole fleet,
 * and a restarted worker starts from the fleet's totals, not from zero. The dashboard serves them
 * with prom-client (metrics-exposition.ts).
 *
 * Label values are one vocabulary: queue = the registry's key (nightly, compress, batch), stage = v1/v2,
 * outcome = completed/noop/over_budget/retry/failed, kind = input/output/cache_read/cache_write,
 * action = checked/gone/outdated/restaged/orphans (the erasure sweep).
 */

/** Bucket upper bounds, ascending (the exposition writes them in this order, then +Inf). */
export const BUCKETS = {
  memfade_job_duration_seconds: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120],
  memfade_model_duration_seconds: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
  memfade_compression_ratio: [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.8, 1],
  memfade_user_night_cost_usd: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
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

/** A memory's end counted in its run (RunTracker; outcome.ts MemoryEnd), as the fleet's counters see it. */
export interface CountedMemory {
  /** The stage the run took the memory to. */
  target: TargetStage;
  /** `over_budget`: the night's budget was reached before the memory's model call (budget.ts). */
  outcome: RunOutcome | 'over_budget';
  /** Stages its work wrote, whichever attempt or batch round wrote them, priced when written. */
  transitions?: TransitionCount[];
  /** Calls its work paid for and did not keep. */
  discarded?: DiscardedCount[];
  /** Why the model's reply failed the memory (refused, truncated, invalid), for a failed end. */
  reason?: ModelFailureReason;
}

/** What the erasure sweep does to a record (vectors/erasure.ts SweepCounts), as label values. */
export const SWEEP_ACTIONS = ['checked', 'gone', 'outdated', 'restaged', 'orphans'] as const;
export type SweepAction = (typeof SWEEP_ACTIONS)[number];

/** How often a worker sends what its jobs recorded (one Redis pipeline however many jobs ended). */
export const METRICS_FLUSH_MS = 1_000;

/**
 * The fleet's counters. What a run counts (stages written, memories ended, tokens and cost paid)
 * is recorded by the run tracker as it counts each memory's end, once, in sync and batch mode alike
 * (memoryCounted, spent), so the metrics and the runs' books cannot disagree; what only a worker
 * sees (an attempt's duration, a retry, the model's time) comes from its queue events (attemptEnded).
 */
export class FleetMetrics {
  private readonly key: string;
  private pending = emptyIncrements();
  private timer: NodeJS.Timeout | undefined;

  /**
   * flushMs: increments are summed in the process and sent at most this long after the first of
   * them (about a dozen Redis commands per job otherwise). 0 sends each at once. A crash loses at
   * most that much; a graceful shutdown flushes (close()).
   */
  constructor(
    private readonly redis: Redis,
    prefix: string,
    private readonly flushMs = METRICS_FLUSH_MS,
  ) {
    this.key = metricsKey(prefix);
  }

  /**
   * One memory's end counted in its run; resolves once it is in Redis only when flushMs is 0.
   * `memfade_jobs_total{outcome="completed"}` (named when only compress jobs counted there; alert
   * rules and dashboards read that name) counts stage transitions written, each under the stage it
   * wrote: a memory taken from raw to V2 writes V1 then V2 and counts once under each (labelled by
   * its target, 300 V1 writes read as a handful). A memory whose work wrote nothing counts once
   * under its target: `noop`, `over_budget` or `failed`; one whose work wrote a stage and then
   * failed for good counts the stage `completed` and the memory `failed`. Tokens and cost are those
   * of every call its work paid for, kept or not.
   */
  memoryCounted(end: CountedMemory): Promise<void> {
    const transitions = end.transitions ?? [];
    for (const t of transitions)
      this.count(`memfade_jobs_total${labels({ stage: t.stage, outcome: 'completed' })}`, 1);
    if (end.outcome !== 'completed' || transitions.length === 0)
      this.count(`memfade_jobs_total${labels({ stage: end.target, outcome: end.outcome })}`, 1);
    if (end.outcome === 'failed' && end.reason)
      this.count(`memfade_model_failures_total${labels({ stage: end.target, reason: end.reason })}`, 1);
    for (const t of transitions)
      if (!t.skipped) this.observe('memfade_compression_ratio', { stage: t.stage }, t.ratio);
    this.paid([...transitions, ...(end.discarded ?? [])]);
    return this.recorded();
  }

  /**
   * One erasure sweep (a page, or `reindex --prune`'s whole pass; vectors/vector-sync.ts): the
   * records it checked and what it did, each action counted even at 0 so the series exist from the
   * first sweep on. `restaged` memories lost their stages (paid for again when due): the alert
   * rules watch it and `gone` (docs/operations.md "Alerts").
   */
  sweepCounted(counts: Record<SweepAction, number>): Promise<void> {
    for (const action of SWEEP_ACTIONS)
      this.count(`memfade_sweep_records_total${labels({ action })}`, counts[action]);
    return this.recorded();
  }

  /** Calls a run paid for that no memory's end counts (batch requests given up or erased). */
  spent(items: DiscardedCount[]): Promise<void> {
    this.paid(items);
    return this.recorded();
  }

  /**
   * A run finished: what each of its users cost (their ledger, docs/design.md §3), one observation
   * per user. No user id goes into a label: the distribution is the metric, the ledger names them.
   */
  usersCost(costs: number[]): Promise<void> {
    for (const cost of costs) this.observe('memfade_user_night_cost_usd', {}, cost);
    return this.recorded();
  }

  /**
   * One compress job attempt ended (the worker's queue events): its duration, whether it will be
   * retried, and the model's time of the stages this attempt wrote (earlier attempts' is not known).
   */
  attemptEnded(attempt: {
    stage: string;
    seconds: number;
    retry: boolean;
    modelMs?: { stage: string; ms: number }[];
  }): Promise<void> {
    if (attempt.retry)
      this.count(`memfade_jobs_total${labels({ stage: attempt.stage, outcome: 'retry' })}`, 1);
    this.observe('memfade_job_duration_seconds', { queue: 'compress' }, attempt.seconds);
    for (const { stage, ms } of attempt.modelMs ?? [])
      this.observe('memfade_model_duration_seconds', { stage }, ms / 1000);
    return this.recorded();
  }

  private paid(items: { stage: string; usage: Usage; cost?: number; skipped?: boolean }[]) {
    for (const item of items) {
      if (item.skipped) continue;
      for (const [kind, n] of Object.entries(item.usage)) {
        if (n) this.count(`memfade_tokens_total${labels({ stage: item.stage, kind: tokenKind(kind) })}`, n);
      }
      if (item.cost) this.add(`memfade_cost_usd_total${labels({ stage: item.stage })}`, item.cost);
    }
  }

  /** Sends now when flushMs is 0; else once, flushMs after the first increment since the last flush. */
  private recorded(): Promise<void> {
    if (this.flushMs <= 0) return this.flush();
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      // A failed flush keeps nothing back: metrics are best effort, never worth a retry loop.
      void this.flush().catch(() => undefined);
    }, this.flushMs);
    return Promise.resolve();
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
