import {
  type HistoryEntry,
  type StageTransition,
  type V1Result,
  vectorHash,
  ZERO_USAGE,
} from '@memfade/core';
import { uniqueName, workerMongoUri } from '@memfade/testing';
import type { Connection } from 'mongoose';
import { afterAll, beforeAll, beforeEach, describe, expect, inject, it } from 'vitest';
import { closeMongo, connectMongo } from './connection.js';
import { MongoMemoryStore } from './memory-store.js';
import { createModels, ensureIndexes, type Models } from './models.js';

const NOW = new Date('2026-11-22T03:00:00Z');
let connection: Connection;
let models: Models;
let store: MongoMemoryStore;

beforeAll(async () => {
  connection = await connectMongo(workerMongoUri(inject('mongoUris')), { dbName: uniqueName('db') });
  models = createModels(connection);
  await ensureIndexes(models);
  store = new MongoMemoryStore(models);
});
afterAll(async () => closeMongo(connection));
beforeEach(async () => {
  await models.memories.deleteMany({});
});

function doc(memoryId: string, extra: Record<string, unknown> = {}) {
  return {
    memoryId,
    userId: 'u1',
    partnerId: 'p1',
    content: { raw: [{ role: 'user', text: '原文，不可修改。' }] },
    meta: { createdAt: new Date(NOW.getTime() - 4 * 86_400_000), compressionStage: 'raw' },
    productField: { keep: true },
    ...extra,
  };
}

function transition(
  memoryId: string,
  expectedRev = 0,
  asRead: Record<string, unknown> = doc(memoryId),
): StageTransition {
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
  const history: HistoryEntry[] = [{ stage: 'v1', at: NOW, runId: 'r1', model: 'm', promptVersion: 'p' }];
  return {
    memoryId,
    expectedStage: 'raw',
    expectedRev,
    stage: 'v1',
    result,
    history,
    searchText: '摘要',
    asRead,
  };
}

const read = async (memoryId: string) =>
  (await models.memories.collection.findOne({ memoryId })) as Record<string, any>;

describe('indexes', () => {
  it('creates the due-scan, memoryId, partial outbox and user indexes, none unique (the data is the product’s)', async () => {
    const indexes = await models.memories.collection.indexes();
    const byName = Object.fromEntries(indexes.map((i) => [i.name, i]));
    expect(byName.due_scan?.key).toEqual({ 'meta.compressionStage': 1, 'meta.createdAt': 1 });
    expect(byName.memory_id?.key).toEqual({ memoryId: 1 });
    expect(byName.memory_id?.unique).toBeUndefined();
    expect(byName.vector_pending?.key).toEqual({ 'vectorSync.pending': 1 });
    expect(byName.user?.key).toEqual({ userId: 1 });
  });
});

describe('MongoMemoryStore.applyTransition', () => {
  it('applies once; the same expectation a second time writes nothing', async () => {
    await models.memories.create(doc('m1'));
    const before = await models.memories.findOne({ memoryId: 'm1' }).lean();
    expect(await store.applyTransition(transition('m1'))).toBe(true);
    expect(await store.applyTransition(transition('m1'))).toBe(false);
    const after = (await models.memories.findOne({ memoryId: 'm1' }).lean()) as Record<string, any>;
    expect(after.rev).toBe(1);
    expect(after.meta.compressionStage).toBe('v1');
    expect(after.compression.history).toHaveLength(1);
    expect(after.vectorSync).toEqual({ pending: true, stage: 'v1', textHash: vectorHash('v1', '摘要') });
    expect(JSON.stringify(after.content)).toBe(JSON.stringify(before?.content));
    expect(after.productField).toEqual({ keep: true });
  });

  it('lets exactly one of two concurrent identical transitions win', async () => {
    await models.memories.create(doc('m2', { rev: 0 }));
    const results = await Promise.all([
      store.applyTransition(transition('m2')),
      store.applyTransition(transition('m2')),
    ]);
    expect(results.filter(Boolean)).toHaveLength(1);
    const after = (await models.memories.findOne({ memoryId: 'm2' }).lean()) as Record<string, any>;
    expect(after.compression.history).toHaveLength(1);
  });

  it('refuses a stale revision', async () => {
    await models.memories.create(doc('m3', { rev: 4 }));
    expect(await store.applyTransition(transition('m3', 3))).toBe(false);
    expect(await store.applyTransition(transition('m3', 4))).toBe(true);
  });

  it('refuses a write computed from content the product has edited or redacted since it was read', async () => {
    const turns = [
      { role: 'user', text: 'My bank PIN is 4417.', at: NOW },
      { role: 'assistant', text: 'Noted.', at: NOW },
    ];
    await models.memories.create(
      doc('edited', {
        content: { raw: turns, processed: { summary: 's' } },
        pendingTopics: { topics: ['a'] },
      }),
    );
    const asRead = await read('edited');
    // The product redacts one turn, touching neither the stage nor the rev.
    await models.memories.collection.updateOne(
      { memoryId: 'edited' },
      { $set: { 'content.raw': [{ ...turns[0], text: '[removed]' }, turns[1]] } },
    );
    expect(await store.applyTransition(transition('edited', 0, asRead))).toBe(false);
    // A change to the pending topics (also compression input) refuses it as well.
    const reread = await read('edited');
    await models.memories.collection.updateOne(
      { memoryId: 'edited' },
      { $set: { pendingTopics: { topics: [] } } },
    );
    expect(await store.applyTransition(transition('edited', 0, reread))).toBe(false);
    // Read again, unchanged: the write applies.
    expect(await store.applyTransition(transition('edited', 0, await read('edited')))).toBe(true);
    expect((await read('edited')).meta.compressionStage).toBe('v1');
  });

  it('applies to a memory without pending topics only while it still has none', async () => {
    await models.memories.create(doc('no-topics'));
    const asRead = await read('no-topics');
    await models.memories.collection.updateOne(
      { memoryId: 'no-topics' },
      { $set: { pendingTopics: { topics: ['x'] } } },
    );
    expect(await store.applyTransition(transition('no-topics', 0, asRead))).toBe(false);
  });

  it('reads product data in the filter as values, never as query operators', async () => {
    await models.memories.create(doc('ops', { content: { raw: 'text', processed: { summary: 's' } } }));
    const asRead = await read('ops');
    const hostile = { ...asRead, pendingTopics: { $exists: false } };
    expect(await store.applyTransition(transition('ops', 0, hostile))).toBe(false);
  });

  it('records an error even when the product stored a malformed compression field', async () => {
    await models.memories.create(doc('m4', { compression: 'oops' }));
    const error = { stage: 'input' as const, message: 'bad', at: NOW, attempts: 1 };
    await store.recordError('m4', error);
    const after = (await models.memories.findOne({ memoryId: 'm4' }).lean()) as Record<string, any>;
    expect(
      after.compression === 'oops' ? after.memfadeLastError.message : after.compression.lastError.message,
    ).toBe('bad');
  });
});

describe('MongoMemoryStore.applyTransitions (a chunk of batch results)', () => {
  it('writes a chunk, each write as conditional as alone, and says which of them the memories hold', async () => {
    await models.memories.insertMany(['c1', 'c2', 'c3', 'c4', 'c5'].map((id) => doc(id)));
    const asRead = Object.fromEntries(
      await Promise.all(['c1', 'c2', 'c3', 'c4', 'c5'].map(async (id) => [id, await read(id)])),
    );
    // c3: the product redacts it after it was read. c4: another run compressed it first.
    // c5: this very transition was written already (another poller of the same results).
    await models.memories.collection.updateOne({ memoryId: 'c3' }, { $set: { 'content.raw': '[removed]' } });
    const otherRun = transition('c4', 0, asRead.c4);
    otherRun.history = [{ ...otherRun.history[0]!, runId: 'another-run' }];
    expect(await store.applyTransition(otherRun)).toBe(true);
    expect(await store.applyTransition(transition('c5', 0, asRead.c5))).toBe(true);
    const chunk = ['c1', 'c2', 'c3', 'c4', 'c5'].map((id) => transition(id, 0, asRead[id]));
    expect(await store.applyTransitions(chunk)).toEqual([true, true, false, false, true]);
    for (const id of ['c1', 'c2', 'c4', 'c5']) {
      const after = await read(id);
      expect(after).toMatchObject({ rev: 1, meta: { compressionStage: 'v1' } });
      expect(after.compression.history).toHaveLength(1);
    }
    expect(await read('c3')).toMatchObject({
      meta: { compressionStage: 'raw' },
      content: { raw: '[removed]' },
    });
    expect((await read('c3')).compression).toBeUndefined();
    expect((await read('c4')).compression.history[0].runId).toBe('another-run');
  });

  it('a chunk written again (a results file read twice) writes nothing and still holds every transition', async () => {
    await models.memories.insertMany(['d1', 'd2', 'd3'].map((id) => doc(id)));
    const chunk = ['d1', 'd2', 'd3'].map((id) => transition(id));
    expect(await store.applyTransitions(chunk)).toEqual([true, true, true]);
    expect(await store.applyTransitions(chunk)).toEqual([true, true, true]);
    for (const id of ['d1', 'd2', 'd3']) {
      const after = await read(id);
      expect(after.rev).toBe(1);
      expect(after.compression.history).toHaveLength(1);
      expect(JSON.stringify(after.content)).toBe(JSON.stringify(doc(id).content));
    }
  });
});

describe('MongoMemoryStore.discardStaleStages', () => {
  it('takes an edited memory back to raw and deletes every result computed from its old text', async () => {
    const stale = { compressedContent: 'PIN 4417', sourceHash: 'old' };
    const history = [{ stage: 'v1', at: NOW, runId: 'r1', model: 'm', promptVersion: 'p' }];
    await models.memories.create(
      doc('stale', {
        meta: { createdAt: NOW, compressionStage: 'v1', compressedAt: NOW },
        compression: { v1: stale, history, rollbacks: [{ from: 'v2', to: 'v1', results: { v2: stale } }] },
        rev: 3,
      }),
    );
    const asRead = await read('stale');
    const discard = {
      memoryId: 'stale',
      expectedStage: 'v1' as const,
      expectedRev: 3,
      asRead,
      searchText: 'new text',
      at: NOW,
    };
    expect(await store.discardStaleStages({ ...discard, expectedRev: 2 })).toBe(false);
    expect(await store.discardStaleStages(discard)).toBe(true);
    const after = await read('stale');
    expect(after.meta).toEqual({ createdAt: NOW, compressionStage: 'raw' });
    expect(after.rev).toBe(4);
    expect(after.compression).toEqual({ history: [], discarded: [{ ...history[0], discardedAt: NOW }] });
    expect(JSON.stringify(after)).not.toContain('4417');
    expect(after.vectorSync).toEqual({
      pending: true,
      stage: 'raw',
      textHash: vectorHash('raw', 'new text'),
    });
    expect(after.content).toEqual(asRead.content);
    // The same discard again finds the memory changed (rev) and writes nothing.
    expect(await store.discardStaleStages(discard)).toBe(false);
  });
});

describe('role cards', () => {
  it('reuses a found card within the cache time, and asks again for a missing one', async () => {
    const cached = new MongoMemoryStore(models, { roleCardCacheMs: 60_000 });
    expect(await cached.loadRoleCard('u-cache')).toBeNull();
    await models.roleCards.create({ userId: 'u-cache', personality: 'warm' });
    // A missing card is not remembered: adding it takes effect at once.
    expect(await cached.loadRoleCard('u-cache')).toMatchObject({ personality: 'warm' });
    await models.roleCards.updateOne(
      { userId: 'u-cache' },
      { $set: { personality: 'dry' } },
      { strict: false },
    );
    expect(await cached.loadRoleCard('u-cache')).toMatchObject({ personality: 'warm' });
    // Without a cache every call reads the collection.
    const uncached = new MongoMemoryStore(models, { roleCardCacheMs: 0 });
    expect(await uncached.loadRoleCard('u-cache')).toMatchObject({ personality: 'dry' });
  });

  it('reads the edited card once the cache time is over', async () => {
    const cached = new MongoMemoryStore(models, { roleCardCacheMs: 50 });
    await models.roleCards.create({ userId: 'u-expiry', personality: 'warm' });
    expect(await cached.loadRoleCard('u-expiry')).toMatchObject({ personality: 'warm' });
    await models.roleCards.updateOne(
      { userId: 'u-expiry' },
      { $set: { personality: 'dry' } },
      { strict: false },
    );
    await new Promise((resolve) => setTimeout(resolve, 120));
    expect(await cached.loadRoleCard('u-expiry')).toMatchObject({ personality: 'dry' });
  });

  it("reads many memories in one call, keyed by id, and caches their users' role cards on the way", async () => {
    await models.memories.collection.insertMany([
      doc('bulk-1', { userId: 'u-bulk-a' }),
      doc('bulk-2', { userId: 'u-bulk-b' }),
      doc('bulk-3', { userId: 'u-bulk-a' }),
    ]);
    await models.roleCards.create({ userId: 'u-bulk-a', personality: 'warm' });
    const bulk = new MongoMemoryStore(models, { roleCardCacheMs: 60_000 });
    const read = await bulk.loadMemories(['bulk-1', 'bulk-2', 'bulk-3', 'bulk-missing']);
    expect([...read.keys()].sort()).toEqual(['bulk-1', 'bulk-2', 'bulk-3']);
    // The same shape loadMemory returns, one memory at a time.
    expect(read.get('bulk-2')).toEqual(await bulk.loadMemory('bulk-2'));
    // The card came with the memories: an edit within the cache time is not seen yet.
    await models.roleCards.updateOne(
      { userId: 'u-bulk-a' },
      { $set: { personality: 'dry' } },
      { strict: false },
    );
    expect(await bulk.loadRoleCard('u-bulk-a')).toMatchObject({ personality: 'warm' });
    // A user without a card is asked for again, as by loadRoleCard alone.
    await models.roleCards.create({ userId: 'u-bulk-b', personality: 'calm' });
    expect(await bulk.loadRoleCard('u-bulk-b')).toMatchObject({ personality: 'calm' });
  });
});
