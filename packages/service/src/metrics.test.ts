import { type AppliedTransition, ZERO_USAGE } from '@memfade/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FleetMetrics } from './metrics.js';
import { type Harness, startHarness } from './test-harness.js';

describe('fleet metrics', () => {
  let harness: Harness;
  beforeAll(async () => {
    harness = await startHarness({ now: new Date() });
  });
  afterAll(async () => harness?.close());

  const transition = (ratio: number): AppliedTransition =>
    ({
      stage: 'v1',
      skipped: false,
      usage: { ...ZERO_USAGE, inputTokens: 100, outputTokens: 40 },
      ratio,
      model: 'emulated',
      modelMs: 300,
    }) as AppliedTransition;

  it('stores one bucket per observation and serves Prometheus cumulative buckets', async () => {
    const { redis, config, queues } = harness.services;
    const metrics = new FleetMetrics(redis, config.queuePrefix);
    for (const ratio of [0.15, 0.35, 0.35, 0.95]) {
      await metrics.jobEnded({
        stage: 'v1',
        outcome: 'completed',
        seconds: 0.4,
        result: { kind: 'advanced', transitions: [transition(ratio)] },
      });
    }
    // Summed in the process until the flush: nothing has reached Redis yet.
    expect(await redis.hlen(`${config.queuePrefix}:metrics`)).toBe(0);
    await metrics.flush();
    // One field per bucket hit, not one per bucket at or above the value.
    const stored = Object.keys(await redis.hgetall(`${config.queuePrefix}:metrics`));
    expect(stored.filter((f) => f.startsWith('memfade_compression_ratio_hits'))).toHaveLength(3);
    const text = await metrics.render(queues);
    const bucket = (le: string) =>
      Number(
        text.match(
          new RegExp(`^memfade_compression_ratio_bucket\\{stage="v1",le="${le}"\\} (\\d+)$`, 'm'),
        )?.[1],
      );
    expect([
      bucket('0.1'),
      bucket('0.2'),
      bucket('0.3'),
      bucket('0.4'),
      bucket('0.8'),
      bucket('1'),
      bucket('\\+Inf'),
    ]).toEqual([0, 1, 1, 3, 3, 4, 4]);
    expect(text).toMatch(/^memfade_compression_ratio_count\{stage="v1"\} 4$/m);
    expect(text).toMatch(/^memfade_job_duration_seconds_bucket\{queue="compress",le="0.5"\} 4$/m);
    expect(text).toMatch(/^memfade_jobs_total\{stage="v1",outcome="completed"\} 4$/m);
  });

  it('sends a timed flush on its own, and what is left when closed', async () => {
    const { redis, config } = harness.services;
    const prefix = `${config.queuePrefix}-flush`;
    const metrics = new FleetMetrics(redis, prefix, 50);
    const ended = { stage: 'v2', outcome: 'noop', seconds: 0.02 } as const;
    await metrics.jobEnded(ended);
    await metrics.jobEnded(ended);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const field = 'memfade_jobs_total{stage="v2",outcome="noop"}';
    expect(await redis.hget(`${prefix}:metrics`, field)).toBe('2');
    await metrics.jobEnded(ended);
    await metrics.close();
    expect(await redis.hget(`${prefix}:metrics`, field)).toBe('3');
  });
});
