import { enqueueRun, startWorkerRole, waitForRun } from '@memfade/app';
import { costOf } from '@memfade/core';
import { until } from '@memfade/testing';
import { afterEach, describe, expect, it } from 'vitest';
import {
  audit,
  closeBatchMode,
  emulator,
  harness,
  PRICE,
  setUp,
  steps,
  turns,
} from './batch-mode-harness.js';

/**
 * Batch mode through the real SDKs and the emulator's batch APIs (README "Batch mode"): every due
 * memory ends at its stage exactly once, at batch prices, whatever the provider's batches do. Here
 * what happens to a memory between its request's submit and its result (edited, became bad input,
 * a reply broken past its repair), and what the provider keeps of a night (BATCH_DELETE_FILES). The
 * round itself is batch-mode-round.test.ts; the shared setup is batch-mode-harness.ts.
 */
describe("batch mode: memories changed or bad while in a batch, and the provider's copies", () => {
  afterEach(closeBatchMode);

  it('BATCH_DELETE_FILES (the default): once a batch is applied the provider holds none of its text', async () => {
    const memories = Array.from({ length: 20 }, (_, i) => ({ id: `f${i}`, ageDays: 9 }));
    const services = await setUp('openai', memories, { deleteFiles: true });
    const worker = startWorkerRole(services);
    try {
      const run = await waitForRun(services, await enqueueRun(services, { trigger: 'manual' }), {
        timeoutMs: 60_000,
        pollMs: 50,
      });
      expect(run.counts).toMatchObject({ enqueued: 20, processed: 20, v1: 20, v2: 20 });
      // Two rounds (V1, then V2), each batch's input, output and error files deleted (the run can
      // finish on its last result a moment before its batch's files are deleted).
      await until(
        async () => emulator!.batches.storedText() === '',
        10_000,
        () => 'files left',
      );
      let left: unknown[] = [];
      await until(
        async () => {
          left = await services.models.batches.find({ filesDeletedAt: { $exists: false } }).lean();
          return left.length === 0;
        },
        10_000,
        () => `batches without filesDeletedAt: ${JSON.stringify(left)}`,
      );
      const batches = await services.models.batches.find({}).lean();
      expect(batches.length).toBeGreaterThanOrEqual(4);
      for (const batch of batches) expect(batch.filesDeletedAt, JSON.stringify(batch)).toBeInstanceOf(Date);
    } finally {
      await worker.close();
    }
  });

  it('a memory edited after its request was submitted: the reply is a no-op, the new text is compressed next round', async () => {
    const memories = Array.from({ length: 10 }, (_, i) => ({ id: `e${i}`, ageDays: 4 }));
    const services = await setUp('openai', memories);
    const { produce, submit, poll } = steps(services, harness!.config);
    await produce('edit');
    await submit('edit', 0);
    const edited = turns(99, 'The product changed this memory.');
    await services.models.memories.collection.updateOne(
      { memoryId: 'e3' },
      { $set: { 'content.raw': edited } },
    );
    await poll('edit', 0);
    const before = await audit(services, 'edit');
    expect(before.e3).toEqual({ stage: 'raw', history: [] });
    expect(before.e4).toEqual({ stage: 'v1', history: ['v1'] });
    await submit('edit', 1);
    await poll('edit', 1);
    const doc = await services.models.memories.collection.findOne({ memoryId: 'e3' });
    expect(doc?.compression.history.map((h: { stage: string }) => h.stage)).toEqual(['v1']);
    // The stage was computed from the edited text (docs/design.md invariant 7): the round-1 request's input.
    const requests = await services.models.batchRequests.collection
      .find({ memoryId: 'e3' })
      .sort({ round: 1 })
      .toArray();
    expect(requests.map((r) => [r.round, r.state])).toEqual([
      [0, 'retried'],
      [1, 'applied'],
    ]);
    expect(requests[1]!.inputHash).not.toBe(requests[0]!.inputHash);
    expect(doc?.compression.v1.sourceHash).toBe(requests[1]!.inputHash);
    const round1 = emulator!.batches.list().at(-1)!;
    expect(round1.customIds).toHaveLength(1);
    const body = JSON.stringify(emulator!.requests.find((r) => r.customId === round1.customIds[0])?.body);
    expect(body).toContain('The product changed this memory.');
    const run = await services.runs.get('edit');
    expect(run?.counts).toMatchObject({ enqueued: 10, processed: 10, v1: 10 });
    // The reply thrown away was paid for: the run counts it beside the stages it kept.
    const docs = await services.models.memories.collection.find({}).toArray();
    const kept = docs.reduce((n, d) => n + d.compression.v1.usage.outputTokens, 0);
    expect(run!.tokens.v1.outputTokens).toBeGreaterThan(kept);
    expect(run!.cost.v1).toBeCloseTo(costOf(run!.tokens.v1, PRICE, { batch: true }), 9);
  });

  it('a reply still broken after its repair fails the memory; the run counts both calls it paid for', async () => {
    const memories = Array.from({ length: 10 }, (_, i) => ({
      id: `b${i}`,
      ageDays: 4,
      marker: i === 3 ? 'BROKEN' : '',
    }));
    const services = await setUp('anthropic', memories, { maxRequests: 100 });
    emulator!.setRule(({ body }) =>
      JSON.stringify(body).includes('BROKEN') ? { kind: 'schema' } : undefined,
    );
    const { produce, submit, poll } = steps(services, harness!.config);
    await produce('broken');
    await submit('broken', 0);
    await poll('broken', 0);
    const run = await services.runs.get('broken');
    expect(run?.counts).toMatchObject({ enqueued: 10, processed: 10, v1: 9, failed: 1 });
    const docs = await services.models.memories.collection.find({}).toArray();
    const kept = docs.reduce((n, d) => n + (d.compression?.v1?.usage.outputTokens ?? 0), 0);
    // The broken memory's batch line and its sync repair are in the run's tokens, beyond what was kept.
    expect(run!.tokens.v1.outputTokens).toBeGreaterThan(kept);
    expect(run!.cost.v1).toBeGreaterThan(costOf(run!.tokens.v1, PRICE, { batch: true }));
  });

  it('a repair the provider refuses for good (HTTP 400) fails its memory alone; the poll goes on', async () => {
    const memories = Array.from({ length: 10 }, (_, i) => ({
      id: `p${i}`,
      ageDays: 4,
      marker: i === 6 ? 'REFUSED' : '',
    }));
    const services = await setUp('anthropic', memories, { maxRequests: 100 });
    // The memory's batch line breaks the schema; the sync repair turn it then needs gets a 400.
    let asked = 0;
    emulator!.setRule(({ body }) => {
      if (!JSON.stringify(body).includes('REFUSED')) return undefined;
      return asked++ === 0 ? { kind: 'schema' } : { kind: 'status', status: 400, message: 'bad request' };
    });
    const { produce, submit, poll } = steps(services, harness!.config);
    await produce('refused');
    await submit('refused', 0);
    // Retrying the poll cannot change the provider's answer: the memory fails, the others are applied.
    expect(await poll('refused', 0)).toEqual({ open: 0 });
    expect(asked).toBe(2);
    const failed = await services.models.memories.collection.findOne({ memoryId: 'p6' });
    expect(failed?.compression?.lastError).toMatchObject({
      stage: 'v1',
      message: expect.stringMatching(/400/),
    });
    const run = await services.runs.get('refused');
    expect(run?.counts).toMatchObject({ enqueued: 10, processed: 10, v1: 9, failed: 1 });
  });

  it('a memory that became bad input while its request was in a batch fails with its reason; the poll goes on', async () => {
    const memories = Array.from({ length: 10 }, (_, i) => ({ id: `r${i}`, ageDays: 4 }));
    const services = await setUp('anthropic', memories, { maxRequests: 100 });
    const { produce, submit, poll } = steps(services, harness!.config);
    await produce('bad');
    await submit('bad', 0);
    // The product breaks three memories meanwhile: their content is no conversation any more.
    await services.models.memories.collection.updateMany(
      { memoryId: { $in: ['r1', 'r5', 'r9'] } },
      { $set: { 'content.raw': 42 } },
    );
    expect(await poll('bad', 0)).toEqual({ open: 0 });
    const docs = await services.models.memories.collection
      .find({ 'compression.lastError': { $exists: true } })
      .toArray();
    expect(docs.map((d) => [d.memoryId, d.compression.lastError.stage]).sort()).toEqual([
      ['r1', 'input'],
      ['r5', 'input'],
      ['r9', 'input'],
    ]);
    const run = await services.runs.get('bad');
    expect(run?.counts).toMatchObject({ enqueued: 10, processed: 10, v1: 7, failed: 3 });
  });
});
