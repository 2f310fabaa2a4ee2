import {
  parseMemory,
  productNamed,
  type StageTransition,
  stagePolicy,
  type V1Result,
  ZERO_USAGE,
} from '@memfade/core';
import { uniqueName, workerMongoUri } from '@memfade/testing';
import type { Connection } from 'mongoose';
import { afterAll, beforeAll, beforeEach, describe, expect, inject, it } from 'vitest';
import { canonical } from './canonical.js';
import { closeMongo, connectMongo } from './connection.js';
import { parseMapping } from './mapping.js';
import { insertMemories } from './memory-import.js';
import { MongoMemoryStore } from './memory-store.js';
import { createModels, ensureIndexes, type Models } from './models.js';
import { countByStage, findVectorPending, streamDueMemories, streamInvalidMemories } from './queries.js';
import { lookupKey } from './role-cards.js';
import { rollbackStage } from './rollback.js';
import { roleCardsOf } from './survey.js';

const NOW = new Date('2026-11-22T03:00:00Z');
const DAY = 86_400_000;

/** A product's own shape: ids at `mid`, turns as `messages`, memfade's fields under `mf`. */
const mapping = (format: 'iso' | 'epoch-seconds' | 'epoch-millis' | 'date') =>
  parseMapping({
    collections: { memories: `chats_${format}`, roleCards: `personas_${format}` },
    memory: {
      id: 'mid',
      userId: 'owner',
      createdAt: { path: 'created_at', format },
      conversation: {
        path: 'messages',
        turns: { role: 'sender', text: 'content', roles: { human: 'user' } },
      },
    },
    roleCard: { key: 'owner', speakingStyle: 'style.voice' },
    writes: { prefix: 'mf' },
  });

const stored = (date: Date, format: string) =>
  format === 'iso'
    ? date.toISOString()
    : format === 'epoch-seconds'
      ? Math.floor(date.getTime() / 1000)
      : format === 'epoch-millis'
        ? date.getTime()
        : date;

let connection: Connection;
beforeAll(async () => {
  connection = await connectMongo(workerMongoUri(inject('mongoUris')), { dbName: uniqueName('db') });
});
afterAll(async () => closeMongo(connection));

describe.each(['iso', 'epoch-seconds', 'epoch-millis', 'date'] as const)(
  'a mapped product (created_at as %s)',
  (format) => {
    let models: Models;
    let store: MongoMemoryStore;
    const product = (mid: string, ageDays: number, extra: Record<string, unknown> = {}) => ({
      mid,
      owner: 'u1',
      messages: [
        { sender: 'human', content: '今天去了海边。' },
        { sender: 'ai', content: '真好！' },
      ],
      created_at: stored(new Date(NOW.getTime() - ageDays * DAY), format),
      ...extra,
    });

    beforeAll(async () => {
      models = createModels(connection, mapping(format));
      await ensureIndexes(models);
      store = new MongoMemoryStore(models);
    });
    beforeEach(async () => {
      await models.memories.collection.deleteMany({});
    });

    it('the due scan compares in the declared format, and a memory without a stage is raw', async () => {
      await models.memories.collection.insertMany([product('old', 4), product('new', 1), product('edge', 3)]);
      const due = [];
      for await (const m of streamDueMemories(models, {
        stage: 'raw',
        createdBefore: new Date(NOW.getTime() - 3 * DAY),
      }))
        due.push(m);
      expect(due.map((m) => m.memoryId).sort()).toEqual(['edge', 'old']);
      expect(due.find((m) => m.memoryId === 'old')?.createdAt).toEqual(new Date(NOW.getTime() - 4 * DAY));
      expect(await countByStage(models)).toEqual({ raw: 3, v1: 0, v2: 0, other: 0 });
      const invalid = [];
      for await (const m of streamInvalidMemories(models, {})) invalid.push(m);
      expect(invalid).toEqual([]);
    });

    // A retried insert leaves two documents under one id: compressing the one read would leave the
    // other raw for ever, unseen. Both reads mark it, and core refuses it naming the product's field.
    it('two documents under one id: refused as bad input naming the id field, by both reads', async () => {
      await models.memories.collection.insertMany([
        product('twice', 4),
        product('twice', 4),
        product('once', 4),
      ]);
      const refusal = (doc: Record<string, unknown> | null | undefined) => {
        try {
          parseMemory(doc!, stagePolicy(), NOW);
          return 'accepted';
        } catch (error) {
          return (productNamed(error, (field) => store.fieldName(field)) as Error).message;
        }
      };
      const expected =
        'memory twice: mid: more than one document has this id: memfade writes to none of them until one is left';
      expect(refusal(await store.loadMemory('twice'))).toBe(expected);
      const both = await store.loadMemories(['twice', 'once']);
      expect(refusal(both.get('twice'))).toBe(expected);
      expect(refusal(both.get('once'))).toBe('accepted');
      expect(refusal(await store.loadMemory('once'))).toBe('accepted');
    });

    it('a stage write lands under the prefix only while the mapped conversation is as read', async () => {
      await models.memories.collection.insertMany([product('kept', 4), product('edited', 4)]);
      const asRead = async (id: string) => (await store.loadMemory(id))!;
      const kept = await asRead('kept');
      expect(kept).toMatchObject({
        memoryId: 'kept',
        userId: 'u1',
        content: {
          raw: [
            { role: 'user', text: '今天去了海边。' },
            { role: 'ai', text: '真好！' },
          ],
        },
        meta: { compressionStage: 'raw', createdAt: new Date(NOW.getTime() - 4 * DAY) },
      });
      const edited = await asRead('edited');
      // The product edits the conversation after the job read it.
      await models.memories.collection.updateOne(
        { mid: 'edited' },
        {
          $set: {
            messages: [
              { sender: 'human', content: '今天去了海边。' },
              { sender: 'ai', content: '改了' },
            ],
          },
        },
      );
      expect(await store.applyTransition(transition('kept', kept))).toBe(true);
      expect(await store.applyTransition(transition('edited', edited))).toBe(false);
      // The same transition again: the stage and revision no longer match.
      expect(await store.applyTransition(transition('kept', kept))).toBe(false);
      const after = await models.memories.collection.findOne({ mid: 'kept' });
      const { _id, mf, ...productFields } = after!;
      expect(productFields).toEqual(product('kept', 4));
      expect(mf).toMatchObject({ stage: 'v1', rev: 1, vectorSync: { pending: true, stage: 'v1' } });
      const [pending] = await findVectorPending(models, 10);
      expect(pending).toMatchObject({ memoryId: 'kept', meta: { compressionStage: 'v1' }, rev: 1 });
      expect(pending).not.toHaveProperty('source');
      expect(await countByStage(models)).toEqual({ raw: 1, v1: 1, v2: 0, other: 0 });
      expect(await rollbackStage(models, 'kept', 'raw', NOW)).toEqual({ from: 'v1', to: 'raw' });
      const rolled = await models.memories.collection.findOne({ mid: 'kept' });
      expect(rolled?.mf).toMatchObject({
        stage: 'raw',
        rev: 2,
        compression: { rollbacks: [{ from: 'v1' }] },
      });
      expect(rolled?.mf.compression.v1).toBeUndefined();
    });

    it('reads the role card at the mapped key and paths', async () => {
      await models.roleCards.collection.insertOne({ owner: 'u1', name: 'Li', style: { voice: '简洁' } });
      expect(await store.loadRoleCard('u1')).toEqual({ userId: 'u1', name: 'Li', speakingStyle: '简洁' });
      expect(await store.loadRoleCard('nobody')).toBeNull();
    });
  },
);

it('a default card serves every user without reading a role card collection', async () => {
  const models = createModels(
    connection,
    parseMapping({
      collections: { roleCards: 'no_such_cards' },
      roleCard: { default: { name: 'Mo', personality: ['warm', 'curious'], language: 'en' } },
    }),
  );
  const card = { userId: 'anyone', name: 'Mo', personality: ['warm', 'curious'], language: 'en' };
  expect(await new MongoMemoryStore(models).loadRoleCard('anyone')).toEqual(card);
  const owner = { userId: 'anyone', partnerId: 'default' };
  expect((await roleCardsOf(models, [owner])).get(lookupKey(models.mapping, owner))?.card).toEqual(card);
  // No index on a collection memfade never reads.
  expect(models.roleCards.schema.indexes()).toEqual([]);
});

it("import refuses to write memfade's own shape into a mapped product's collections", async () => {
  const models = createModels(connection, mapping('iso'));
  await expect(insertMemories(models, [{ memoryId: 'x' }], [])).rejects.toThrow(/unset MEMFADE_MAPPING/);
  expect(await models.memories.collection.countDocuments({ memoryId: 'x' })).toBe(0);
});

it('canonical keeps the product document as read under source, and parses no further', () => {
  const m = mapping('iso');
  const doc = { mid: 'x', owner: 'u', messages: 'a string conversation', created_at: 'not a date' };
  const c = canonical(doc, m);
  expect(c.source).toBe(doc);
  expect(c.content).toEqual({ raw: 'a string conversation' });
  expect(Number.isNaN((c.meta as { createdAt: Date }).createdAt.getTime())).toBe(true);
});

function transition(memoryId: string, asRead: Record<string, unknown>): StageTransition {
  const result = {
    compressedContent: '摘要',
    keyPoints: [],
    emotionalHighlights: [],
    personalityAdjustment: { emphasized: [], deemphasized: [] },
    originalLength: 8,
    compressedLength: 2,
    compressionRatio: 0.25,
    compressedAt: NOW,
    model: 'm',
    promptVersion: 'p',
    usage: ZERO_USAGE,
    chunks: 1,
    modelMs: 5,
    warnings: [],
  } satisfies V1Result;
  return {
    memoryId,
    expectedStage: 'raw',
    expectedRev: 0,
    stage: 'v1',
    result,
    history: [{ stage: 'v1', at: NOW, runId: 'r', model: 'm', promptVersion: 'p' }],
    searchText: '摘要',
    asRead,
  };
}
