import { createMetricsExposition, FleetMetrics, metricsKey, startWorkerRole } from '@memfade/app';
import { ZERO_USAGE } from '@memfade/core';
import type { TransitionCount } from '@memfade/db';
import { enqueueCompress, openQueues, producerConnection } from '@memfade/queue';
import { MEMFADE_VERSION } from '@memfade/runtime';
import { type PromHistogramData, parsePrometheus, until } from '@memfade/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from './harness.js';

describe('fleet metrics', () => {
  let harness: Harness;
  beforeAll(async () => {
    harness = await startHarness({ now: new Date() });
  });
  afterAll(async () => harness?.close());

  const transition = (ratio: number): TransitionCount => ({
    stage: 'v1',
    skipped: false,
    usage: { ...ZERO_USAGE, inputTokens: 100, outputTokens: 40, cacheReadTokens: 60 },
    ratio,
    cost: 0.002,
  });

  const exposition = () => {
    const { redis, queues, runs, config } = harness.services;
    return createMetricsExposition({ redis, queues, runs, queuePrefix: config.queuePrefix });
  };

  it('stores one field per bucket hit, and serves ascending cumulative buckets a Prometheus parser accepts', async () => {
    const { redis, config } = harness.services;
    const metrics = new FleetMetrics(redis, config.queuePrefix);
    for (const [ratio, seconds] of [
      [0.15, 0.4],
      [0.35, 3],
      [0.35, 0.4],
      [0.95, 200],
    ] as const) {
      await metrics.memoryCounted({ target: 'v1', outcome: 'completed', transitions: [transition(ratio)] });
      await metrics.attemptEnded({ stage: 'v1', seconds, retry: false, modelMs: [{ stage: 'v1', ms: 300 }] });
    }
    // Summed in the process until the flush: nothing has reached Redis yet.
    expect(await redis.hlen(metricsKey(config.queuePrefix))).toBe(0);
    await metrics.flush();
    // One field per bucket hit, not one per bucket at or above the value.
    const stored = Object.keys(await redis.hgetall(metricsKey(config.queuePrefix)));
    expect(stored.filter((f) => f.startsWith('memfade_compression_ratio_hits'))).toHaveLength(3);

    const text = await exposition().metrics();
    // parsePrometheus rejects buckets out of order (the old text order put 120 before 2.5).
    const families = await parsePrometheus(text);
    const histogram = (name: string) => families[name]?.data[0] as PromHistogramData;
    expect(families.memfade_compression_ratio?.type).toBe('histogram');
    expect(histogram('memfade_compression_ratio')).toMatchObject({
      labels: { stage: 'v1' },
      buckets: { '0.1': 0, '0.2': 1, '0.3': 1, '0.4': 3, '0.8': 3, '1': 4, '+Inf': 4 },
      count: 4,
    });
    expect(histogram('memfade_job_duration_seconds')).toMatchObject({
      labels: { queue: 'compress' },
      buckets: { '0.5': 2, '5': 3, '120': 3, '+Inf': 4 },
      count: 4,
    });
    const bounds = text
      .split('\n')
      .filter((line) => line.startsWith('memfade_job_duration_seconds_bucket'))
      .map((line) => /le="([^"]+)"/.exec(line)![1]);
    expect(bounds).toEqual([
      '0.01',
      '0.05',
      '0.1',
      '0.25',
      '0.5',
      '1',
      '2.5',
      '5',
      '10',
      '30',
      '60',
      '120',
      '+Inf',
    ]);
    expect(families.memfade_jobs_total).toMatchObject({
      type: 'counter',
      data: [{ labels: { stage: 'v1', outcome: 'completed' }, value: 4 }],
    });
    // One vocabulary: snake_case label values.
    expect(families.memfade_tokens_total?.data).toContainEqual({
      labels: { stage: 'v1', kind: 'cache_read' },
      value: 240,
    });
    expect(families.memfade_build_info?.data).toEqual([{ labels: { version: MEMFADE_VERSION }, value: 1 }]);
    expect(families.memfade_redis_up?.data).toEqual([{ labels: {}, value: 1 }]);
    expect(families.memfade_mongodb_up?.data).toEqual([{ labels: {}, value: 1 }]);
    // This process's default metrics.
    expect(families.process_cpu_seconds_total?.type).toBe('counter');
    expect(families.nodejs_eventloop_lag_seconds?.type).toBe('gauge');
    // Every name follows the conventions: counters end in _total, no camelCase anywhere.
    for (const [name, family] of Object.entries(families)) {
      if (family.type === 'counter') expect(name).toMatch(/_total$/);
      expect(name).toMatch(/^[a-z][a-z0-9_]*$/);
    }
  });

  it("counts each stage a memory's work wrote under that stage, the memory under its target, and every call it paid for", async () => {
    const { redis, config } = harness.services;
    const prefix = `${config.queuePrefix}-transitions`;
    const metrics = new FleetMetrics(redis, prefix, 0);
    const v1 = transition(0.4);
    const v2 = { ...transition(0.2), stage: 'v2' as const };
    // A raw memory 7 days old taken to V2, writing V1 then V2 (whichever attempts or rounds wrote them).
    await metrics.memoryCounted({ target: 'v2', outcome: 'completed', transitions: [v1, v2] });
    await metrics.attemptEnded({ stage: 'v2', seconds: 1, retry: true });
    // V1 written, then V2 failed for good on a refused reply it paid for: the V1 counts, the memory fails.
    const refusedCall = { stage: 'v2' as const, usage: v1.usage, cost: 0.001 };
    await metrics.memoryCounted({
      target: 'v2',
      outcome: 'failed',
      transitions: [v1],
      discarded: [refusedCall],
      reason: 'refused',
    });
    await metrics.memoryCounted({ target: 'v1', outcome: 'noop' });
    await metrics.memoryCounted({ target: 'v1', outcome: 'over_budget' });
    // A batch request given up after a paid round.
    await metrics.spent([refusedCall]);
    const stored = await redis.hgetall(metricsKey(prefix));
    const jobs = (stage: string, outcome: string) =>
      Number(stored[`memfade_jobs_total{stage="${stage}",outcome="${outcome}"}`] ?? 0);
    expect({
      v1: jobs('v1', 'completed'),
      v2: jobs('v2', 'completed'),
      retry: jobs('v2', 'retry'),
      failed: jobs('v2', 'failed'),
      noop: jobs('v1', 'noop'),
      overBudget: jobs('v1', 'over_budget'),
    }).toEqual({ v1: 2, v2: 1, retry: 1, failed: 1, noop: 1, overBudget: 1 });
    expect(stored['memfade_model_failures_total{stage="v2",reason="refused"}']).toBe('1');
    expect(Number(stored['memfade_tokens_total{stage="v1",kind="input"}'])).toBe(200);
    // The V2 stage written, the refused call and the given-up request.
    expect(Number(stored['memfade_tokens_total{stage="v2",kind="input"}'])).toBe(300);
    expect(Number(stored['memfade_cost_usd_total{stage="v2"}'])).toBeCloseTo(0.002 + 0.001 + 0.001);
  });

  it('counts only waiting and running jobs as queue depth, failed ones apart, by the queue names of the registry', async () => {
    const { queues } = harness.services;
    // One job runs and ends (its memory does not exist): the jobs a night ends are no backlog.
    await enqueueCompress(queues, [{ runId: 'depth', memoryId: 'a', target: 'v1' }]);
    const workers = startWorkerRole(harness.services);
    await until(async () => {
      const counts = await queues.compress.getJobCounts('completed', 'failed');
      return (counts.completed ?? 0) + (counts.failed ?? 0) === 1;
    });
    await workers.close();
    const ended = await queues.compress.getJobCounts('completed', 'failed');
    await enqueueCompress(queues, [{ runId: 'depth', memoryId: 'b', target: 'v1' }]);

    const families = await parsePrometheus(await exposition().metrics());
    const depth = families.memfade_queue_depth?.data as { labels: Record<string, string>; value: number }[];
    expect(depth).toContainEqual({ labels: { queue: 'compress', state: 'waiting' }, value: 1 });
    expect(depth).toContainEqual({ labels: { queue: 'compress', state: 'active' }, value: 0 });
    expect(depth).toContainEqual({ labels: { queue: 'nightly', state: 'waiting' }, value: 0 });
    expect(new Set(depth.map((s) => s.labels.state))).toEqual(
      new Set(['waiting', 'paused', 'prioritized', 'delayed', 'active']),
    );
    expect(new Set(depth.map((s) => s.labels.queue))).toEqual(new Set(['nightly', 'compress', 'batch']));
    expect(families.memfade_queue_failed_jobs?.data).toContainEqual({
      labels: { queue: 'compress' },
      value: ended.failed,
    });
    await queues.compress.obliterate({ force: true });
  });

  it("says when each trigger's last run finished, from the runs collection", async () => {
    const { runs, tracker } = harness.services;
    const asOf = new Date('2026-11-22T03:00:00Z');
    for (const [runId, trigger] of [
      ['nightly-a', 'schedule'],
      ['manual-a', 'manual'],
    ] as const) {
      await runs.start({ runId, trigger, asOf });
      // Nothing was due: the run finishes as its producer is done.
      await tracker.producerDone(runId, { selected: 0, enqueued: 0, users: 0, deferred: 0, heldBack: 0 });
    }
    const finishedAt = (await runs.get('nightly-a'))!.finishedAt!;
    const families = await parsePrometheus(await exposition().metrics());
    expect(families.memfade_last_run_finished_timestamp_seconds?.data).toContainEqual({
      labels: { trigger: 'schedule' },
      value: finishedAt.getTime() / 1000,
    });
    const triggers = families.memfade_last_run_finished_timestamp_seconds!.data as unknown as {
      labels: { trigger: string };
    }[];
    expect(triggers.map((sample) => sample.labels.trigger)).toContain('manual');
  });

  it('answers with what it has when Redis is unreachable, and says so', async () => {
    const { runs, config } = harness.services;
    // Nothing listens on port 1: every Redis read fails.
    const dead = producerConnection('redis://127.0.0.1:1', { lazyConnect: true, retryStrategy: () => 50 });
    dead.on('error', () => undefined);
    try {
      const offlineQueues = openQueues({ connection: dead, prefix: config.queuePrefix });
      for (const queue of [offlineQueues.nightly, offlineQueues.compress]) queue.on('error', () => undefined);
      const offline = createMetricsExposition({
        redis: dead,
        queues: offlineQueues,
        runs,
        queuePrefix: config.queuePrefix,
        readTimeoutMs: 1_000,
      });
      const families = await parsePrometheus(await offline.metrics());
      expect(families.memfade_redis_up?.data).toEqual([{ labels: {}, value: 0 }]);
      expect(families.memfade_mongodb_up?.data).toEqual([{ labels: {}, value: 1 }]);
      expect(families.memfade_build_info).toBeDefined();
      expect(families.memfade_last_run_finished_timestamp_seconds?.data.length).toBeGreaterThan(0);
    } finally {
      dead.disconnect();
    }
  });

  it('is checked by a parser that rejects what Prometheus would reject', async () => {
    await expect(parsePrometheus('# TYPE x counter\nx{a="1" 1\n')).rejects.toThrow();
    const histogram = (bounds: string[]) =>
      [
        '# TYPE h histogram',
        ...bounds.map((le, i) => `h_bucket{le="${le}"} ${i}`),
        `h_sum 1`,
        `h_count ${bounds.length - 1}`,
        '',
      ].join('\n');
    await expect(parsePrometheus(histogram(['0.1', '1', '+Inf']))).resolves.toBeDefined();
    await expect(parsePrometheus(histogram(['+Inf', '0.1', '120', '2.5']))).rejects.toThrow(
      /ascending|\+Inf/,
    );
    await expect(parsePrometheus(histogram(['0.1', '120', '2.5', '+Inf']))).rejects.toThrow(/ascending/);
  });

  it('sends a timed flush on its own, and what is left when closed', async () => {
    const { redis, config } = harness.services;
    const prefix = `${config.queuePrefix}-flush`;
    const metrics = new FleetMetrics(redis, prefix, 50);
    const ended = { target: 'v2', outcome: 'noop' } as const;
    await metrics.memoryCounted(ended);
    await metrics.memoryCounted(ended);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const field = 'memfade_jobs_total{stage="v2",outcome="noop"}';
    expect(await redis.hget(metricsKey(prefix), field)).toBe('2');
    await metrics.memoryCounted(ended);
    await metrics.close();
    expect(await redis.hget(metricsKey(prefix), field)).toBe('3');
  });
});
