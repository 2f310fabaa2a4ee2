/**
 * The one conformance suite every vector adapter runs (docs/design.md §7): what the vector sync,
 * the erasure sweep and `memfade forget` rely on, asserted the same way on LanceDB, pgvector and
 * MongoDB. Each adapter's test file calls describeVectorStoreConformance with a way to open its store.
 * Not compiled into dist (tsconfig excludes it): it is test code.
 */
import type { VectorRecord, VectorStore } from '@memfade/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { compareIds } from './store-spec.js';

export const DIM = 8;
export const MODEL = 'test-model';

export interface ConformanceTarget {
  /** A place no other test uses: a folder, a table or a collection name. */
  newPlace(): string | Promise<string>;
  open(place: string, options: { dimensions: number; embeddingModel: string }): Promise<VectorStore>;
  /** Removes what a test left, where the server outlives the test. */
  removePlace?(place: string): Promise<void>;
  /**
   * Whether two handles may insert the same new ids at the same moment. Not LanceDB: two merges
   * inserting one new id both insert it, which is why its writers take turns through the vector
   * write lock. Updates of existing ids from two handles are checked on every adapter.
   */
  concurrentInserts: boolean;
  /** Whether search runs here (not MongoDB on the test wire server: no `$vectorSearch`). */
  search: boolean;
}

export function record(id: string, vector: number[], extra: Partial<VectorRecord> = {}): VectorRecord {
  return {
    id,
    userId: 'u1',
    partnerId: 'p1',
    stage: 'v1',
    text: `text of ${id}`,
    vector,
    embeddingModel: MODEL,
    updatedAt: new Date('2026-11-22T03:00:00Z'),
    rev: 1,
    ...extra,
  };
}

export const unit = (i: number) => Array.from({ length: DIM }, (_, k) => (k === i ? 1 : 0));

function expectVectorClose(actual: number[] | undefined, expected: number[]): void {
  expect(actual).toHaveLength(expected.length);
  // LanceDB and pgvector store float32: equal to about 7 significant digits.
  for (const [i, value] of expected.entries()) expect(actual?.[i]).toBeCloseTo(value, 6);
}

/** Every id of the store, walked page by page as the erasure sweep does. */
async function walkIds(store: VectorStore, options: { userId?: string; limit: number }): Promise<string[]> {
  const ids: string[] = [];
  for (;;) {
    const page = await store.listIds({ ...options, after: ids.at(-1) });
    expect(page.length).toBeLessThanOrEqual(options.limit);
    ids.push(...page);
    if (page.length < options.limit) return ids;
  }
}

export function describeVectorStoreConformance(name: string, target: ConformanceTarget): void {
  describe(`${name} (vector store conformance)`, () => {
    let place: string;
    let store: VectorStore;
    const others: VectorStore[] = [];
    const open = async (options: { dimensions?: number; embeddingModel?: string } = {}) => {
      const opened = await target.open(place, { dimensions: DIM, embeddingModel: MODEL, ...options });
      others.push(opened);
      return opened;
    };

    beforeEach(async () => {
      place = await target.newPlace();
      store = await open();
    });
    afterEach(async () => {
      for (const opened of others.splice(0)) await opened.close();
      await target.removePlace?.(place);
    });

    it('finds nothing before the first write', async () => {
      expect(await store.count()).toBe(0);
      expect(await store.get(['m1'])).toEqual([]);
      expect(await store.listIds()).toEqual([]);
      expect(await store.delete(['m1'])).toBe(0);
      expect(await store.deleteByUser('u1')).toBe(0);
      expect((await store.purgeDeleted()).removed).toEqual(expect.any(String));
      await store.upsert([]);
      expect(await store.count()).toBe(0);
    });

    it('returns what was upserted: text, stage, ids, date and vector; unknown ids left out, order kept', async () => {
      const vector = [0.1, -0.333333, 0.5, 1e-3, -0.75, 0.2, 0.123456, -1];
      const updatedAt = new Date('2026-11-21T10:11:12.345Z');
      await store.upsert([
        record('m1', vector, { stage: 'v2', text: '核心记忆 and text', partnerId: 'p9', updatedAt, rev: 7 }),
        record('m2', unit(1)),
      ]);
      const got = await store.get(['m2', 'missing', 'm1', 'm2']);
      expect(got.map((r) => r.id)).toEqual(['m2', 'm1']);
      expect(got[1]).toMatchObject({
        id: 'm1',
        userId: 'u1',
        partnerId: 'p9',
        stage: 'v2',
        text: '核心记忆 and text',
        embeddingModel: MODEL,
        rev: 7,
      });
      expect(got[1]?.updatedAt.toISOString()).toBe('2026-11-21T10:11:12.345Z');
      expectVectorClose(got[1]?.vector, vector);
      expect(await store.count()).toBe(2);
    });

    it('replaces a record of an equal or lower rev; within a batch the last of equal revs wins', async () => {
      await store.upsert([record('m1', unit(0), { text: 'first' })]);
      await store.upsert([record('m1', unit(1), { text: 'same rev, later', stage: 'v2' })]);
      expect(await store.get(['m1'])).toMatchObject([
        { text: 'same rev, later', stage: 'v2', vector: unit(1) },
      ]);
      await store.upsert([record('m2', unit(2), { text: 'old' }), record('m2', unit(3), { text: 'new' })]);
      await store.upsert([
        record('m1', unit(4), { text: 'x', rev: 2 }),
        record('m1', unit(5), { text: 'y', rev: 2 }),
      ]);
      expect(await store.count()).toBe(2);
      expect((await store.get(['m1', 'm2'])).map((r) => [r.text, r.rev])).toEqual([
        ['y', 2],
        ['new', 1],
      ]);
    });

    it('never lets an older rev replace a newer one, across batches or within one', async () => {
      // Two workers synced the same memory; the one that read it at V1 finishes last.
      await store.upsert([record('m1', unit(1), { stage: 'v2', text: 'core memory', rev: 4 })]);
      await store.upsert([
        record('m1', unit(0), { stage: 'v1', text: 'key points', rev: 2 }),
        record('m3', unit(3)),
      ]);
      await store.upsert([record('m2', unit(3), { stage: 'v2', rev: 6 }), record('m2', unit(2), { rev: 5 })]);
      expect(await store.get(['m1', 'm2', 'm3'])).toMatchObject([
        { stage: 'v2', text: 'core memory', rev: 4, vector: unit(1) },
        { stage: 'v2', rev: 6, vector: unit(3) },
        { id: 'm3', rev: 1 },
      ]);
      // A rollback is a newer write: its record replaces the V2 one.
      await store.upsert([record('m1', unit(0), { stage: 'v1', text: 'key points', rev: 5 })]);
      expect(await store.get(['m1'])).toMatchObject([{ stage: 'v1', rev: 5 }]);
      expect(await store.count()).toBe(3);
    });

    it('writes 1000 records in one call and lists them all page by page, each once', async () => {
      const ids = Array.from({ length: 1000 }, (_, i) => `m${i}`);
      await store.upsert(ids.map((id, i) => record(id, unit(i % DIM), { userId: `u${i % 3}` })));
      expect(await store.count()).toBe(1000);
      expect((await store.get(['m999', 'm0', 'm500'])).map((r) => r.id)).toEqual(['m999', 'm0', 'm500']);
      expect(await walkIds(store, { limit: 300 })).toEqual([...ids].sort(compareIds));
      expect(await walkIds(store, { userId: 'u1', limit: 100 })).toEqual(
        ids.filter((_, i) => i % 3 === 1).sort(compareIds),
      );
      expect(await store.listIds()).toHaveLength(1000);
    });

    it('deletes by id: counts only records that existed, and they are gone from get, listIds and count', async () => {
      await store.upsert(['a', 'b', 'c', "it's"].map((id, i) => record(id, unit(i))));
      expect(await store.delete(['b', 'missing', "it's", 'b', "x' OR '1'='1"])).toBe(2);
      expect(await store.get(['a', 'b', 'c', "it's"])).toMatchObject([{ id: 'a' }, { id: 'c' }]);
      expect(await store.listIds()).toEqual(['a', 'c']);
      expect(await store.count()).toBe(2);
      expect(await store.delete(['b'])).toBe(0);
      expect(await store.delete([])).toBe(0);
      // A deleted memory that is synced again comes back (the sweep deletes only what is gone from MongoDB).
      await store.upsert([record('b', unit(5), { rev: 1 })]);
      expect(await store.listIds()).toEqual(['a', 'b', 'c']);
    });

    it('deletes a record only while it holds the text it was read with: one written since stays', async () => {
      await store.upsert([
        record('a', unit(0), { text: "what a's memory said, it's old" }),
        record('b', unit(1)),
        record('c', unit(2)),
      ]);
      const read = await store.get(['a', 'b']);
      // A drain writes b's current text after the sweep read it.
      await store.upsert([record('b', unit(1), { text: 'b, as the memory reads now', rev: 2 })]);
      expect(await store.deleteUnchanged([...read, { id: 'missing', text: 'x' }])).toBe(1);
      expect(await store.get(['a', 'b', 'c'])).toMatchObject([
        { id: 'b', text: 'b, as the memory reads now' },
        { id: 'c' },
      ]);
      expect(await store.deleteUnchanged([])).toBe(0);
    });

    it("deletes by user: every record of that user and nobody else's", async () => {
      await store.upsert([
        ...Array.from({ length: 30 }, (_, i) => record(`gone${i}`, unit(i % DIM), { userId: 'u-forget' })),
        record('kept1', unit(1), { userId: 'u-stay' }),
        record('kept2', unit(2), { userId: "u-forget' OR '1'='1" }),
      ]);
      expect(await store.deleteByUser("nobody' OR '1'='1")).toBe(0);
      expect(await store.deleteByUser('u-forget')).toBe(30);
      expect(await store.listIds()).toEqual(['kept1', 'kept2']);
      expect(await store.listIds({ userId: 'u-forget' })).toEqual([]);
      expect(await store.count()).toBe(2);
      expect(await store.get(['gone0', 'gone29'])).toEqual([]);
      expect(await store.deleteByUser('u-forget')).toBe(0);
    });

    it('purges what deletes left behind, keeps every other record as it was, and says what it removed', async () => {
      await store.upsert([
        ...[0, 1, 2].map((i) => record(`gone${i}`, unit(i), { userId: 'u-forget', text: `forget me ${i}` })),
        record('kept', unit(4), { rev: 3, stage: 'v2', text: 'keep me' }),
      ]);
      expect(await store.deleteByUser('u-forget')).toBe(3);
      const purge = await store.purgeDeleted();
      expect(purge.removed).toEqual(expect.any(String));
      expect(purge.pending).toBeUndefined();
      // Whatever the server itself keeps (WAL, oplog) is said, never left unsaid as "nothing".
      if (purge.kept !== undefined) expect(purge.kept).toMatch(/backups/);
      expect(await store.get(['gone0', 'kept'])).toMatchObject([
        { id: 'kept', rev: 3, stage: 'v2', text: 'keep me', vector: unit(4) },
      ]);
      expect(await store.listIds()).toEqual(['kept']);
      // Writes go on as before: an older rev still loses, a newer one wins.
      await store.upsert([record('kept', unit(5), { rev: 2 }), record('new', unit(6))]);
      await store.upsert([record('kept', unit(7), { rev: 4, text: 'newer' })]);
      expect((await store.get(['kept', 'new'])).map((r) => [r.id, r.rev, r.text])).toEqual([
        ['kept', 4, 'newer'],
        ['new', 1, 'text of new'],
      ]);
    });

    it('lists ids in binary order, after a given id, limited, for one user', async () => {
      const ids = ['b', 'B', 'a', 'a-1', 'a_1', 'a1', 'é', '中', "it's", '~'];
      await store.upsert(
        ids.map((id, i) => record(id, unit(i % DIM), { userId: i % 2 === 0 ? 'even' : 'odd' })),
      );
      const sorted = [...ids].sort(compareIds);
      // Binary order: upper case before lower case, ASCII before accented letters before CJK.
      expect(sorted).toEqual(['B', 'a', 'a-1', 'a1', 'a_1', 'b', "it's", '~', 'é', '中']);
      expect(await store.listIds({ limit: 3 })).toEqual(sorted.slice(0, 3));
      expect(await store.listIds({ after: 'a-1', limit: 3 })).toEqual(['a1', 'a_1', 'b']);
      expect(await store.listIds({ after: 'a0' })).toEqual(sorted.slice(3));
      expect(await store.listIds({ after: '中' })).toEqual([]);
      const even = ids.filter((_, i) => i % 2 === 0).sort(compareIds);
      expect(await store.listIds({ userId: 'even' })).toEqual(even);
      expect(await store.listIds({ userId: 'even', after: even[1], limit: 2 })).toEqual(even.slice(2, 4));
      await expect(store.listIds({ limit: 0 })).rejects.toThrow(/positive integer/);
    });

    it('refuses to reopen with another dimension or embedding model, naming the reindex command', async () => {
      await store.upsert([record('kept', unit(2))]);
      await expect(open({ dimensions: 16 })).rejects.toThrow(
        /holds 8-dimension vectors from embedding model 'test-model', but the configured embedder is 'test-model' with 16 dimensions: .*memfade reindex --all/,
      );
      await expect(open({ embeddingModel: 'other-model' })).rejects.toThrow(
        /from embedding model 'test-model', but the configured embedder is 'other-model' with 8 dimensions: .*memfade reindex --all/,
      );
      const again = await open();
      expect(await again.get(['kept'])).toMatchObject([{ id: 'kept', vector: unit(2) }]);
    });

    it('refuses a record of the wrong size or model, with the reindex command, and writes nothing of the batch', async () => {
      await expect(store.upsert([record('ok', unit(0)), record('bad', [1, 2, 3])])).rejects.toThrow(
        /memory bad: its vector has 3 dimensions, but .* expects 8 .*memfade reindex --all/,
      );
      await expect(store.upsert([record('m', unit(0), { embeddingModel: 'other' })])).rejects.toThrow(
        /memory m: its vector comes from embedding model 'other'.*memfade reindex --all/,
      );
      await expect(store.upsert([record('nan', [Number.NaN, 0, 0, 0, 0, 0, 0, 0])])).rejects.toThrow(
        /finite/,
      );
      await expect(store.search([1, 2, 3], { limit: 1 })).rejects.toThrow(/memfade reindex --all/);
      expect(await store.count()).toBe(0);
    });

    it('two handles writing interleaved revs of the same ids: the highest rev wins for every id', async () => {
      const ids = Array.from({ length: 20 }, (_, i) => `shared${i}`);
      if (!target.concurrentInserts) await store.upsert(ids.map((id) => record(id, unit(0), { rev: 0 })));
      const other = await open();
      // A writes odd revs, B even ones, each out of order, the highest (12) early: every id sees newer
      // and older writes from both sides, and whichever lands last is never the newest.
      const run = (who: VectorStore, revs: number[]) =>
        (async () => {
          for (const rev of revs) {
            await who.upsert(ids.map((id) => record(id, unit(rev % DIM), { rev, text: `rev ${rev}` })));
          }
        })();
      await Promise.all([run(store, [11, 1, 7, 3, 9, 5]), run(other, [8, 12, 2, 10, 4, 6])]);
      const reader = await open();
      expect(await reader.count()).toBe(ids.length);
      const got = await reader.get(ids);
      expect(got.map((r) => [r.rev, r.text])).toEqual(ids.map(() => [12, 'rev 12']));
      for (const r of got) expect(r.vector).toEqual(unit(12 % DIM));
    });

    // Defined only where search runs: not a skipped test on MongoDB, where it cannot run at all.
    if (!target.search) return;
    it('ranks the nearest vector first and filters by user before the limit', async () => {
      await store.upsert([
        record('far', [0, 0, 1, 0, 0, 0, 0, 0]),
        record('near', [1, 0.1, 0, 0, 0, 0, 0, 0]),
        record('middle', [1, 0.6, 0, 0, 0, 0, 0, 0]),
        record('other-user', [1, 0.3, 0, 0, 0, 0, 0, 0], { userId: 'u2' }),
      ]);
      expect((await store.search(unit(0), { limit: 4 })).map((r) => r.id)).toEqual([
        'near',
        'other-user',
        'middle',
        'far',
      ]);
      expect((await store.search(unit(0), { userId: 'u1', limit: 2 })).map((r) => r.id)).toEqual([
        'near',
        'middle',
      ]);
      expect((await store.search(unit(0), { userId: 'u2', limit: 1 })).map((r) => r.id)).toEqual([
        'other-user',
      ]);
      expect(await store.search(unit(0), { userId: "nobody' OR '1'='1", limit: 4 })).toEqual([]);
    });
  });
}
