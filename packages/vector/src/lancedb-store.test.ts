import type { VectorRecord } from '@memfade/core';
import { tempDir } from '@memfade/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LanceDbVectorStore } from './lancedb-store.js';

const DIM = 8;
let folder: Awaited<ReturnType<typeof tempDir>>;
let store: LanceDbVectorStore;

function record(id: string, vector: number[], extra: Partial<VectorRecord> = {}): VectorRecord {
  return {
    id,
    userId: 'u1',
    partnerId: 'p1',
    stage: 'v1',
    text: `text of ${id}`,
    vector,
    embeddingModel: 'test-model',
    updatedAt: new Date('2026-11-22T03:00:00Z'),
    ...extra,
  };
}
const unit = (i: number) => Array.from({ length: DIM }, (_, k) => (k === i ? 1 : 0));

beforeEach(async () => {
  folder = await tempDir('memfade-lance-');
  store = await LanceDbVectorStore.open({ dir: folder.dir, dimensions: DIM, embeddingModel: 'test-model' });
});
afterEach(async () => {
  await store.close();
  await folder.remove();
});

describe('LanceDbVectorStore', () => {
  it('upserts by id: the latest text wins and no duplicate appears', async () => {
    await store.upsert([record("it's-1", unit(0))]);
    await store.upsert([record("it's-1", unit(1), { text: '新的文本', stage: 'v2' })]);
    expect(await store.count()).toBe(1);
    const [got] = await store.get(["it's-1"]);
    expect(got).toMatchObject({ id: "it's-1", text: '新的文本', stage: 'v2', vector: unit(1) });
    expect(got?.updatedAt.toISOString()).toBe('2026-11-22T03:00:00.000Z');
  });

  it('writes a batch of 500 in one merge and finds each', async () => {
    await store.upsert(Array.from({ length: 500 }, (_, i) => record(`m${i}`, unit(i % DIM))));
    expect(await store.count()).toBe(500);
    const got = await store.get(['m0', 'm499', 'missing']);
    expect(got.map((r) => r.id).sort()).toEqual(['m0', 'm499']);
  });

  it('ranks the nearest vector first and filters by user', async () => {
    await store.upsert([record('a', unit(0)), record('b', unit(1)), record('c', unit(1), { userId: 'u2' })]);
    expect((await store.search(unit(1), { limit: 3 }))[0]?.id).toMatch(/^[bc]$/);
    expect((await store.search(unit(1), { userId: 'u2', limit: 3 })).map((r) => r.id)).toEqual(['c']);
  });

  it('refuses a vector of the wrong size, with the reindex command', async () => {
    await expect(store.upsert([record('x', [1, 2, 3])])).rejects.toThrow(
      /3 dimensions, the store expects 8.*memfade reindex --all/,
    );
  });

  it('keeps data across reopening, and refuses to open with another embedder', async () => {
    await store.upsert([record('kept', unit(2))]);
    await store.close();
    store = await LanceDbVectorStore.open({ dir: folder.dir, dimensions: DIM, embeddingModel: 'test-model' });
    expect(await store.count()).toBe(1);
    await expect(
      LanceDbVectorStore.open({ dir: folder.dir, dimensions: 16, embeddingModel: 'test-model' }),
    ).rejects.toThrow(/holds 8-dimension vectors from 'test-model'.*16 dimensions/);
  });
});
