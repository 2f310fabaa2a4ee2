import { ZERO_USAGE } from '@memfade/core';
import { uniqueName } from '@memfade/testing';
import type { Connection } from 'mongoose';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { closeMongo, connectMongo } from './connection.js';
import { createModels, ensureIndexes, type Models } from './models.js';
import { RunRepository } from './run-repository.js';

let connection: Connection;
let models: Models;
let runs: RunRepository;

/** A memory as a worker leaves it after applying these stages in these runs. */
const compressed = (memoryId: string, entries: { stage: 'v1' | 'v2'; runId: string }[]) =>
  models.memories.collection.insertOne({
    memoryId,
    meta: { compressionStage: entries.at(-1)?.stage ?? 'raw', createdAt: new Date() },
    compression: { history: entries.map((e) => ({ ...e, at: new Date() })) },
  });

beforeAll(async () => {
  connection = await connectMongo(inject('mongoUri'), { dbName: uniqueName('db') });
  models = createModels(connection);
  await ensureIndexes(models);
  runs = new RunRepository(models);
});
afterAll(async () => closeMongo(connection));

describe('RunRepository', () => {
  it('starts a run once and finishes it exactly once when every job has ended', async () => {
    const asOf = new Date('2026-11-22T03:00:00Z');
    expect(await runs.start({ runId: 'r1', trigger: 'schedule', asOf })).toEqual({ created: true });
    expect(await runs.start({ runId: 'r1', trigger: 'manual', asOf })).toEqual({ created: false });
    await runs.producerDone('r1', { selected: 3, enqueued: 3, users: 2 });
    await compressed('m1', [{ stage: 'v1', runId: 'r1' }]);
    const v1 = {
      stage: 'v1' as const,
      skipped: false,
      usage: { ...ZERO_USAGE, inputTokens: 10 },
      ratio: 0.4,
    };
    expect(await runs.recordJob('r1', { outcome: 'completed', transitions: [v1] })).toEqual({
      complete: false,
    });
    expect(await runs.recordJob('r1', { outcome: 'noop' })).toEqual({ complete: false });
    expect(await runs.finishIfComplete('r1')).toBe(false);
    const error = { memoryId: 'm3', stage: 'input', message: 'bad' };
    // The job whose count completes the run is told so.
    expect(await runs.recordJob('r1', { outcome: 'failed', error })).toEqual({ complete: true });
    const finished = await Promise.all([runs.finishIfComplete('r1'), runs.finishIfComplete('r1')]);
    expect(finished.filter(Boolean)).toHaveLength(1);
    const run = await runs.get('r1');
    expect(run).toMatchObject({
      trigger: 'schedule',
      users: 2,
      counts: { selected: 3, enqueued: 3, processed: 3, v1: 1, noop: 1, failed: 1 },
      tokens: { v1: { inputTokens: 10 } },
      ratioSums: { v1: { sum: 0.4, n: 1 } },
    });
    expect(run?.durationMs).toBeGreaterThanOrEqual(0);
    expect(run?.errors.map((e) => e.memoryId)).toEqual(['m3']);
  });

  it('settles the counts from the memories when a crash left the live counters wrong', async () => {
    await runs.start({ runId: 'r3', trigger: 'schedule', asOf: new Date() });
    await runs.producerDone('r3', { selected: 3, enqueued: 3, users: 1 });
    // m4 got V1 and V2 but the worker died before counting either; its retry counted a no-op.
    await compressed('m4', [
      { stage: 'v1', runId: 'r3' },
      { stage: 'v2', runId: 'r3' },
    ]);
    await runs.recordJob('r3', { outcome: 'noop' });
    // m5's V1 came from an earlier run; this run's V2 was counted, then counted again after a retry.
    await compressed('m5', [
      { stage: 'v1', runId: 'r0' },
      { stage: 'v2', runId: 'r3' },
    ]);
    for (let i = 0; i < 2; i++) {
      const v2 = { stage: 'v2' as const, skipped: false, usage: ZERO_USAGE, ratio: 0.5 };
      await runs.recordJob('r3', { outcome: 'completed', transitions: [v2] });
    }
    // m6's job found its memory already compressed by another run.
    await compressed('m6', [{ stage: 'v1', runId: 'r0' }]);
    expect(await runs.finishIfComplete('r3')).toBe(true);
    const run = await runs.get('r3');
    expect(run?.counts).toMatchObject({ enqueued: 3, processed: 3, v1: 1, v2: 2, noop: 1, failed: 0 });
  });

  it('shows the last 100 errors, oldest first', async () => {
    await runs.start({ runId: 'r2', trigger: 'manual', asOf: new Date() });
    for (let i = 0; i < 105; i++)
      await runs.recordJob('r2', {
        outcome: 'failed',
        error: { memoryId: `m${i}`, stage: 'v1', message: 'x' },
      });
    const run = await runs.get('r2');
    expect(run?.errors).toHaveLength(100);
    expect(run?.errors[0]?.memoryId).toBe('m5');
    expect(run?.counts.failed).toBe(105);
  });
});
