import { setTimeout as sleep } from 'node:timers/promises';
import { startWorkerRole, waitForRun } from '@memfade/app';
import { afterEach, describe, expect, it } from 'vitest';
import {
  audit,
  closeBatchMode,
  emulator,
  faultOnce,
  harness,
  loseBatchIds,
  setUp,
  steps,
} from './batch-mode-harness.js';
import { billedAndCounted } from './faults/fault-checks.js';

/**
 * Batch mode through the real SDKs and the emulator's batch APIs (README "Batch mode"): every due
 * memory ends at its stage exactly once, at batch prices, whatever the provider's batches do. Here
 * the worker dies or its jobs are lost at each step of a round (submit, poll, applying results) and
 * the next attempt resumes from the records. A run given up is batch-mode-given-up.test.ts, the
 * round itself batch-mode-round.test.ts; the shared setup is batch-mode-harness.ts.
 */
describe('batch mode: crashes and resumes, nothing paid or applied twice', () => {
  afterEach(closeBatchMode);

  it('a results file cut mid-way is read again and resumed: nothing applied twice', async () => {
    const memories = Array.from({ length: 12 }, (_, i) => ({ id: `c${i}`, ageDays: 4 }));
    const services = await setUp('anthropic', memories, { maxRequests: 100 });
    const { produce, submit, poll } = steps(services, harness!.config);
    await produce('cut');
    await submit('cut', 0);
    emulator!.batches.cutNextResults(5);
    await expect(poll('cut', 0)).rejects.toThrow();
    const halfway = await audit(services, 'cut');
    const applied = Object.values(halfway).filter((m) => m.history.length === 1).length;
    expect(applied).toBeGreaterThan(0);
    expect(applied).toBeLessThan(12);
    expect(await poll('cut', 0)).toEqual({ open: 0 });
    for (const m of Object.values(await audit(services, 'cut')))
      expect(m).toEqual({ stage: 'v1', history: ['v1'] });
    expect(emulator!.batches.list()).toHaveLength(1);
    const run = await services.runs.get('cut');
    expect(run?.counts).toMatchObject({ enqueued: 12, processed: 12, v1: 12, noop: 0 });
    expect(run?.batches?.requests).toMatchObject({ succeeded: 12, applied: 12 });
  });

  it('poll jobs all gone with requests left: the tracker resumes the run from its records, and it completes', async () => {
    const memories = Array.from({ length: 10 }, (_, i) => ({ id: `l${i}`, ageDays: 4 }));
    const services = await setUp('anthropic', memories, { maxRequests: 100 });
    const { produce, submit } = steps(services, harness!.config);
    await produce('lost');
    await submit('lost', 0);
    // The round's poll job is gone for good (stalled past its limit, or lost with Redis's data).
    await services.queues.batch.obliterate({ force: true });
    expect(await services.tracker.sweep()).toEqual([]);
    const resumed = await services.queues.batch.getJob('lost.poll.0.0.r1');
    expect(resumed?.data).toMatchObject({ runId: 'lost', round: 0, resume: 1 });
    const worker = startWorkerRole(services);
    try {
      const run = await waitForRun(services, 'lost', { timeoutMs: 30_000, pollMs: 50 });
      expect(run.interrupted).toBeUndefined();
      expect(run.counts).toMatchObject({ enqueued: 10, processed: 10, v1: 10, noop: 0 });
      expect(run.batches).toMatchObject({ resumes: 1, requests: { applied: 10 } });
    } finally {
      await worker.close();
    }
  });

  it.each(['anthropic', 'openai'] as const)(
    '%s: the submit step run again after such a crash finds the batch once it has ended with a request lost (no line for it)',
    async (provider) => {
      const memories = Array.from({ length: 10 }, (_, i) => ({
        id: `q${i}`,
        ageDays: 4,
        marker: i === 2 ? 'LOST' : '',
      }));
      const services = await setUp(provider, memories, { maxRequests: 100 });
      const lost = faultOnce('LOST', { kind: 'missing' });
      emulator!.setRule(({ body }) => lost(body));
      const { produce, submit, poll } = steps(services, harness!.config);
      await produce('lostline');
      await submit('lostline', 0);
      // The crash: the provider accepted the batch, the worker died before recording its id; the
      // batch has ended by the time the submit runs again.
      await loseBatchIds(services, 'lostline');
      emulator!.batches.settle();
      await submit('lostline', 0);
      expect(emulator!.batches.list()).toHaveLength(1);
      await poll('lostline', 0);
      await submit('lostline', 1);
      await poll('lostline', 1);
      for (const m of Object.values(await audit(services, 'lostline')))
        expect(m).toEqual({ stage: 'v1', history: ['v1'] });
      const run = await services.runs.get('lostline');
      const { billed, counted } = billedAndCounted(emulator!, run ? [run] : []);
      expect(counted).toBe(billed);
    },
  );

  it.each(['anthropic', 'openai'] as const)(
    '%s: the submit step run again after a crash between recording a batch and recording its id finds the batch: nothing paid or applied twice',
    async (provider) => {
      const memories = Array.from({ length: 10 }, (_, i) => ({ id: `k${i}`, ageDays: 4 }));
      const services = await setUp(provider, memories, { maxRequests: 100 });
      const { produce, submit, poll } = steps(services, harness!.config);
      await produce('crash');
      await submit('crash', 0);
      expect(emulator!.batches.list()).toHaveLength(1);
      // The crash: the provider accepted the batch, the worker died before recording its id.
      await loseBatchIds(services, 'crash');
      await submit('crash', 0);
      expect(emulator!.batches.list()).toHaveLength(1);
      await poll('crash', 0);
      for (const m of Object.values(await audit(services, 'crash')))
        expect(m).toEqual({ stage: 'v1', history: ['v1'] });
      const run = await services.runs.get('crash');
      expect(run?.counts).toMatchObject({ enqueued: 10, processed: 10, v1: 10 });
      expect(run?.finishedAt).toBeInstanceOf(Date);
    },
  );

  it('a crash before the provider accepted the batch: the next attempt submits it once', async () => {
    const memories = Array.from({ length: 10 }, (_, i) => ({ id: `n${i}`, ageDays: 4 }));
    const services = await setUp('anthropic', memories, { maxRequests: 100 });
    const { deps, produce, submit, poll } = steps(services, harness!.config);
    await produce('early');
    // The first attempt dies inside submit(): the batch is recorded, the provider never saw it.
    const realSubmit = deps.model.submit.bind(deps.model);
    deps.model.submit = async () => {
      throw new Error('worker killed');
    };
    await expect(submit('early', 0)).rejects.toThrow('worker killed');
    expect(await services.batches.batches('early', 0)).toMatchObject([{ state: 'submitting' }]);
    deps.model.submit = realSubmit;
    await submit('early', 0);
    expect(emulator!.batches.list()).toHaveLength(1);
    await poll('early', 0);
    for (const m of Object.values(await audit(services, 'early')))
      expect(m).toEqual({ stage: 'v1', history: ['v1'] });
  });

  it('a retried submit sends fewer requests than the first attempt recorded and dies once the provider has them: the next attempt finds that batch, every billed line counted', async () => {
    const memories = Array.from({ length: 10 }, (_, i) => ({ id: `f${i}`, ageDays: 4 }));
    const services = await setUp('openai', memories, { maxRequests: 100 });
    const { deps, produce, submit, poll } = steps(services, harness!.config);
    await produce('fewer');
    const realSubmit = deps.model.submit.bind(deps.model);
    // The first attempt records the batch with 10 requests and dies before the provider sees it.
    deps.model.submit = async () => {
      throw new Error('worker killed');
    };
    await expect(submit('fewer', 0)).rejects.toThrow('worker killed');
    // Meanwhile one request goes another way (here its memory is deleted; in simulate --seed 1495
    // the user's cap deferred some): the second attempt sends 9, and dies before recording the id.
    await services.models.memories.collection.deleteOne({ memoryId: 'f0' });
    deps.model.submit = async (...args) => {
      await realSubmit(...args);
      throw new Error('worker killed');
    };
    await expect(submit('fewer', 0)).rejects.toThrow('worker killed');
    deps.model.submit = realSubmit;
    await submit('fewer', 0);
    expect(await poll('fewer', 0)).toEqual({ open: 0 });
    const run = await services.runs.get('fewer');
    expect(run?.counts).toMatchObject({ enqueued: 10, processed: 10, v1: 9, noop: 1 });
    const { billed, counted } = billedAndCounted(emulator!, run ? [run] : []);
    expect(billed).toBeGreaterThan(0);
    expect(counted).toBe(billed);
    // Found again: not sent twice, nor left at the provider unread.
    expect(emulator!.batches.list().map((b) => b.customIds.length)).toEqual([9]);
  });

  it('a crash between recording a batch id and marking its requests submitted: the next attempt builds none of them again, every billed line counted', async () => {
    const memories = Array.from({ length: 10 }, (_, i) => ({ id: `m${i}`, ageDays: 4 }));
    const services = await setUp('openai', memories, { maxRequests: 100 });
    const { produce, submit, poll } = steps(services, harness!.config);
    await produce('marks');
    await submit('marks', 0);
    // As if the worker died after the batch's id was recorded, before its requests were marked.
    await services.models.batchRequests.collection.updateMany(
      { runId: 'marks' },
      { $set: { state: 'prepared' }, $unset: { batchId: '' } },
    );
    // A memory deleted meanwhile: built again, its request would be a no-op while its line is paid.
    await services.models.memories.collection.deleteOne({ memoryId: 'm0' });
    await submit('marks', 0);
    expect(await poll('marks', 0)).toEqual({ open: 0 });
    const run = await services.runs.get('marks');
    expect(run?.counts).toMatchObject({ enqueued: 10, processed: 10 });
    const { billed, counted } = billedAndCounted(emulator!, run ? [run] : []);
    expect(billed).toBeGreaterThan(0);
    expect(counted).toBe(billed);
    expect(emulator!.batches.list().map((b) => b.customIds.length)).toEqual([10]);
  });

  it("a submit run again after a crash before the create call keeps what the first attempt reserved: each user's reservation settles to what was billed", async () => {
    const memories = Array.from({ length: 12 }, (_, i) => ({ id: `r${i}`, ageDays: 4 }));
    const nightBudget = { usd: 0, tokens: 0, userUsd: 10 };
    const services = await setUp('openai', memories, { maxRequests: 100 }, { nightBudget });
    const { deps, produce, submit, poll } = steps(services, harness!.config);
    await produce('again');
    const realSubmit = deps.model.submit.bind(deps.model);
    // The first attempt reserves every request and dies before the provider sees the batch.
    deps.model.submit = async () => {
      throw new Error('worker killed');
    };
    await expect(submit('again', 0)).rejects.toThrow('worker killed');
    deps.model.submit = realSubmit;
    await submit('again', 0);
    expect(await poll('again', 0)).toEqual({ open: 0 });
    const run = await services.runs.get('again');
    expect(run?.counts).toMatchObject({ enqueued: 12, processed: 12, v1: 12 });
    // Reserved twice, the first attempt's reservations would stand all night: a user's cap reached
    // by requests never sent (simulate --seed 1495 deferred memories so).
    const ledger = await services.runs.userCosts.ofRun('again');
    expect(ledger.map((u) => u.userId).sort()).toEqual(['u0', 'u1', 'u2', 'u3']);
    for (const u of ledger) {
      expect(u.cost, u.userId).toBeGreaterThan(0);
      expect(u.reservedUsd ?? 0, u.userId).toBeCloseTo(u.cost, 9);
    }
  });

  it('two submitters of one round at once (a stalled submit job delivered again while the first still runs): each request submitted once', async () => {
    const memories = Array.from({ length: 12 }, (_, i) => ({ id: `w${i}`, ageDays: 4 }));
    const services = await setUp('anthropic', memories, { maxRequests: 5 });
    const { deps, produce, submit, poll } = steps(services, harness!.config);
    await produce('two');
    // A slow provider: the first submitter is inside its create call when the second starts.
    const realSubmit = deps.model.submit.bind(deps.model);
    deps.model.submit = async (...args) => {
      await sleep(300);
      return realSubmit(...args);
    };
    await Promise.all([submit('two', 0), sleep(100).then(() => submit('two', 0))]);
    const ids = emulator!.batches.list().flatMap((b) => b.customIds);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toHaveLength(12);
    expect(emulator!.batches.list()).toHaveLength(3);
    await poll('two', 0);
    for (const m of Object.values(await audit(services, 'two')))
      expect(m).toEqual({ stage: 'v1', history: ['v1'] });
    const run = await services.runs.get('two');
    expect(run?.counts).toMatchObject({ enqueued: 12, processed: 12, v1: 12, noop: 0 });
    expect(run?.batches?.submitted).toBe(3);
  });

  it('two polls applying the same batch at once count each request once', async () => {
    const memories = Array.from({ length: 12 }, (_, i) => ({ id: `t${i}`, ageDays: 4 }));
    const services = await setUp('anthropic', memories, { maxRequests: 100 });
    const { produce, submit, poll } = steps(services, harness!.config);
    await produce('twice');
    await submit('twice', 0);
    await Promise.all([poll('twice', 0), poll('twice', 0), poll('twice', 0)]);
    for (const m of Object.values(await audit(services, 'twice')))
      expect(m).toEqual({ stage: 'v1', history: ['v1'] });
    const run = await services.runs.get('twice');
    expect(run?.counts).toMatchObject({ enqueued: 12, processed: 12, v1: 12, noop: 0 });
    expect(run?.batches?.requests).toEqual({ succeeded: 12, applied: 12 });
  });

  it('a crash between writing a stage and settling its request: the results read again settle it as applied, V2 follows', async () => {
    const memories = Array.from({ length: 10 }, (_, i) => ({ id: `v${i}`, ageDays: 9 }));
    const services = await setUp('openai', memories, { maxRequests: 100 });
    const { produce, submit, poll } = steps(services, harness!.config);
    await produce('halfway');
    await submit('halfway', 0);
    await poll('halfway', 0);
    // As if the worker died after v3's V1 was written, before its request was settled and its V2
    // request written, and before the batch was marked applied.
    const v3 = { memoryId: 'v3', runId: 'halfway' };
    await services.models.batchRequests.collection.deleteOne({ ...v3, round: 1 });
    await services.models.batchRequests.collection.updateOne(
      { ...v3, round: 0 },
      { $set: { state: 'submitted' } },
    );
    await services.models.batches.collection.updateOne(
      { runId: 'halfway', round: 0 },
      { $set: { state: 'submitted' } },
    );
    await poll('halfway', 0);
    await submit('halfway', 1);
    await poll('halfway', 1);
    for (const m of Object.values(await audit(services, 'halfway')))
      expect(m).toEqual({ stage: 'v2', history: ['v1', 'v2'] });
    expect(emulator!.batches.list().map((b) => b.customIds.length)).toEqual([10, 10]);
    const run = await services.runs.get('halfway');
    expect(run?.counts).toMatchObject({ enqueued: 10, processed: 10, v1: 10, v2: 10, noop: 0 });
  });
});
