import { createMetricsExposition, FleetMetrics, startWorkerRole } from '@memfade/app';
import { insertMemories, memoryDocument } from '@memfade/db';
import { enqueueNightlyRun } from '@memfade/queue';
import { parsePrometheus } from '@memfade/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from './harness.js';

const NOW = new Date();

/**
 * The values of the gauges the alert rules watch (runs/metrics-health.ts, metrics-readings.ts;
 * docs/operations.md "Alerts"), set up in MongoDB and BullMQ as each case happens: holds of an
 * open, a dead, a finished and a gone run; the outbox's backlog and the age of its oldest write;
 * the workers on each queue; the sweep's counts; Redis's persistence; the budget.
 */
describe('the gauges the alert rules watch', () => {
  let harness: Harness;
  beforeAll(async () => {
    harness = await startHarness({ now: NOW });
  });
  afterAll(async () => harness?.close());

  const scrape = async () => {
    const { redis, queues, runs, models, config } = harness.services;
    const exposition = createMetricsExposition({
      redis,
      queues,
      runs,
      models,
      queuePrefix: config.queuePrefix,
      nightBudgetUsd: 12.5,
    });
    const families = await parsePrometheus(await exposition.metrics());
    return (name: string, labels: Record<string, string> = {}) =>
      families[name]?.data.find((d) =>
        Object.entries(labels).every(([k, v]) => (d.labels as Record<string, string>)[k] === v),
      ) as { value: number } | undefined;
  };

  it('counts held memories by holder, and an open run whose producer is dead', async () => {
    const { models, queues } = harness.services;
    const run = (runId: string, extra: Record<string, unknown>) => ({
      runId,
      trigger: 'schedule',
      asOf: NOW,
      startedAt: new Date(NOW.getTime() - 60_000),
      users: 1,
      counts: { selected: 9, enqueued: 9, processed: 4 },
      cost: { v1: 0.5, v2: 0.25 },
      ...extra,
    });
    await models.runs.collection.insertMany([
      // Producing, its nightly job waiting in the queue: alive.
      run('alive', {}),
      // Producing, its nightly job gone: dead.
      run('dead', {}),
      // Producer done (its nightly job completed long ago, or gone): not dead for that.
      run('done', { producerDoneAt: NOW }),
      run('finished', { producerDoneAt: NOW, finishedAt: NOW }),
    ]);
    await enqueueNightlyRun(queues, {
      runId: 'alive',
      trigger: 'schedule',
      asOf: NOW.toISOString(),
      selection: {},
    });
    const holds = (runId: string, n: number) =>
      Array.from({ length: n }, (_, i) => ({ _id: `${runId}-m${i}`, runId, at: NOW }));
    await models.holds.collection.insertMany([
      ...holds('alive', 3),
      ...holds('dead', 2),
      ...holds('finished', 4),
      ...holds('vanished', 1),
    ] as never[]);

    const value = await scrape();
    expect(
      ['open', 'dead', 'finished', 'gone'].map((holder) => value('memfade_held_memories', { holder })?.value),
    ).toEqual([3, 2, 4, 1]);
    expect(value('memfade_open_run_producer_dead', { run_id: 'alive' })?.value).toBe(0);
    expect(value('memfade_open_run_producer_dead', { run_id: 'dead' })?.value).toBe(1);
    expect(value('memfade_open_run_producer_dead', { run_id: 'done' })?.value).toBe(0);
    expect(value('memfade_open_run_producer_dead', { run_id: 'finished' })).toBeUndefined();
    expect(
      value('memfade_open_run_cost_usd', { run_id: 'alive', trigger: 'schedule', mode: 'sync' })?.value,
    ).toBe(0.75);
    expect(value('memfade_open_run_jobs_processed', { run_id: 'alive' })?.value).toBe(4);
    expect(value('memfade_open_run_jobs_enqueued', { run_id: 'alive' })?.value).toBe(9);
    expect(value('memfade_open_run_started_timestamp_seconds', { run_id: 'alive' })?.value).toBe(
      (NOW.getTime() - 60_000) / 1000,
    );
    expect(value('memfade_night_budget_usd')?.value).toBe(12.5);
    await models.runs.collection.deleteMany({});
    await models.holds.collection.deleteMany({});
    await (await queues.nightly.getJob('alive'))?.remove();
  });

  it("serves the outbox's backlog and the age of its oldest stage write", async () => {
    const { models } = harness.services;
    const F = models.mapping.fields;
    let value = await scrape();
    expect(value('memfade_vector_outbox_pending')?.value).toBe(0);
    expect(value('memfade_vector_outbox_oldest_seconds')?.value).toBe(0);

    await insertMemories(
      models,
      ['a', 'b', 'c'].map((id) =>
        memoryDocument({
          memoryId: id,
          userId: 'u1',
          partnerId: 'p1',
          turns: [{ role: 'user', text: `Memory ${id}: the van comes on Saturday.` }],
          createdAt: new Date(NOW.getTime() - 86_400_000),
          language: 'en',
        }),
      ),
      [{ userId: 'u1', name: 'Kai' }],
    );
    const minutesAgo = (m: number) => new Date(Date.now() - m * 60_000);
    const flag = (id: string, pending: boolean, at: Date) =>
      models.mine.collection.updateOne({ [F.memoryId]: id }, {
        $set: { [F.vectorPending]: pending, [F.compressedAt]: at },
      } as never);
    await flag('a', true, minutesAgo(10));
    await flag('b', true, minutesAgo(2));
    // Synced long ago: not in the outbox, however old.
    await flag('c', false, minutesAgo(60));
    value = await scrape();
    expect(value('memfade_vector_outbox_pending')?.value).toBe(2);
    const age = value('memfade_vector_outbox_oldest_seconds')!.value;
    expect(age).toBeGreaterThanOrEqual(600);
    expect(age).toBeLessThan(660);
  });

  it('counts the workers on each queue, the sweep by action, and whether Redis persists', async () => {
    let value = await scrape();
    expect(value('memfade_workers', { queue: 'compress' })?.value).toBe(0);
    // The tests' Redis runs with --save '' --appendonly no (runtime's embedded redis-server).
    expect(value('memfade_redis_persistence', { kind: 'aof' })?.value).toBe(0);
    expect(value('memfade_redis_persistence', { kind: 'rdb' })?.value).toBe(0);

    const worker = startWorkerRole(harness.services);
    try {
      const { redis, config } = harness.services;
      const metrics = new FleetMetrics(redis, config.queuePrefix, 0);
      await metrics.sweepCounted({ checked: 500, gone: 3, outdated: 1, restaged: 2, orphans: 0 });
      await metrics.sweepCounted({ checked: 120, gone: 0, outdated: 0, restaged: 1, orphans: 0 });
      // Each queue the role serves counts its worker once the worker's blocking connection is made:
      // the harness is in sync mode, with no batch worker to wait for.
      const served = ['nightly', 'compress', ...(worker.batch ? ['batch'] : [])];
      const deadline = Date.now() + 20_000;
      for (;;) {
        value = await scrape();
        const up = served.every((queue) => value('memfade_workers', { queue })?.value === 1);
        if (up || Date.now() > deadline) break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(value('memfade_workers', { queue: 'compress' })?.value).toBe(1);
      expect(value('memfade_workers', { queue: 'nightly' })?.value).toBe(1);
      const sweep = (action: string) => value('memfade_sweep_records_total', { action })?.value;
      expect(['checked', 'gone', 'outdated', 'restaged', 'orphans'].map(sweep)).toEqual([620, 3, 1, 3, 0]);
    } finally {
      await worker.close();
    }
  });
});
