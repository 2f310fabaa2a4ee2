import { HashingEmbedder } from '@memfade/ai';
import { createLogger } from '@memfade/runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateDemoData } from './demo-data.js';
import { insertMemories } from './memory-docs.js';
import { type Harness, startHarness } from './test-harness.js';
import { VectorSyncer } from './vector-sync.js';

const NOW = new Date('2026-11-22T03:00:00Z');

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
    const broken = new VectorSyncer({
      models: services.models,
      embedder: new HashingEmbedder(16),
      store: services.vectors,
      logger: createLogger({ level: 'silent' }),
      batchSize: 8,
      now: () => NOW,
    });
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
});
