import {
  type HistoryEntry,
  type StageTransition,
  type V1Result,
  vectorHash,
  ZERO_USAGE,
} from '@memfade/core';
import { uniqueName } from '@memfade/testing';
import type { Connection } from 'mongoose';
import { afterAll, beforeAll, beforeEach, describe, expect, inject, it } from 'vitest';
import { closeMongo, connectMongo } from './connection.js';
import { MongoMemoryStore } from './memory-store.js';
import { createModels, ensureIndexes, type Models } from './models.js';
import { findVectorPending, markVectorSynced, streamDueMemories, streamInvalidMemories } from './queries.js';

const NOW = new Date('2026-11-22T03:00:00Z');
let connection: Connection;
let models: Models;
let store: MongoMemoryStore;

beforeAll(async () => {
  connection = await connectMongo(inject('mongoUri'), { dbName: uniqueName('db') });
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

function transition(memoryId: string, expectedRev = 0): StageTransition {
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
  return { memoryId, expectedStage: 'raw', expectedRev, stage: 'v1', result, history, searchText: '摘要' };
}

describe('indexes', () => {
  it('creates the due-scan, unique memoryId, partial outbox and user indexes', async () => {
    const indexes = await models.memories.collection.indexes();
    const byName = Object.fromEntries(indexes.map((i) => [i.name, i]));
    expect(byName.due_scan?.key).toEqual({ 'meta.compressionStage': 1, 'meta.createdAt': 1 });
    expect(byName.memory_id?.unique).toBe(true);
    expect(byName.vector_pending?.key).toEqual({ 'vectorSync.pending': 1 });
    expect(byName.user?.key).toEqual({ userId: 1 });
    await models.memories.create(doc('dup'));
    await expect(models.memories.create(doc('dup'))).rejects.toThrow(/duplicate key/i);
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

describe('scans', () => {
  it('streams due memories up to and including the cutoff, in batches', async () => {
    const cutoff = new Date(NOW.getTime() - 3 * 86_400_000);
    const at = (ms: number) => ({ createdAt: new Date(cutoff.getTime() + ms), compressionStage: 'raw' });
    await models.memories.insertMany([
      doc('exact', { meta: at(0) }),
      doc('later', { meta: at(1) }),
      ...[1, 2, 3, 4].map((i) => doc(`old${i}`, { meta: at(-i * 1000) })),
    ]);
    const found: string[] = [];
    for await (const m of streamDueMemories(models, { stage: 'raw', createdBefore: cutoff, batchSize: 2 }))
      found.push(m.memoryId);
    expect(found).toEqual(['old4', 'old3', 'old2', 'old1', 'exact']);
  });

  it('finds memories the due scan cannot place, and only those', async () => {
    await models.memories.insertMany([
      doc('ok'),
      doc('no-date', { meta: { compressionStage: 'raw' } }),
      doc('string-date', { meta: { compressionStage: 'v1', createdAt: '2026-01-01' } }),
      doc('unknown-stage', { meta: { compressionStage: 'v9', createdAt: NOW } }),
      doc('no-stage', { meta: { createdAt: NOW } }),
    ]);
    const found: string[] = [];
    for await (const m of streamInvalidMemories(models)) found.push(m.memoryId);
    expect(found.sort()).toEqual(['no-date', 'no-stage', 'string-date', 'unknown-stage']);
  });
});

describe('vector outbox', () => {
  it('clears a flag only for the text hash that was synced', async () => {
    await models.memories.create(doc('v1', { vectorSync: { pending: true, stage: 'v1', textHash: 'new' } }));
    expect((await findVectorPending(models, 10)).map((d) => d.memoryId)).toEqual(['v1']);
    expect(await markVectorSynced(models, [{ memoryId: 'v1', textHash: 'stale' }], NOW)).toBe(0);
    expect(await markVectorSynced(models, [{ memoryId: 'v1', textHash: 'new' }], NOW)).toBe(1);
    expect(await findVectorPending(models, 10)).toEqual([]);
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
});
