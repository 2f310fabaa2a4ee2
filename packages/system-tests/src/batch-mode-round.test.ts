import { enqueueRun, startWorkerRole, waitForRun } from '@memfade/app';
import { costOf, type Usage } from '@memfade/core';
import { insertMemories, memoryDocument } from '@memfade/db';
import { afterEach, describe, expect, it } from 'vitest';
import {
  audit,
  closeBatchMode,
  DAY,
  emulator,
  faultOnce,
  harness,
  NOW,
  PRICE,
  setUp,
  steps,
} from './batch-mode-harness.js';
import { billedAndCounted } from './faults/fault-checks.js';

/**
 * Batch mode through the real SDKs and the emulator's batch APIs (README "Batch mode"): every due
 * memory ends at its stage exactly once, at batch prices, whatever the provider's batches do. Here
 * a night's batch round and its edges: BATCH_MIN_CALLS, the night budget, the deadline (canceled,
 * then sync or next night), refused and expiring requests, memories that go the sync way. Crashes
 * and resumes are batch-mode-crashes.test.ts, memories changed under a batch
 * batch-mode-memories.test.ts; the shared setup is batch-mode-harness.ts.
 */
describe("batch mode: a night's batch round and its edges", () => {
  afterEach(closeBatchMode);

  it.each(['anthropic', 'openai'] as const)(
    'a night of 60 memories through %s batches: split, repaired, retried, V1 then V2, each once at batch prices',
    async (provider) => {
      // 60 memories: 40 due for V1 only, 20 raw ones already V2-old (V1 in round 0, V2 in round 1);
      // one reply breaks the schema (one sync repair call), two requests error (500) once.
      const memories = Array.from({ length: 60 }, (_, i) => ({
        id: `m${String(i).padStart(2, '0')}`,
        ageDays: i < 40 ? 4 : 9,
        marker: i === 5 ? 'SCHEMA' : i === 7 || i === 45 ? 'ERROR' : '',
      }));
      const services = await setUp(provider, memories);
      const schema = faultOnce('SCHEMA', { kind: 'schema' });
      const error = faultOnce('ERROR', { kind: 'status', status: 500 });
      emulator!.setRule(({ api, body }) =>
        api === 'embeddings' ? undefined : (schema(body) ?? error(body)),
      );
      const worker = startWorkerRole(services);
      try {
        const runId = await enqueueRun(services, { trigger: 'manual' });
        const run = await waitForRun(services, runId, { timeoutMs: 60_000, pollMs: 50 });
        const memoriesAfter = await audit(services, runId);
        for (const m of memories) {
          const expected = m.ageDays >= 7 ? ['v1', 'v2'] : ['v1'];
          expect(memoriesAfter[m.id], m.id).toEqual({ stage: expected.at(-1), history: expected });
        }
        expect(run.counts).toMatchObject({ enqueued: 60, processed: 60, v1: 60, v2: 20, failed: 0 });
        expect(run.interrupted).toBeUndefined();
        const batches = emulator!.batches.list();
        // Round 0: 60 V1 requests in batches of at most 7; later rounds: 20 V2 and 2 retries.
        expect(Math.max(...batches.map((b) => b.customIds.length))).toBeLessThanOrEqual(7);
        expect(batches.filter((b) => b.customIds.length > 0).length).toBeGreaterThanOrEqual(9 + 3);
        const inBatches = batches.reduce((n, b) => n + b.customIds.length, 0);
        expect(inBatches).toBe(60 + 20 + 2);
        // The one schema-breaking reply got its one repair call, synchronously.
        const sync = emulator!.requests.filter((r) => r.api !== 'embeddings' && !r.batchId);
        expect(sync).toHaveLength(1);
        expect(run.batches).toMatchObject({
          mode: 'batch',
          submitted: batches.length,
          ended: batches.length,
          requests: { succeeded: 80, errored: 2, applied: 80 },
        });
        expect(run.batches?.firstResultAt).toBeInstanceOf(Date);
        // Batch lines at batch prices; the one repair call, made synchronously, at sync prices: V1's
        // cost is above the batch price of its tokens by at most half the repaired memory's own.
        const atBatch = (u: Usage) => costOf(u, PRICE, { batch: true });
        expect(run.cost.v2).toBeCloseTo(atBatch(run.tokens.v2), 9);
        const [repaired] = await services.models.memories.collection.find({ memoryId: 'm05' }).toArray();
        const repairedUsage = repaired!.compression.v1.usage as Usage;
        expect(run.cost.v1).toBeGreaterThan(atBatch(run.tokens.v1) + 1e-9);
        expect(run.cost.v1).toBeLessThan(atBatch(run.tokens.v1) + atBatch(repairedUsage));
        expect(run.cost.v1).toBeLessThan(costOf(run.tokens.v1, PRICE) * 0.51);
      } finally {
        await worker.close();
      }
    },
    90_000,
  );

  it('a run below BATCH_MIN_CALLS stays sync: compress jobs, no batch', async () => {
    const memories = Array.from({ length: 5 }, (_, i) => ({ id: `s${i}`, ageDays: 4 }));
    const services = await setUp('anthropic', memories);
    const worker = startWorkerRole(services);
    try {
      const runId = await enqueueRun(services, { trigger: 'manual' });
      const run = await waitForRun(services, runId, { timeoutMs: 30_000, pollMs: 50 });
      expect(run.counts).toMatchObject({ enqueued: 5, processed: 5, v1: 5 });
      expect(run.batches).toMatchObject({ mode: 'sync' });
      expect(run.batches?.reason).toMatch(/BATCH_MIN_CALLS/);
      expect(emulator!.batches.list()).toEqual([]);
    } finally {
      await worker.close();
    }
  });

  it.each([
    ['sync', 6],
    ['batch', 30],
  ] as const)(
    'a night budget reached mid-night (%s): no request past it, the rest stays due, the run says so',
    async (mode, count) => {
      const memories = Array.from({ length: count }, (_, i) => ({ id: `b${i}`, ageDays: 4 }));
      // Room for two stages at their ceiling (reservationOf: about 13,900 tokens per memory here:
      // the first call, its truncation retry and its repair turn, each at its max_tokens).
      const tokens = 30_000;
      const services = await setUp('anthropic', memories, {}, { nightBudget: { usd: 0, tokens } });
      const worker = startWorkerRole(services);
      try {
        const runId = await enqueueRun(services, { trigger: 'manual' });
        const run = await waitForRun(services, runId, { timeoutMs: 60_000, pollMs: 50 });
        expect(run.batches?.mode).toBe(mode);
        const requested = emulator!.requests.filter((r) => r.api !== 'embeddings').length;
        expect(requested).toBeGreaterThan(0);
        expect(requested).toBeLessThan(count);
        // Every memory is counted once: compressed, or left due by the budget.
        expect(run.counts).toMatchObject({ enqueued: count, processed: count, v1: requested, failed: 0 });
        expect(run.budget?.overBudget).toBe(count - requested);
        expect(run.budget?.tokens).toBeLessThanOrEqual(tokens);
        expect(run.budget).toMatchObject({ limitTokens: tokens, reachedAt: expect.any(Date) });
        const left = Object.values(await audit(services, runId)).filter((m) => m.stage === 'raw');
        expect(left).toHaveLength(count - requested);
      } finally {
        await worker.close();
      }
    },
  );

  it('a batch not ended by the deadline is canceled; with BATCH_AFTER_DEADLINE=sync what it left goes to compress jobs', async () => {
    const memories = Array.from({ length: 10 }, (_, i) => ({ id: `d${i}`, ageDays: 4 }));
    const services = await setUp('openai', memories, { maxRequests: 100, deadlineMs: 0 });
    emulator!.batches.processingMs = Number.POSITIVE_INFINITY;
    const worker = startWorkerRole(services);
    try {
      const runId = await enqueueRun(services, { trigger: 'manual' });
      const run = await waitForRun(services, runId, { timeoutMs: 30_000, pollMs: 50 });
      expect(run.counts).toMatchObject({ enqueued: 10, processed: 10, v1: 10, failed: 0 });
      expect(run.batches).toMatchObject({
        mode: 'batch',
        afterDeadline: 'sync',
        requests: { canceled: 10 },
      });
      expect(emulator!.batches.list()).toMatchObject([{ state: 'ended' }]);
      // Each memory compressed once, by its sync compress job.
      for (const m of Object.values(await audit(services, runId)))
        expect(m).toEqual({ stage: 'v1', history: ['v1'] });
      expect(emulator!.requests.filter((r) => !r.batchId && r.api !== 'embeddings')).toHaveLength(10);
    } finally {
      await worker.close();
    }
  });

  it('past the deadline a V2 request goes sync: the run still counts the V1 its batch round applied', async () => {
    const memories = Array.from({ length: 10 }, (_, i) => ({ id: `k${i}`, ageDays: 9 }));
    const services = await setUp('anthropic', memories, { maxRequests: 100 });
    const { produce, submit, poll, deps } = steps(services, harness!.config);
    await produce('carry');
    await submit('carry', 0);
    await poll('carry', 0);
    // Round 0 wrote V1; round 1's V2 batch does not end before the deadline, which has passed.
    emulator!.batches.processingMs = Number.POSITIVE_INFINITY;
    await submit('carry', 1);
    deps.settings.deadlineMs = 0;
    expect(await poll('carry', 1)).toEqual({ open: 1 });
    expect(await poll('carry', 1)).toEqual({ open: 0 });
    const worker = startWorkerRole(services);
    try {
      const run = await waitForRun(services, 'carry', { timeoutMs: 30_000, pollMs: 50 });
      expect(run.counts).toMatchObject({ enqueued: 10, processed: 10, v1: 10, v2: 10, failed: 0 });
      for (const m of Object.values(await audit(services, 'carry')))
        expect(m).toEqual({ stage: 'v2', history: ['v1', 'v2'] });
      // V1's tokens are those the batch round recorded on the memories, priced at batch prices.
      const docs = await services.models.memories.collection.find({}).toArray();
      const v1Output = docs.reduce((n, d) => n + (d.compression.v1.usage as Usage).outputTokens, 0);
      expect(v1Output).toBeGreaterThan(0);
      expect(run.tokens.v1.outputTokens).toBe(v1Output);
      expect(run.cost.v1).toBeCloseTo(costOf(run.tokens.v1, PRICE, { batch: true }), 9);
      // V2 went through sync compress jobs, at sync prices.
      expect(run.cost.v2).toBeCloseTo(costOf(run.tokens.v2, PRICE), 9);
    } finally {
      await worker.close();
    }
  });

  it('with BATCH_AFTER_DEADLINE=next-night a canceled batch leaves its memories due, the run says so', async () => {
    const memories = Array.from({ length: 10 }, (_, i) => ({ id: `w${i}`, ageDays: 4 }));
    const services = await setUp('anthropic', memories, {
      maxRequests: 100,
      deadlineMs: 0,
      afterDeadline: 'next-night',
    });
    emulator!.batches.processingMs = Number.POSITIVE_INFINITY;
    const { produce, submit, poll } = steps(services, harness!.config);
    await produce('late');
    await submit('late', 0);
    expect(await poll('late', 0)).toEqual({ open: 1 });
    expect(await poll('late', 0)).toEqual({ open: 0 });
    for (const m of Object.values(await audit(services, 'late')))
      expect(m).toEqual({ stage: 'raw', history: [] });
    const run = await services.runs.get('late');
    expect(run?.finishedAt).toBeInstanceOf(Date);
    expect(run?.counts).toMatchObject({ enqueued: 10, processed: 10, noop: 10, v1: 0 });
    expect(run?.batches).toMatchObject({ afterDeadline: 'next-night', requests: { canceled: 10 } });
  });

  it('a refused request fails at once; one that keeps expiring fails after BATCH_MAX_ROUNDS, recorded on the memory', async () => {
    const memories = Array.from({ length: 10 }, (_, i) => ({
      id: `f${i}`,
      ageDays: 4,
      marker: i === 1 ? 'REFUSE' : i === 2 ? 'EXPIRE' : '',
    }));
    const services = await setUp('anthropic', memories, { maxRequests: 100 });
    emulator!.setRule(({ body }) => {
      const text = JSON.stringify(body);
      if (text.includes('REFUSE')) return { kind: 'status', status: 400 };
      if (text.includes('EXPIRE')) return { kind: 'expired' };
      return undefined;
    });
    const { submit, poll, produce } = steps(services, harness!.config);
    await produce('fail');
    for (const round of [0, 1, 2]) {
      await submit('fail', round);
      await poll('fail', round);
    }
    // Round 0 had all ten, rounds 1 and 2 only the expiring one.
    expect(emulator!.batches.list().map((b) => b.customIds.length)).toEqual([10, 1, 1]);
    const after = await audit(services, 'fail');
    expect(after.f1).toEqual({ stage: 'raw', history: [] });
    expect(after.f2).toEqual({ stage: 'raw', history: [] });
    const docs = await services.models.memories.collection
      .find({ memoryId: { $in: ['f1', 'f2'] } })
      .toArray();
    expect(docs.map((d) => d.compression.lastError?.message)).toEqual([
      expect.stringMatching(/errored/),
      expect.stringMatching(/expired/),
    ]);
    const run = await services.runs.get('fail');
    expect(run?.counts).toMatchObject({ enqueued: 10, processed: 10, v1: 8, failed: 2 });
    expect(run?.finishedAt).toBeInstanceOf(Date);
  });

  it.each(['anthropic', 'openai'] as const)(
    '%s: a request the provider lost (no result line at all) is sent again next round and applied once, every billed line counted',
    async (provider) => {
      const memories = Array.from({ length: 10 }, (_, i) => ({
        id: `m${i}`,
        ageDays: 4,
        marker: i === 3 ? 'LOST' : '',
      }));
      const services = await setUp(provider, memories, { maxRequests: 100 });
      // Lost the first time it is sent only.
      const lost = faultOnce('LOST', { kind: 'missing' });
      emulator!.setRule(({ body }) => lost(body));
      const { submit, poll, produce } = steps(services, harness!.config);
      await produce('lost');
      for (const round of [0, 1]) {
        await submit('lost', round);
        await poll('lost', round);
      }
      expect(emulator!.batches.list().map((b) => b.customIds.length)).toEqual([10, 1]);
      for (const m of Object.values(await audit(services, 'lost')))
        expect(m).toEqual({ stage: 'v1', history: ['v1'] });
      const run = await services.runs.get('lost');
      expect(run?.counts).toMatchObject({ enqueued: 10, processed: 10, v1: 10, failed: 0 });
      expect(run?.finishedAt).toBeInstanceOf(Date);
      const { billed, counted } = billedAndCounted(emulator!, run ? [run] : []);
      expect(emulator!.billed().batch.lines).toBe(10);
      expect(counted).toBe(billed);
    },
  );

  it.each(['anthropic', 'openai'] as const)(
    '%s: a line the results file holds twice is applied and counted once',
    async (provider) => {
      const memories = Array.from({ length: 10 }, (_, i) => ({
        id: `m${i}`,
        ageDays: 4,
        marker: i % 3 ? '' : 'TWICE',
      }));
      // One chunk for the whole results file: each line and its repeat are settled together.
      const services = await setUp(provider, memories, { maxRequests: 100, chunk: 100 });
      const twice = faultOnce('TWICE', { kind: 'duplicated' });
      emulator!.setRule(({ body }) => twice(body));
      const { submit, poll, produce } = steps(services, harness!.config);
      await produce('twice');
      await submit('twice', 0);
      await poll('twice', 0);
      for (const m of Object.values(await audit(services, 'twice')))
        expect(m).toEqual({ stage: 'v1', history: ['v1'] });
      const run = await services.runs.get('twice');
      expect(run?.counts).toMatchObject({ enqueued: 10, processed: 10, v1: 10, failed: 0 });
      const { billed, counted } = billedAndCounted(emulator!, run ? [run] : []);
      expect(emulator!.billed().batch.lines).toBe(10);
      expect(counted).toBe(billed);
    },
  );

  it('memories needing several chunks or too short for a model go the sync way in a batch run, counted once', async () => {
    const memories = Array.from({ length: 12 }, (_, i) => ({ id: `b${i}`, ageDays: 4 }));
    const services = await setUp('anthropic', memories, { maxRequests: 100 });
    const createdAt = new Date(NOW.getTime() - 4 * DAY);
    const sentence = (i: number) =>
      `On day ${i} we walked along the river and talked about the garden and the old house. `;
    const long = Array.from({ length: 180 }, (_, i) => sentence(i)).join('');
    await insertMemories(
      services.models,
      [
        memoryDocument({
          memoryId: 'short',
          userId: 'u0',
          partnerId: 'p1',
          turns: [{ role: 'user', text: 'Hi.' }],
          createdAt,
          language: 'en',
        }),
        memoryDocument({
          memoryId: 'long',
          userId: 'u0',
          partnerId: 'p1',
          turns: [{ role: 'user', text: long }],
          createdAt,
          language: 'en',
        }),
      ],
      [],
    );
    expect(long.length).toBeGreaterThan(harness!.config.policy.maxChunkChars);
    const worker = startWorkerRole(services);
    try {
      const runId = await enqueueRun(services, { trigger: 'manual' });
      const run = await waitForRun(services, runId, { timeoutMs: 30_000, pollMs: 50 });
      expect(run.counts).toMatchObject({ enqueued: 14, processed: 14, v1: 14, skipped: 1, failed: 0 });
      for (const m of Object.values(await audit(services, runId)))
        expect(m).toEqual({ stage: 'v1', history: ['v1'] });
      expect(emulator!.batches.list().map((b) => b.customIds.length)).toEqual([12]);
      // The long memory's chunks, one sync call each; the short one needs no call.
      const sync = emulator!.requests.filter((r) => !r.batchId && r.api !== 'embeddings');
      expect(sync.length).toBeGreaterThanOrEqual(2);
      expect(sync.every((r) => JSON.stringify(r.body).includes('walked along the river'))).toBe(true);
    } finally {
      await worker.close();
    }
  });
});
