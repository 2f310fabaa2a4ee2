import { forget, sweepPage } from '@memfade/app';
import { type Memory, sourceHash } from '@memfade/core';
import { F, insertMemories } from '@memfade/db';
import { compressJobId } from '@memfade/queue';
import { generateDemoData } from '@memfade/samples';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { night, textsInFolder } from './erasure-night.js';
import { erasureDeps, type Harness, startHarness, startReplica } from './harness.js';

const NOW = new Date('2026-11-22T03:00:00Z');
const ZH = 'demo-zh-1';
const EN = 'demo-en-2';

const memoriesOf = async (harness: Harness, userId: string) =>
  (await harness.services.models.memories
    .find({ userId })
    .sort({ memoryId: 1 })
    .lean()) as unknown as Memory[];

/** The product deletes the memory and inserts another under its id: rev 0, below its record's. */
async function insertAgain({ services }: Harness, id: string): Promise<void> {
  const doc = await services.models.memories.collection.findOne({ memoryId: id });
  await services.models.memories.collection.deleteOne({ memoryId: id });
  const { compression: _stages, vectorSync: _sync, ...product } = doc!;
  await services.models.memories.collection.insertOne({
    ...product,
    rev: 0,
    meta: { ...product.meta, compressionStage: 'raw' },
    content: { raw: [{ role: 'user', text: 'A different conversation under the same id.' }] },
  });
}

// docs/design.md invariant 8 on every adapter: what the product deleted or changed, or what a user asked to
// forget, leaves no vector record and no stage result behind.
describe.each(['lancedb', 'pgvector', 'mongodb'] as const)('erasure with VECTOR_STORE=%s', (kind) => {
  let harness: Harness;

  beforeAll(async () => {
    harness = await startHarness({ now: NOW, vectorStore: kind });
    const data = generateDemoData({ now: NOW, users: 2 });
    await insertMemories(harness.services.models, data.memories, data.roleCards);
    await night(harness, `erasure-${kind}`, NOW);
  }, 90_000);
  afterAll(async () => harness?.close());

  it('the sweep deletes the records of memories the product deleted, and only those', async () => {
    const { services } = harness;
    const gone = [`${EN}-d1`, `${EN}-d5`, `${EN}-d9`];
    expect(await services.vectors.get(gone)).toHaveLength(3);
    await services.models.memories.deleteMany({ memoryId: { $in: gone } });
    const before = await services.vectors.count();
    // Page by page, as the worker's interval runs it (pages of 4 here): every record is reached.
    const deps = erasureDeps(harness, NOW);
    let swept = 0;
    let pages = 0;
    for (let after: string | undefined, done = false; !done; pages++) {
      const { counts, last } = await sweepPage(deps, { after, limit: 4 });
      swept += counts.gone;
      after = last;
      done = last === undefined;
    }
    expect(swept).toBe(3);
    expect(pages).toBe(Math.ceil(before / 4) + 1);
    // The worker's own sweep goes on from where it stopped, and starts over after the last page.
    expect((await services.vectorSync.sweepNext()).checked).toBe(before - 3);
    // Replicas share the cursor (compression_state): another worker goes on where this one stopped
    // (the end of the store, here), and the next sweep of either starts over.
    const other = await startReplica(harness, NOW);
    try {
      expect((await other.vectorSync.sweepNext()).checked).toBe(0);
    } finally {
      await other.close();
    }
    expect((await services.vectorSync.sweepNext()).checked).toBe(before - 3);
    expect((await services.vectorSync.sweepNext()).checked).toBe(0);
    expect(await services.vectors.get(gone)).toEqual([]);
    expect(await services.vectors.count()).toBe(before - 3);
    expect((await services.vectorSync.sweepAll()).gone).toBe(0);
  });

  it('a memory edited after its last stage loses its stale text everywhere and is compressed again from its new text', async () => {
    const { services } = harness;
    const id = `${EN}-d8`;
    const [old] = await memoriesOf(harness, EN).then((all) => all.filter((m) => m.memoryId === id));
    expect(old?.meta.compressionStage).toBe('v2');
    const oldCore = old!.compression!.v2!.coreMemory;
    // The product redacts the conversation (it does not touch memfade's fields or rev).
    const raw = [
      { role: 'user', text: 'We planned the garden together: tomatoes by the fence, herbs near the door.' },
      { role: 'assistant', text: 'That sounds lovely. Which herbs are you most looking forward to?' },
      { role: 'user', text: 'Basil and mint, mostly. I want to make tea from the mint every morning.' },
    ];
    await services.models.memories.updateOne({ memoryId: id }, { $set: { 'content.raw': raw } });
    const swept = await services.vectorSync.sweepAll();
    expect(swept).toMatchObject({ restaged: 1, gone: 0 });
    const [back] = (await services.models.memories.find({ memoryId: id }).lean()) as unknown as Memory[];
    expect(back?.meta.compressionStage).toBe('raw');
    expect(back?.compression?.v1).toBeUndefined();
    expect(back?.compression?.v2).toBeUndefined();
    expect(JSON.stringify(back)).not.toContain(oldCore);
    // The record held the stale V2 text: gone at once, then the raw text's from the outbox (a drain
    // may already have written it: never the stale text).
    for (const record of await services.vectors.get([id]))
      expect(record).toMatchObject({ stage: 'raw', text: expect.stringContaining('mint') });
    await services.vectorSync.drain();
    expect((await services.vectors.get([id]))[0]).toMatchObject({
      stage: 'raw',
      text: expect.stringContaining('mint'),
    });
    // The next night compresses it again, from the new text.
    await night(harness, `erasure-${kind}-again`, NOW);
    const [again] = (await services.models.memories.find({ memoryId: id }).lean()) as unknown as Memory[];
    expect(again?.meta.compressionStage).toBe('v2');
    expect(again?.compression?.v2?.sourceHash).toBe(sourceHash(again!));
    const [record] = await services.vectors.get([id]);
    expect(record).toMatchObject({ stage: 'v2', text: again!.compression!.v2!.coreMemory });
  });

  it('a raw memory the product redacted gets its record rewritten: the old text is not kept', async () => {
    const { services } = harness;
    const id = `${EN}-d0`;
    expect((await services.vectors.get([id]))[0]?.text).toContain('user:');
    await services.models.memories.updateOne(
      { memoryId: id },
      {
        $set: { 'content.raw': [{ role: 'user', text: 'Only this sentence is left after the redaction.' }] },
      },
    );
    expect(await services.vectorSync.sweepAll()).toMatchObject({ outdated: 1, gone: 0, restaged: 0 });
    await services.vectorSync.drain();
    expect((await services.vectors.get([id]))[0]?.text).toBe(
      'user: Only this sentence is left after the redaction.',
    );
  });

  it('a drain between the sweep reading an outdated record and deleting it keeps the record it wrote: never a moment without one', async () => {
    const { services } = harness;
    const id = `${ZH}-d0`;
    expect((await services.vectors.get([id]))[0]).toMatchObject({ stage: 'raw' });
    await services.models.memories.updateOne(
      { memoryId: id },
      { $set: { 'content.raw': [{ role: 'user', text: '只剩下这一句话了。' }] } },
    );
    const ids = await services.vectors.listIds({ limit: 10_000 });
    const page = { after: ids[ids.indexOf(id) - 1], limit: 1 };
    // Another worker's drain runs just before the delete: it writes the redacted text's record.
    const deleteUnchanged = services.vectors.deleteUnchanged;
    services.vectors.deleteUnchanged = async (records) => {
      services.vectors.deleteUnchanged = deleteUnchanged;
      await services.vectorSync.drain();
      return deleteUnchanged.call(services.vectors, records);
    };
    expect((await sweepPage(erasureDeps(harness, NOW), page)).counts).toMatchObject({
      checked: 1,
      outdated: 1,
    });
    // No drain since the sweep: the record the other worker wrote is still there.
    expect((await services.vectors.get([id]))[0]).toMatchObject({ text: 'user: 只剩下这一句话了。' });
  });

  it('keeps a record another worker synced after the sweep read its memory, and removes one a deleted memory inserted again under its id left', async () => {
    const { services } = harness;
    const deps = erasureDeps(harness, NOW);
    const [memory] = (await memoriesOf(harness, EN)).filter((m) => m.meta.compressionStage === 'v2');
    const id = memory!.memoryId;
    const v2Text = `${F.compression}.v2.coreMemory`;
    const ids = await services.vectors.listIds({ limit: 10_000 });
    const page = { after: ids[ids.indexOf(id) - 1], limit: 1 };
    expect(await services.vectors.listIds(page)).toEqual([id]);
    // Between the sweep's read of the memory and its read of the record, another worker writes a
    // newer stage text and syncs its record: the sweep's memory is the stale one, not the record.
    const get = services.vectors.get;
    services.vectors.get = async (ids) => {
      services.vectors.get = get;
      await services.models.memories.updateOne(
        { memoryId: id },
        {
          $set: { [v2Text]: 'A newer core memory.', [F.vectorPending]: true, [F.vectorHash]: 'newer' },
          $inc: { [F.rev]: 1 },
        },
      );
      await services.vectorSync.drain();
      return get.call(services.vectors, ids);
    };
    expect((await sweepPage(deps, page)).counts).toMatchObject({ checked: 1, outdated: 0, gone: 0 });
    expect((await services.vectors.get([id]))[0]).toMatchObject({ text: 'A newer core memory.' });
    expect(await services.models.memories.countDocuments({ [F.vectorPending]: true })).toBe(0);

    await insertAgain(harness, id);
    expect((await sweepPage(deps, page)).counts).toMatchObject({ checked: 1, outdated: 1 });
    expect(await services.vectors.get([id])).toEqual([]);
    await services.vectorSync.drain();
    expect((await services.vectors.get([id]))[0]).toMatchObject({ stage: 'raw', rev: 0 });
  });

  it('a drain that read a memory inserted again before the sweep deleted its record does not clear the flag the sweep set after it', async () => {
    const { services } = harness;
    const [, memory] = (await memoriesOf(harness, EN)).filter((m) => m.meta.compressionStage === 'v2');
    const id = memory!.memoryId;
    await insertAgain(harness, id);
    const ids = await services.vectors.listIds({ limit: 10_000 });
    const page = { after: ids[ids.indexOf(id) - 1], limit: 1 };
    // Another worker's drain reads the memory the sweep has flagged and writes its record (refused:
    // the stored one has a higher rev) before the sweep's delete, and clears its flag only after
    // the sweep has flagged it again.
    let wrote!: () => void;
    const written = new Promise<void>((resolve) => (wrote = resolve));
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const upsert = services.vectors.upsert;
    services.vectors.upsert = async (records) => {
      services.vectors.upsert = upsert;
      await upsert.call(services.vectors, records);
      wrote();
      await released;
    };
    let other: Promise<number> | undefined;
    const deleteUnchanged = services.vectors.deleteUnchanged;
    services.vectors.deleteUnchanged = async (records) => {
      services.vectors.deleteUnchanged = deleteUnchanged;
      other = services.vectorSync.drain();
      await written;
      return deleteUnchanged.call(services.vectors, records);
    };
    expect((await sweepPage(erasureDeps(harness, NOW), page)).counts).toMatchObject({
      checked: 1,
      outdated: 1,
    });
    release();
    await other;
    expect(await services.vectors.get([id])).toEqual([]);
    await services.vectorSync.drain();
    expect((await services.vectors.get([id]))[0]).toMatchObject({ stage: 'raw', rev: 0 });
  });

  it("forget --user leaves nothing of the user's derived data in any store, with a receipt of each place, and the product's content as it was", async () => {
    const { services } = harness;
    const before = await memoriesOf(harness, ZH);
    const counts = { vectorRecords: before.length, memories: before.length, runErrors: 0 };
    expect(await services.erasure.forget({ userId: ZH }, { dryRun: true })).toEqual({
      ...counts,
      receipt: [],
      failures: [],
    });
    expect(await services.vectors.listIds({ userId: ZH })).toHaveLength(before.length);
    // The user's V1 and V2 texts: in LanceDB's folder, in the current records and older versions.
    const texts = before.flatMap((m) => [
      m.compression?.v1?.compressedContent,
      m.compression?.v2?.coreMemory,
    ]);
    const derived = texts.filter((t): t is string => Boolean(t));
    expect(derived.length).toBeGreaterThan(before.length);
    if (kind === 'lancedb') expect(await textsInFolder(harness.config.vector.dir, derived)).not.toEqual([]);

    const report = await services.erasure.forget({ userId: ZH }, { dryRun: false });
    expect(report).toMatchObject({ ...counts, failures: [] });
    expect(report.receipt.map((e) => [e.place, e.status])).toEqual([
      ['stage results (MongoDB)', 'clean'],
      ['run errors (MongoDB)', 'clean'],
      ['vector records', 'clean'],
      ['vector store history', 'clean'],
      ['compress jobs (Redis)', 'clean'],
      // Sync mode: no batch request of these memories on record (or, without the batch side, not checked).
      ['batch requests in flight', expect.stringMatching(/^(clean|not checked)$/)],
      ['provider batch files', expect.stringMatching(/^(clean|not checked)$/)],
    ]);
    const entry = (place: string) => report.receipt.find((e) => e.place === place)!;
    expect(entry('vector records').detail).toBe(`removed ${before.length} records`);
    expect(entry('vector store history').kept).toEqual(
      { lancedb: undefined, pgvector: expect.stringMatching(/WAL/), mongodb: expect.stringMatching(/oplog/) }[
        kind
      ],
    );
    expect(entry('compress jobs (Redis)').detail).toMatch(/^removed [1-9]\d* finished jobs/);
    for (const m of before)
      for (const target of ['v1', 'v2'] as const)
        expect(await services.queues.compress.getJob(compressJobId(m.memoryId, target))).toBeUndefined();
    // No copy of the user's texts left in any file of the folder, whatever version it belonged to.
    if (kind === 'lancedb') expect(await textsInFolder(harness.config.vector.dir, derived)).toEqual([]);

    expect(await services.vectors.listIds({ userId: ZH })).toEqual([]);
    expect(await services.vectors.get(before.map((m) => m.memoryId))).toEqual([]);
    const after = await memoriesOf(harness, ZH);
    expect(after.map((m) => m.content)).toEqual(before.map((m) => m.content));
    for (const memory of after) {
      expect(memory.compression).toBeUndefined();
      expect(memory.vectorSync).toBeUndefined();
      expect((memory as unknown as Record<string, unknown>).memfadeLastError).toBeUndefined();
      expect(memory.meta.compressionStage).toBe('raw');
    }
    // The other user's records and stages are untouched.
    expect((await services.vectors.listIds({ userId: EN })).length).toBeGreaterThan(0);
    expect((await memoriesOf(harness, EN)).some((m) => m.compression?.v2)).toBe(true);
    const again = await services.erasure.forget({ userId: ZH }, { dryRun: false });
    expect(again).toMatchObject({ vectorRecords: 0, memories: 0, runErrors: 0, failures: [] });
    expect(again.receipt.find((e) => e.place === 'compress jobs (Redis)')?.detail).toMatch(/^removed 0 /);
  });

  it('reports what could not be removed, and the places it could', async () => {
    const { services } = harness;
    const store = services.vectors;
    const remove = store.delete;
    store.delete = async () => {
      throw new Error('store unreachable');
    };
    try {
      const report = await services.erasure.forget({ userId: EN }, { dryRun: false });
      expect(report.failures).toEqual([
        expect.stringMatching(/^vector records: not removed: store unreachable; [1-9]\d* left$/),
      ]);
      expect(report.receipt.find((e) => e.place === 'vector records')?.status).toBe('left');
      expect(report.receipt.find((e) => e.place === 'stage results (MongoDB)')?.status).toBe('clean');
    } finally {
      store.delete = remove;
    }
    expect((await services.erasure.forget({ userId: EN }, { dryRun: false })).failures).toEqual([]);
    expect(await services.vectors.listIds({ userId: EN })).toEqual([]);
  });

  it('says which places it did not check and why, and does not fail for them', async () => {
    // No queue and no batch side wired in: as a caller without them gets it.
    const deps = erasureDeps(harness, NOW);
    const report = await forget(deps, { userId: EN }, { dryRun: false });
    expect(report.failures).toEqual([]);
    expect(
      report.receipt.filter((e) => e.status === 'not checked').map((e) => `${e.place}: ${e.detail}`),
    ).toEqual([
      'compress jobs (Redis): no queue connected',
      'batch requests in flight: batch mode off',
      'provider batch files: batch mode off',
    ]);
  });
});
