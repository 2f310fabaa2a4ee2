import { type StageTransition, type V1Result, ZERO_USAGE } from '@memfade/core';
import { uniqueName, workerMongoUri } from '@memfade/testing';
import { type Connection, mongo } from 'mongoose';
import { afterAll, beforeAll, beforeEach, describe, expect, inject, it } from 'vitest';
import { closeMongo, connectMongo } from './connection.js';
import { enrolMemories, enrolmentWatermark } from './enrolment.js';
import { countDerived, forgetDerived, sweepOrphanSides } from './erasure.js';
import { parseMapping } from './mapping.js';
import { MongoMemoryStore } from './memory-store.js';
import { createModels, ensureIndexes, type Models } from './models.js';
import {
  countByStage,
  findMemory,
  findVectorPending,
  markVectorSynced,
  streamDueMemories,
  streamInvalidMemories,
} from './queries.js';
import { rollbackStage } from './rollback.js';

const NOW = new Date('2026-11-22T03:00:00Z');
const DAY = 86_400_000;
const ago = (days: number) => new Date(NOW.getTime() - days * DAY);
const V1_CUTOFF = ago(3);

let connection: Connection;
beforeAll(async () => {
  connection = await connectMongo(workerMongoUri(inject('mongoUris')), { dbName: uniqueName('db') });
});
afterAll(async () => closeMongo(connection));

/** Every document of a collection as stored, byte for byte (canonical extended JSON). */
const snapshot = async (models: Models) =>
  (await models.memories.collection.find({}).sort({ _id: 1 }).toArray()).map((doc) =>
    mongo.BSON.EJSON.stringify(doc, { relaxed: false }),
  );

function transition(memoryId: string, asRead: Record<string, unknown>, expectedRev = 0): StageTransition {
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
    sourceHash: 'h',
  } satisfies V1Result;
  return {
    memoryId,
    expectedStage: 'raw',
    expectedRev,
    stage: 'v1',
    result,
    history: [{ stage: 'v1', at: NOW, runId: 'r', model: 'm', promptVersion: 'p' }],
    searchText: '摘要',
    asRead,
  };
}

const collect = async <T>(stream: AsyncGenerator<T>) => {
  const all: T[] = [];
  for await (const item of stream) all.push(item);
  return all;
};

describe('side-collection mode (writes.collection)', () => {
  let models: Models;
  let store: MongoMemoryStore;
  const product = (id: string, ageDays: number, text = '今天去了海边，看了日落。') => ({
    _id: id,
    owner: 'u1',
    chat: [
      { who: 'me', says: text },
      { who: 'bot', says: '真好！' },
    ],
    born: ago(ageDays).toISOString(),
    tags: ['x'],
  });
  const side = (id: string) => models.mine.collection.findOne({ _id: id } as never);

  beforeAll(async () => {
    models = createModels(
      connection,
      parseMapping({
        collections: { memories: 'product_memories' },
        memory: {
          id: '_id',
          userId: 'owner',
          createdAt: { path: 'born', format: 'iso' },
          conversation: { path: 'chat', turns: { role: 'who', text: 'says', roles: { me: 'user' } } },
        },
        writes: { collection: 'memfade_side' },
      }),
    );
    await ensureIndexes(models);
    store = new MongoMemoryStore(models);
  });
  beforeEach(async () => {
    await Promise.all([
      models.memories.collection.deleteMany({}),
      models.mine.collection.deleteMany({}),
      models.state.collection.deleteMany({}),
    ]);
  });

  it('a stage write applies once, in the side document; the product document is not written', async () => {
    await models.memories.collection.insertMany([product('a', 4), product('b', 4)] as never[]);
    const before = await snapshot(models);
    const a = (await store.loadMemory('a'))!;
    // No side document yet: raw, revision 0.
    expect(a).toMatchObject({ memoryId: 'a', meta: { compressionStage: 'raw' } });
    expect(a.rev).toBeUndefined();
    expect(await store.applyTransition(transition('a', a))).toBe(true);
    // The same write again (a retried job, a second worker): stage and rev are no longer as read.
    expect(await store.applyTransition(transition('a', a))).toBe(false);
    expect(await side('a')).toMatchObject({
      _id: 'a',
      userId: 'u1',
      createdAt: ago(4),
      stage: 'v1',
      rev: 1,
      compression: { v1: { compressedContent: '摘要', sourceHash: 'h' }, history: [{ stage: 'v1' }] },
      vectorSync: { pending: true, stage: 'v1' },
    });
    const reread = (await store.loadMemory('a'))!;
    expect(reread).toMatchObject({ meta: { compressionStage: 'v1' }, rev: 1 });
    expect(reread.source).toEqual(product('a', 4));
    await store.recordError('b', { stage: 'v1', message: 'boom', at: NOW, attempts: 1 });
    expect(await side('b')).toMatchObject({ stage: 'raw', rev: 1, userId: 'u1', createdAt: ago(4) });
    expect(await rollbackStage(models, 'a', 'raw', NOW)).toEqual({ from: 'v1', to: 'raw' });
    expect(await side('a')).toMatchObject({
      stage: 'raw',
      rev: 2,
      compression: { rollbacks: [{ from: 'v1' }] },
    });
    expect(await snapshot(models)).toEqual(before);
  });

  it('two writers racing to create the side document: exactly one wins', async () => {
    await models.memories.collection.insertMany([product('race', 4)] as never[]);
    const asRead = (await store.loadMemory('race'))!;
    const other = new MongoMemoryStore(models);
    const results = await Promise.all([
      store.applyTransition(transition('race', asRead)),
      other.applyTransition(transition('race', asRead)),
      store.applyTransition(transition('race', asRead)),
    ]);
    expect(results.filter(Boolean)).toHaveLength(1);
    expect(await side('race')).toMatchObject({ stage: 'v1', rev: 1 });
    // An enrolled memory (side document at rev 0) races the same way.
    await models.memories.collection.insertOne(product('enrolled', 4) as never);
    await enrolMemories(models, { through: V1_CUTOFF, all: true });
    const enrolled = (await store.loadMemory('enrolled'))!;
    expect(enrolled).toMatchObject({ rev: 0 });
    const again = await Promise.all([
      store.applyTransition(transition('enrolled', enrolled)),
      other.applyTransition(transition('enrolled', enrolled)),
    ]);
    expect(again.filter(Boolean)).toHaveLength(1);
  });

  it('an edit of the product content between read and write: false, and no stage left behind', async () => {
    await models.memories.collection.insertMany([product('edited', 4), product('fresh', 4)] as never[]);
    const edited = (await store.loadMemory('edited'))!;
    await models.memories.collection.updateOne({ _id: 'edited' } as never, {
      $set: {
        chat: [
          { who: 'me', says: '改了：今天在家。' },
          { who: 'bot', says: '真好！' },
        ],
      },
    });
    const after = await snapshot(models);
    expect(await store.applyTransition(transition('edited', edited))).toBe(false);
    const doc = await side('edited');
    // The write was made, seen to be stale, and reverted at a new revision (never reused).
    expect(doc).toMatchObject({ stage: 'raw', rev: 2, vectorSync: { pending: true } });
    expect(doc?.compression).toBeUndefined();
    expect(await findVectorPending(models, 10)).toEqual([
      expect.objectContaining({
        memoryId: 'edited',
        meta: expect.objectContaining({ compressionStage: 'raw' }),
      }),
    ]);
    // The pipeline reads again: stage raw, rev 2, and compresses the new text.
    const reread = (await store.loadMemory('edited'))!;
    expect(reread).toMatchObject({ rev: 2, content: { raw: [{ text: '改了：今天在家。' }, {}] } });
    expect(await store.applyTransition(transition('edited', reread, 2))).toBe(true);
    expect(await snapshot(models)).toEqual(after);
  });

  it('a chunk of stage writes: each verified and reverted like a single one', async () => {
    await models.memories.collection.insertMany([product('k1', 4), product('k2', 4)] as never[]);
    const [k1, k2] = [(await store.loadMemory('k1'))!, (await store.loadMemory('k2'))!];
    await models.memories.collection.updateOne({ _id: 'k2' } as never, { $set: { chat: [] } });
    expect(await store.applyTransitions([transition('k1', k1), transition('k2', k2)])).toEqual([true, false]);
    expect(await side('k1')).toMatchObject({ stage: 'v1', rev: 1 });
    expect(await side('k2')).toMatchObject({ stage: 'raw', rev: 2 });
  });

  it('the due scan finds never-seen memories through enrolment, at their ages; the watermark moves', async () => {
    await models.memories.collection.insertMany([
      product('d1', 1),
      product('d4', 4),
      product('d8', 8),
      product('d3', 3),
    ] as never[]);
    const due = async (stage: 'raw' | 'v1', days: number) =>
      (await collect(streamDueMemories(models, { stage, createdBefore: ago(days) }))).map((m) => m.memoryId);
    // Never seen: no side document, nothing in the side index.
    expect(await due('raw', 3)).toEqual([]);
    expect(await enrolMemories(models, { through: V1_CUTOFF })).toBe(3);
    expect(await enrolmentWatermark(models)).toEqual(V1_CUTOFF);
    expect(await due('raw', 3)).toEqual(['d8', 'd4', 'd3']);
    expect(await due('raw', 7)).toEqual(['d8']);
    expect(await due('v1', 3)).toEqual([]);
    expect(await countByStage(models)).toEqual({ raw: 4, v1: 0, v2: 0, other: 0 });
    // A night later: only what became due since the watermark is read.
    await models.memories.collection.insertOne(product('late-old', 10) as never);
    const tomorrow = new Date(V1_CUTOFF.getTime() + DAY);
    expect(await enrolMemories(models, { through: tomorrow })).toBe(0);
    expect(await due('raw', 3)).not.toContain('late-old');
    // A backfill enrols the whole range: the late-inserted old memory is found.
    expect(await enrolMemories(models, { through: tomorrow, all: true })).toBe(1);
    expect(await due('raw', 7)).toEqual(['late-old', 'd8']);
    expect(await enrolmentWatermark(models)).toEqual(tomorrow);
    // The watermark never goes back.
    await enrolMemories(models, { through: ago(20) });
    expect(await enrolmentWatermark(models)).toEqual(tomorrow);
  });

  it('a memory the product deleted and put back (same id, old date) is enrolled again by the next night', async () => {
    await models.memories.collection.insertMany([product('back', 10), product('away', 10)] as never[]);
    expect(await enrolMemories(models, { through: V1_CUTOFF })).toBe(2);
    expect(await store.applyTransition(transition('back', (await store.loadMemory('back'))!))).toBe(true);
    // The product deletes both; the sweep deletes their side documents (V1's with it).
    await models.memories.collection.deleteMany({} as never);
    expect(await sweepOrphanSides(models, { limit: 10 })).toMatchObject({ removed: 2 });
    // It puts one back as it was, below the watermark: the range scan alone would never see it.
    await models.memories.collection.insertOne(product('back', 10) as never);
    const tomorrow = new Date(V1_CUTOFF.getTime() + DAY);
    expect(await enrolMemories(models, { through: tomorrow })).toBe(1);
    const due = await collect(streamDueMemories(models, { stage: 'raw', createdBefore: V1_CUTOFF }));
    expect(due.map((m) => m.memoryId)).toEqual(['back']);
    // Looked for once found: the next night enrols nothing; the one still away is still looked for.
    expect(await enrolMemories(models, { through: tomorrow })).toBe(0);
    await models.memories.collection.insertOne(product('away', 10) as never);
    expect(await enrolMemories(models, { through: tomorrow })).toBe(1);
  });

  it('bad dates are still found in the product collection, stage from the side document', async () => {
    await models.memories.collection.insertMany([
      product('ok', 4),
      { ...product('bad', 4), born: 17 },
    ] as never[]);
    const invalid = await collect(streamInvalidMemories(models, {}));
    expect(invalid).toEqual([{ memoryId: 'bad', userId: 'u1', stage: 'raw' }]);
  });

  it('the outbox, erasure and forget work on the side collection', async () => {
    await models.memories.collection.insertMany([product('keep', 4), product('gone', 4)] as never[]);
    for (const id of ['keep', 'gone'])
      expect(await store.applyTransition(transition(id, (await store.loadMemory(id))!))).toBe(true);
    const pending = await findVectorPending(models, 10);
    expect(pending.map((m) => m.memoryId).sort()).toEqual(['gone', 'keep']);
    expect(pending[0]).not.toHaveProperty('source');
    // The product deletes a memory: its side document is an orphan until the sweep.
    await models.memories.collection.deleteOne({ _id: 'gone' } as never);
    const orphan = (await findVectorPending(models, 10)).find((m) => m.memoryId === 'gone');
    expect(orphan).toMatchObject({ memoryId: 'gone', content: {} });
    const synced = pending.map((m) => ({
      memoryId: String(m.memoryId),
      textHash: String((m.vectorSync as any).textHash),
    }));
    expect(await markVectorSynced(models, synced, NOW)).toBe(2);
    expect(await sweepOrphanSides(models, { limit: 10 })).toEqual({ removed: 1, last: 'keep' });
    expect(await side('gone')).toBeNull();
    expect(await countDerived(models, { userId: 'u1' }, ['keep'])).toMatchObject({
      memories: 1,
      sideDocuments: 1,
    });
    expect(await forgetDerived(models, { userId: 'u1' }, ['keep'])).toMatchObject({
      memories: 1,
      sideDocuments: 1,
    });
    expect(await models.mine.collection.countDocuments({})).toBe(0);
    // What forget's receipt looks at again afterwards.
    expect(await countDerived(models, { userId: 'u1' }, ['keep'])).toEqual({
      memories: 0,
      runErrors: 0,
      sideDocuments: 0,
    });
  });
});

it('side-collection mode with ObjectId `_id`s: keyed by their hex digits everywhere', async () => {
  const models = createModels(
    connection,
    parseMapping({
      collections: { memories: 'oid_memories' },
      memory: { id: '_id', createdAt: { path: 'at' } },
      writes: { collection: 'oid_side' },
    }),
  );
  await ensureIndexes(models);
  const store = new MongoMemoryStore(models);
  const kept = new mongo.ObjectId();
  const gone = new mongo.ObjectId();
  await models.memories.collection.insertMany([
    { _id: kept, userId: 'u1', at: ago(4), content: { raw: '今天去了海边，看了日落。' } },
    { _id: gone, userId: 'u1', at: ago(4), content: { raw: '另一段对话。' } },
  ] as never[]);
  expect(await enrolMemories(models, { through: V1_CUTOFF })).toBe(2);
  const due = await collect(streamDueMemories(models, { stage: 'raw', createdBefore: V1_CUTOFF }));
  expect(due.map((m) => m.memoryId).sort()).toEqual([kept.toHexString(), gone.toHexString()].sort());
  const asRead = (await store.loadMemory(kept.toHexString()))!;
  expect(asRead).toMatchObject({ memoryId: kept.toHexString(), rev: 0 });
  expect(await store.applyTransition(transition(kept.toHexString(), asRead))).toBe(true);
  expect(await findMemory(models, kept.toHexString())).toMatchObject({
    meta: { compressionStage: 'v1' },
    rev: 1,
  });
  expect(await findMemory(models, kept.toHexString())).not.toHaveProperty('joined');
  const [pending] = await findVectorPending(models, 10);
  expect(pending).toMatchObject({
    memoryId: kept.toHexString(),
    content: { raw: '今天去了海边，看了日落。' },
  });
  await models.memories.collection.deleteOne({ _id: gone } as never);
  expect(await sweepOrphanSides(models, { limit: 10 })).toMatchObject({ removed: 1 });
  expect(await models.mine.collection.countDocuments({})).toBe(1);
});

describe('joined turns (memory.conversation.collection)', () => {
  for (const mode of ['prefix', 'side'] as const) {
    it(`${mode}: loads the turns in order; an edited turn between read and write makes the write false`, async () => {
      const models = createModels(
        connection,
        parseMapping({
          collections: { memories: `joined_${mode}` },
          memory: {
            id: 'mid',
            createdAt: { path: 'created' },
            conversation: {
              collection: `turns_${mode}`,
              memoryId: 'memory_id',
              order: 'ts',
              turns: { role: 'sender', text: 'content', at: 'ts', roles: { human: 'user', ai: 'assistant' } },
            },
          },
          writes: mode === 'side' ? { collection: `side_${mode}` } : { prefix: 'mf' },
        }),
      );
      await ensureIndexes(models);
      const store = new MongoMemoryStore(models);
      await models.memories.collection.insertMany([
        { mid: 'm1', userId: 'u1', created: ago(4) },
        { mid: 'm2', userId: 'u1', created: ago(4) },
      ]);
      // Inserted out of order: the join sorts by `ts`.
      await models.turns!.collection.insertMany([
        { memory_id: 'm1', sender: 'ai', content: '第二句', ts: 2 },
        { memory_id: 'm2', sender: 'human', content: 'other memory', ts: 1 },
        { memory_id: 'm1', sender: 'human', content: '第一句', ts: 1 },
      ]);
      const m1 = (await store.loadMemory('m1'))!;
      // The turn times as one canonical form: a number is read as epoch milliseconds.
      expect(m1.content).toEqual({
        raw: [
          { role: 'user', text: '第一句', at: new Date(1) },
          { role: 'assistant', text: '第二句', at: new Date(2) },
        ],
      });
      const m2 = (await store.loadMemory('m2'))!;
      await models.turns!.collection.updateOne({ memory_id: 'm1', ts: 2 }, { $set: { content: '改过的' } });
      expect(await store.applyTransition(transition('m1', m1))).toBe(false);
      expect(await store.loadMemory('m1')).toMatchObject({ meta: { compressionStage: 'raw' }, rev: 2 });
      expect(await store.applyTransition(transition('m2', m2))).toBe(true);
      expect(await store.loadMemory('m2')).toMatchObject({ meta: { compressionStage: 'v1' }, rev: 1 });
      // The turns index memfade relies on.
      const indexes = await models.turns!.collection.indexes();
      expect(indexes.find((i) => i.name === 'memfade_turns')?.key).toEqual({ memory_id: 1, ts: 1 });
    });
  }
});
