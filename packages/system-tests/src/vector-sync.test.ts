import { HashingEmbedder } from '@memfade/ai';
import { createServices, enqueueRun, type Services, startWorkerRole, VectorSyncer } from '@memfade/app';
import type { VectorRecord, VectorStore } from '@memfade/core';
import { insertMemories } from '@memfade/db';
import { vectorWriteLock } from '@memfade/queue';
import { createLogger } from '@memfade/runtime';
import { generateDemoData } from '@memfade/samples';
import { until } from '@memfade/testing';
import { createVectorStore } from '@memfade/vector';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from './harness.js';

const NOW = new Date('2026-11-22T03:00:00Z');

/** Another syncer on the harness's database and embedder (and store, unless given). */
function syncerBeside(
  services: Services,
  overrides: Partial<ConstructorParameters<typeof VectorSyncer>[0]>,
): VectorSyncer {
  return new VectorSyncer({
    models: services.models,
    memories: services.store,
    embedder: services.embedder,
    store: services.vectors,
    logger: createLogger({ level: 'silent' }),
    batchSize: 256,
    now: () => NOW,
    ...overrides,
  });
}

describe('vector outbox', () => {
  let harness: Harness;
  beforeAll(async () => {
    harness = await startHarness({ now: NOW });
    const data = generateDemoData({ now: NOW, users: 2 });
    await insertMemories(harness.services.models, data.memories, data.roleCards);
  });
  afterAll(async () => harness?.close());

  it('keeps every flag set when the upsert fails, and clears them once it succeeds', async () => {
    const { services } = harness;
    const pending = () => services.models.memories.countDocuments({ 'vectorSync.pending': true });
    const total = await pending();
    expect(total).toBe(22);
    // An embedder of another size makes the real store refuse the batch.
    const broken = syncerBeside(services, { embedder: new HashingEmbedder(16), batchSize: 8 });
    await expect(broken.drain()).rejects.toThrow(/has 16 dimensions, but the vector table .* expects 256/);
    expect(await pending()).toBe(total);
    expect(await services.vectors.count()).toBe(0);

    expect(await services.vectorSync.drain()).toBe(total);
    expect(await pending()).toBe(0);
    expect(await services.vectors.count()).toBe(total);
  });

  it("gives each record its memory's rev, so a late sync of an older write cannot replace it", async () => {
    const { services } = harness;
    const memoryId = 'demo-zh-1-d5';
    await services.models.memories.updateOne(
      { memoryId },
      { $set: { rev: 7, 'vectorSync.pending': true }, $unset: { 'vectorSync.textHash': 1 } },
      { strict: false },
    );
    await services.vectorSync.drain();
    const [record] = await services.vectors.get([memoryId]);
    expect(record?.rev).toBe(7);
    // What a slower worker that read the memory at rev 6 would write now: it must not win.
    await services.vectors.upsert([{ ...record!, rev: 6, text: 'stale' }]);
    expect((await services.vectors.get([memoryId]))[0]?.text).toBe(record?.text);
  });

  it("waits for a batch's worth of transitions before it writes, then writes them in one go", async () => {
    const { services } = harness;
    const pending = () => services.models.memories.countDocuments({ 'vectorSync.pending': true });
    await services.models.memories.updateMany(
      { memoryId: { $in: ['demo-zh-1-d5', 'demo-zh-1-d6', 'demo-zh-1-d7'] } },
      { $set: { 'vectorSync.pending': true }, $unset: { 'vectorSync.textHash': 1 } },
      { strict: false },
    );
    const written: number[] = [];
    // The real store, its writes counted.
    const store: VectorStore = Object.assign(Object.create(services.vectors), {
      upsert: async (records: VectorRecord[]) => {
        written.push(records.length);
        await services.vectors.upsert(records);
      },
    });
    // A delay no test waits for: only the count can start this drain.
    const syncer = syncerBeside(services, { store, batchSize: 3, flushDelayMs: 600_000 });
    syncer.notify();
    syncer.notify();
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(written).toEqual([]);
    expect(await pending()).toBe(3);
    syncer.notify();
    await until(async () => (await pending()) === 0);
    expect(written).toEqual([3]);
    await syncer.stop();
  });
});

describe('VECTOR_SYNC_ENABLED', () => {
  let harness: Harness;
  afterAll(async () => harness?.close());

  it('a replica with it off writes stages but not vectors; one with it on syncs what that replica left', async () => {
    const config = { vectorSync: { enabled: false, batchSize: 256, intervalMs: 20 } };
    harness = await startHarness({ now: NOW, config });
    const { services } = harness;
    const data = generateDemoData({ now: NOW, users: 2 });
    await insertMemories(services.models, data.memories, data.roleCards);
    const pending = () => services.models.memories.countDocuments({ 'vectorSync.pending': true });
    // Already indexed, so what is pending afterwards is what this run's stage writes flagged.
    await services.models.memories.updateMany(
      {},
      { $set: { 'vectorSync.pending': false } },
      { strict: false },
    );

    const quiet = startWorkerRole(services);
    const runId = await enqueueRun(services, { trigger: 'manual', asOf: NOW });
    await until(async () => Boolean((await services.runs.get(runId))?.finishedAt));
    await quiet.close();
    const { counts } = (await services.runs.get(runId))!;
    expect(counts.v1 + counts.v2).toBeGreaterThan(0);
    const flagged = await pending();
    expect(flagged).toBeGreaterThan(0);
    expect(await services.vectors.count()).toBe(0);

    const syncing = await createServices(
      { ...harness.config, vectorSync: { ...config.vectorSync, enabled: true } },
      { logger: createLogger({ level: 'silent' }), now: () => NOW },
    );
    const writer = startWorkerRole(syncing);
    await until(async () => (await pending()) === 0);
    await writer.close();
    expect(await syncing.vectors.count()).toBe(flagged);
    await syncing.close();
  }, 60_000);
});

describe('two processes syncing one vector folder', () => {
  let harness: Harness;
  afterAll(async () => harness?.close());

  it('write each memory once, however their drains overlap (the Redis lock serialises the merges)', async () => {
    harness = await startHarness({ now: NOW });
    const { services, config } = harness;
    const data = generateDemoData({ now: NOW, users: 2 });
    await insertMemories(services.models, data.memories, data.roleCards);
    // A second handle on the same folder, as a second worker process has.
    const otherStore = await createVectorStore({
      kind: 'lancedb',
      dir: config.vector.dir,
      dimensions: services.embedder.dimensions,
      embeddingModel: services.embedder.model,
    });
    const other = syncerBeside(services, {
      store: otherStore,
      exclusive: vectorWriteLock(services.redis, config.queuePrefix),
    });
    try {
      // Both read the same pending memories, none of them in the store yet, and both write them.
      await Promise.all([services.vectorSync.drain(), other.drain()]);
    } finally {
      await otherStore.close();
    }
    const ids = data.memories.map((m) => m.memoryId as string);
    expect(await services.vectors.count()).toBe(ids.length);
    expect((await services.vectors.get(ids)).length).toBe(ids.length);
  });
});
