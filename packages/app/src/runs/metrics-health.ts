import { Gauge, type Registry } from 'prom-client';
import type { readRedisPersistence, readRuns, readWorkers } from './metrics-readings.js';

/**
 * The gauges the alert rules watch beyond the fleet's counters (infra/prometheus/rules.yml,
 * docs/operations.md "Alerts"), set from what one scrape read (metrics-readings.ts). Run ids are
 * label values only on the open-run gauges: a night and the odd manual run at a time, each series
 * gone once its run finishes; user ids never are.
 */

export interface HealthSnapshot {
  runs?: Awaited<ReturnType<typeof readRuns>>;
  workers?: Awaited<ReturnType<typeof readWorkers>>;
  persistence?: Awaited<ReturnType<typeof readRedisPersistence>>;
}

const RUN_LABELS = ['run_id', 'trigger', 'mode'];

export function registerHealthGauges(
  registers: Registry[],
  read: () => HealthSnapshot,
  nightBudgetUsd: number,
): void {
  /** A gauge whose series are all set anew from each scrape's snapshot. */
  const gauge = (
    name: string,
    help: string,
    labelNames: string[],
    set: (g: Gauge, snapshot: HealthSnapshot) => void,
  ) =>
    new Gauge({
      name,
      help,
      labelNames,
      registers,
      collect() {
        this.reset();
        set(this, read());
      },
    });

  /** One series per open run, labelled by its id, trigger and model mode. */
  const perOpenRun = (
    name: string,
    help: string,
    value: (run: NonNullable<HealthSnapshot['runs']>['openRuns'][number]) => number,
  ) =>
    gauge(name, help, RUN_LABELS, (g, { runs }) => {
      for (const run of runs?.openRuns ?? [])
        g.set({ run_id: run.runId, trigger: run.trigger, mode: run.batches?.mode ?? 'sync' }, value(run));
    });

  perOpenRun(
    'memfade_open_run_started_timestamp_seconds',
    'When each run not finished yet started (Unix time).',
    (run) => new Date(run.startedAt).getTime() / 1000,
  );
  perOpenRun(
    'memfade_open_run_jobs_enqueued',
    'Memories each open run has enqueued so far (as compress jobs or batch requests).',
    (run) => run.counts?.enqueued ?? 0,
  );
  perOpenRun(
    'memfade_open_run_jobs_processed',
    'Memories of each open run whose work ended (completed, no-op or failed for good): its progress.',
    (run) => run.counts?.processed ?? 0,
  );
  perOpenRun(
    'memfade_open_run_cost_usd',
    'What each open run has paid the model so far, in US dollars (v1 + v2).',
    (run) => (run.cost?.v1 ?? 0) + (run.cost?.v2 ?? 0),
  );
  perOpenRun(
    'memfade_open_run_producer_dead',
    '1 when an open run\'s producer (its nightly job) failed for good or is gone: the run tracker finishes it "producerDied".',
    (run) => (run.producerDied ? 1 : 0),
  );
  gauge(
    'memfade_held_memories',
    'Memories held with a model request in flight, by whose run holds them: open (as it should be), dead (open, producer dead), finished or gone (stale).',
    ['holder'],
    (g, { runs }) => {
      for (const [holder, n] of Object.entries(runs?.held ?? {})) g.set({ holder }, n);
    },
  );
  gauge(
    'memfade_vector_outbox_pending',
    'Memories whose vector record is behind their stage (the outbox), at scrape time.',
    [],
    (g, { runs }) => {
      if (runs) g.set(runs.outbox.pending);
    },
  );
  gauge(
    'memfade_vector_outbox_oldest_seconds',
    'Age of the oldest stage write still in the outbox, in seconds (0 when it is empty).',
    [],
    (g, { runs }) => {
      if (!runs) return;
      const at = runs.outbox.oldestAt;
      g.set(at ? Math.max(0, (Date.now() - at.getTime()) / 1000) : 0);
    },
  );
  gauge(
    'memfade_workers',
    'Worker connections on each queue (BullMQ, CLIENT LIST): one per worker process.',
    ['queue'],
    (g, { workers }) => {
      for (const { queue, workers: n } of workers ?? []) g.set({ queue }, n);
    },
  );
  gauge(
    'memfade_redis_persistence',
    'Whether Redis persists the queues, by kind: aof (INFO persistence) and rdb (CONFIG GET save, absent where CONFIG is refused).',
    ['kind'],
    (g, { persistence }) => {
      for (const { kind, on } of persistence ?? []) g.set({ kind }, on ? 1 : 0);
    },
  );
  gauge(
    'memfade_night_budget_usd',
    "NIGHT_BUDGET_USD as the dashboard is configured (0 = none): the spend alert's denominator.",
    [],
    (g) => g.set(nightBudgetUsd),
  );
}
