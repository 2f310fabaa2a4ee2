import { forget } from '@memfade/app';
import { lanceTexts } from '@memfade/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { erasureDeps, type Harness, startHarness } from './harness.js';

const NOW = new Date('2026-11-22T03:00:00Z');

// docs/design.md invariant 8: a vector drain that read a memory the product then deleted and
// `forget` erased (from another process) writes nothing of it back after forget's purge. Seed 49 of
// the simulator found the text in the store again, and in four LanceDB versions, after a receipt
// that said clean.
describe.each(['lancedb', 'pgvector', 'mongodb'] as const)(
  'forget during a drain, VECTOR_STORE=%s',
  (kind) => {
    let harness: Harness;
    beforeAll(async () => {
      harness = await startHarness({ now: NOW, vectorStore: kind });
    }, 90_000);
    afterAll(async () => harness?.close());

    /** A raw memory of a user of its own, flagged for the outbox, its text carrying `marker`. */
    const pending = async (id: string, userId: string, marker: string) =>
      harness.services.models.memories.collection.insertOne({
        memoryId: id,
        userId,
        content: {
          raw: [{ role: 'user', text: `The ferry to the island stopped running in March, ${marker}.` }],
        },
        meta: { createdAt: NOW, compressionStage: 'raw' },
        vectorSync: { pending: true },
        rev: 0,
      });

    /** The product deletes the memory, then `forget` erases its user (as another process would). */
    const deleteAndForget = async (id: string, userId: string) => {
      await harness.services.models.memories.collection.deleteOne({ memoryId: id });
      return forget(erasureDeps(harness, NOW), { userId }, { dryRun: false });
    };

    /** Forget said clean, and nothing of the memory or its user is in the store. */
    const expectForgotten = async (
      erased: { failures: string[] } | undefined,
      id: string,
      userId: string,
    ) => {
      expect(erased?.failures).toEqual([]);
      expect(await harness.services.vectors.get([id])).toEqual([]);
      expect(await harness.services.vectors.listIds({ userId })).toEqual([]);
    };

    it('a forget while the drain embeds the memory: nothing of it is written back', async () => {
      const { services } = harness;
      await pending('late-memory', 'late-user', 'mkLATE1');
      const embed = services.embedder.embed;
      let erased: Awaited<ReturnType<typeof forget>> | undefined;
      services.embedder.embed = async (texts) => {
        services.embedder.embed = embed;
        erased = await deleteAndForget('late-memory', 'late-user');
        return embed.call(services.embedder, texts);
      };
      await services.vectorSync.drain();
      await expectForgotten(erased, 'late-memory', 'late-user');
      if (kind === 'lancedb') {
        const versions = (await lanceTexts(harness.config.vector.dir)) ?? [];
        expect(versions.filter(([, text]) => text.includes('mkLATE1'))).toEqual([]);
      }
    });

    // Between the drain's check and its upsert: LanceDB's write lock, which forget takes too, orders
    // the two; pgvector and MongoDB take none, so the drain looks again after its upsert.
    if (kind !== 'lancedb')
      it("a forget between the drain's check and its upsert: the record written after it is taken back", async () => {
        const { services } = harness;
        await pending('later-memory', 'later-user', 'mkLATE2');
        const upsert = services.vectors.upsert;
        let erased: Awaited<ReturnType<typeof forget>> | undefined;
        services.vectors.upsert = async (records) => {
          services.vectors.upsert = upsert;
          erased = await deleteAndForget('later-memory', 'later-user');
          return upsert.call(services.vectors, records);
        };
        await services.vectorSync.drain();
        await expectForgotten(erased, 'later-memory', 'later-user');
      });
  },
);
