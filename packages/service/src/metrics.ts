import { costOf, type PipelineOutcome, type PriceTable } from '@memfade/core';
import type { MemfadeQueues } from '@memfade/queue';
import type { Redis } from 'ioredis';

/**
 * Fleet-wide Prometheus metrics kept in one Redis hash: every worker process adds to the same
 * counters and histogram buckets (HINCRBY), so one scrape of the dashboard sees the whole fleet,
 * and a restarted worker starts from the fleet's totals, not from zero.
 */

const BUCKETS = {
  memfade_job_duration_seconds: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120],
  memfade_model_duration_seconds: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
  memfade_compression_ratio: [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.8, 1],
} as const;
type HistogramName = keyof typeof BUCKETS;

const HELP: Record<string, string> = {
  memfade_jobs_total: 'Compress jobs by target stage and outcome (completed, noop, retry, failed).',
  memfade_job_duration_seconds: 'Time a compress job took, from start to end.',
  memfade_model_duration_seconds: 'Time spent waiting for the model per stage transition.',
  memfade_tokens_total: 'Model tokens by stage and kind (input, output, cacheRead, cacheWrite).',
  memfade_cost_usd_total: 'Model cost in US dollars by stage, from the price table.',
  memfade_compression_ratio:
    'Measured compressed/original length per stage transition (skipped ones excluded).',
  memfade_queue_depth: 'Jobs in each queue by state, at scrape time.',
};

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
    this.key = `${prefix}:metrics`;
  }

  /** Records one ended compress job; resolves once it is in Redis only when flushMs is 0. */
  async jobEnded(event: {
    stage: string;
    outcome: 'completed' | 'noop' | 'retry' | 'failed';
    seconds: number;
    result?: PipelineOutcome;
    prices?: PriceTable;
  }): Promise<void> {
    this.count(`memfade_jobs_total${labels({ stage: event.stage, outcome: event.outcome })}`, 1);
    this.observe('memfade_job_duration_seconds', { queue: 'compress' }, event.seconds);
    if (event.result?.kind === 'advanced') {
      for (const t of event.result.transitions) {
        if (t.skipped) continue;
        this.observe('memfade_model_duration_seconds', { stage: t.stage }, t.modelMs / 1000);
        this.observe('memfade_compression_ratio', { stage: t.stage }, t.ratio);
        for (const [kind, n] of Object.entries(t.usage)) {
          if (n)
            this.count(
              `memfade_tokens_total${labels({ stage: t.stage, kind: kind.replace(/Tokens$/, '') })}`,
              n,
            );
        }
        const cost = costOf(t.usage, event.prices?.[t.model]);
        if (cost) this.add(`memfade_cost_usd_total${labels({ stage: t.stage })}`, cost);
      }
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
   * render() turns the per-bucket hits into Prometheus's cumulative buckets.
   */
  private observe(name: HistogramName, base: Record<string, string>, value: number) {
    const le = BUCKETS[name].find((bound) => value <= bound);
    this.count(`${name}_hits${labels({ ...base, le: le === undefined ? '+Inf' : String(le) })}`, 1);
    this.add(`${name}_sum${labels(base)}`, value);
    this.count(`${name}_count${labels(base)}`, 1);
  }

  /** The Prometheus text exposition of the fleet counters, plus queue depths read now. */
  async render(queues: MemfadeQueues): Promise<string> {
    const fields = cumulativeBuckets(await this.redis.hgetall(this.key));
    for (const queue of [queues.nightly, queues.compress]) {
      const counts = await queue.getJobCounts(
        'waiting',
        'active',
        'delayed',
        'prioritized',
        'failed',
        'completed',
      );
      for (const [state, n] of Object.entries(counts)) {
        fields[`memfade_queue_depth${labels({ queue: queue.name, state })}`] = String(n);
      }
    }
    const byMetric = new Map<string, string[]>();
    for (const [series, value] of Object.entries(fields).sort(([a], [b]) => a.localeCompare(b))) {
      const name = series.slice(0, series.indexOf('{')).replace(/_(bucket|sum|count)$/, '');
      byMetric.set(name, [...(byMetric.get(name) ?? []), `${series} ${value}`]);
    }
    const lines: string[] = [];
    for (const [name, series] of byMetric) {
      const type = name in BUCKETS ? 'histogram' : name === 'memfade_queue_depth' ? 'gauge' : 'counter';
      lines.push(`# HELP ${name} ${HELP[name] ?? name}`, `# TYPE ${name} ${type}`, ...series);
    }
    return `${lines.join('\n')}\n`;
  }
}

/** Per-bucket hits (`<name>_hits{...,le="x"}`) as Prometheus's cumulative `<name>_bucket` series. */
function cumulativeBuckets(stored: Record<string, string>): Record<string, string> {
  const fields: Record<string, string> = {};
  const hits = new Map<string, { name: HistogramName; base: string; byLe: Map<string, number> }>();
  for (const [series, value] of Object.entries(stored)) {
    const match = series.match(/^(\w+)_hits\{(.*?),?le="([^"]+)"\}$/);
    if (!match || !(match[1]! in BUCKETS)) {
      fields[series] = value;
      continue;
    }
    const [, name, base, le] = match as unknown as [string, HistogramName, string, string];
    const key = `${name}{${base}}`;
    const entry = hits.get(key) ?? { name, base, byLe: new Map<string, number>() };
    entry.byLe.set(le, Number(value));
    hits.set(key, entry);
  }
  for (const { name, base, byLe } of hits.values()) {
    let total = 0;
    for (const le of [...BUCKETS[name].map(String), '+Inf']) {
      total += byLe.get(le) ?? 0;
      fields[`${name}_bucket{${base ? `${base},` : ''}le="${le}"}`] = String(total);
    }
  }
  return fields;
}
