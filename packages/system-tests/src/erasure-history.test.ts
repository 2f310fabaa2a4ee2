import { insertMemories } from '@memfade/db';
import { generateDemoData } from '@memfade/samples';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertRawCopies, night, purgeOwedAt, textsInFolder } from './erasure-night.js';
import { type Harness, startHarness } from './harness.js';

const NOW = new Date('2026-11-22T03:00:00Z');
const EN = 'demo-en-2';

// docs/design.md invariant 8: what the erasure sweep deletes leaves no copy in the vector store's
// history either (LanceDB's data files and older versions, pgvector's dead tuples), on every adapter.
describe.each(['lancedb', 'pgvector', 'mongodb'] as const)(
  'the sweep purges with VECTOR_STORE=%s',
  (kind) => {
    let harness: Harness;

    beforeAll(async () => {
      harness = await startHarness({ now: NOW, vectorStore: kind });
      const data = generateDemoData({ now: NOW, users: 2 });
      await insertMemories(harness.services.models, data.memories, data.roleCards);
      await night(harness, `erasure-history-${kind}`, NOW);
    }, 90_000);
    afterAll(async () => harness?.close());

    it("what the worker's sweep deleted leaves no copy in the store's files once its pass ends", async () => {
      const { services } = harness;
      const id = `${EN}-d3`;
      const [record] = await services.vectors.get([id]);
      expect(record?.text).toBeTruthy();
      if (kind === 'lancedb')
        expect(await textsInFolder(harness.config.vector.dir, [record!.text])).not.toEqual([]);
      await services.models.memories.deleteOne({ memoryId: id });
      // The worker's interval, page by page, until a pass has ended after the deletion.
      let gone = 0;
      for (let i = 0; i < 4; i++) gone += (await services.vectorSync.sweepNext()).gone;
      expect(gone).toBe(1);
      expect(await services.vectors.get([id])).toEqual([]);
      // Deleted rows only hidden, older versions kept: LanceDB's files held the text until the purge.
      if (kind === 'lancedb')
        expect(await textsInFolder(harness.config.vector.dir, [record!.text])).toEqual([]);
      const state = await services.models.state.collection.findOne({ _id: 'erasure-sweep' } as never);
      expect(state?.purgeOwedAt).toBeUndefined();
    });

    it('the purge is owed before the sweep deletes: a sweep dying after its deletions leaves it owed', async () => {
      const { services } = harness;
      const owed = () => purgeOwedAt(harness);
      const id = `${EN}-y1`;
      await insertRawCopies(harness, [id]);
      // A pass ended first, so nothing is owed before this one.
      for (let i = 0; i < 4 && (await owed()); i++) await services.vectorSync.sweepNext();
      expect(await owed()).toBeUndefined();
      await services.models.memories.deleteOne({ memoryId: id });
      // The records go, then the process dies (here: the store's delete throws once it has deleted).
      const store = services.vectors;
      const remove = store.delete.bind(store);
      store.delete = async (ids: string[]) => {
        await remove(ids);
        throw new Error('killed');
      };
      try {
        await expect(services.vectorSync.sweepNext()).rejects.toThrow('killed');
      } finally {
        store.delete = remove;
      }
      expect(await services.vectors.get([id])).toEqual([]);
      expect(await owed()).toBeInstanceOf(Date);
      // The pass swept again finds nothing more to delete, and still purges at its end.
      for (let i = 0; i < 4 && (await owed()); i++) await services.vectorSync.sweepNext();
      expect(await owed()).toBeUndefined();
    });

    it('a purge that fails never holds the sweep back, and stays owed until one succeeds', async () => {
      const { services } = harness;
      const owed = () => purgeOwedAt(harness);
      const store = services.vectors;
      const purge = store.purgeDeleted.bind(store);
      store.purgeDeleted = async () => {
        throw new Error('No space left on device');
      };
      // Two memories of the product's with their records, which it then deletes one after the other.
      const ids = [`${EN}-x1`, `${EN}-x2`];
      await insertRawCopies(harness, ids);
      expect(await services.vectors.get(ids)).toHaveLength(2);
      try {
        for (const id of ids) {
          await services.models.memories.deleteOne({ memoryId: id });
          for (let i = 0; i < 4; i++) await services.vectorSync.sweepNext();
          // The next pass went on past the failed purge: its deletion found too.
          expect(await services.vectors.get([id])).toEqual([]);
        }
        expect(await owed()).toBeInstanceOf(Date);
      } finally {
        store.purgeDeleted = purge;
      }
      for (let i = 0; i < 4; i++) await services.vectorSync.sweepNext();
      expect(await owed()).toBeUndefined();
    });
  },
);
