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

    /**
     * The memory pending for the drain, then deleted and forgotten (as another process would) at the
     * drain's first call of `target[method]`, before the call goes on; forget must have said clean.
     */
    const forgetDuring = async <T extends object, K extends keyof T>(
      target: T,
      method: K,
      [id, userId, marker]: [string, string, string],
    ) => {
      await pending(id, userId, marker);
      const original = target[method] as (...args: unknown[]) => Promise<unknown>;
      let erased: Awaited<ReturnType<typeof forget>> | undefined;
      target[method] = (async (...args: unknown[]) => {
        target[method] = original as T[K];
        erased = await deleteAndForget(id, userId);
        return original.apply(target, args);
      }) as T[K];
      await harness.services.vectorSync.drain();
      await expectForgotten(erased, id, userId);
    };

    it('a forget while the drain embeds the memory: nothing of it is written back', async () => {
      await forgetDuring(harness.services.embedder, 'embed', ['late-memory', 'late-user', 'mkLATE1']);
      if (kind === 'lancedb') {
        const versions = (await lanceTexts(harness.config.vector.dir)) ?? [];
        expect(versions.filter(([, text]) => text.includes('mkLATE1'))).toEqual([]);
      }
    });

    // Between the drain's check and its upsert: LanceDB's write lock, which forget takes too, orders
    // the two; pgvector and MongoDB take none, so the drain looks again after its upsert.
    if (kind !== 'lancedb')
      it("a forget between the drain's check and its upsert: the record written after it is taken back", async () => {
        await forgetDuring(harness.services.vectors, 'upsert', ['later-memory', 'later-user', 'mkLATE2']);
      });
  },
);
