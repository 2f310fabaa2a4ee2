import { uniqueName, workerMongoUri } from '@memfade/testing';
import type { Connection } from 'mongoose';
import { afterAll, beforeAll, beforeEach, describe, expect, inject, it } from 'vitest';
import { closeMongo, connectMongo } from './connection.js';
import { createModels, ensureIndexes, type Models } from './models.js';
import { findVectorPending, markVectorSynced, streamDueMemories, streamInvalidMemories } from './queries.js';

// The reads of queries.ts: the due scan, the memories it cannot place, the vector outbox.
const NOW = new Date('2026-11-22T03:00:00Z');
let connection: Connection;
let models: Models;

beforeAll(async () => {
  connection = await connectMongo(workerMongoUri(inject('mongoUris')), { dbName: uniqueName('db') });
  models = createModels(connection);
  await ensureIndexes(models);
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

  it("reads V1's text only for the memories whose record does not hold V2's", async () => {
    const pending = (stage: string) => ({ pending: true, stage, textHash: stage });
    const v1 = { compressedContent: 'V1 的文本', sourceHash: 'h' };
    const at = (stage: string) => ({ ...doc('').meta, compressionStage: stage });
    await models.memories.collection.insertMany([
      doc('at-v1', { meta: at('v1'), compression: { v1, history: [] }, vectorSync: pending('v1') }),
      doc('at-v2', {
        meta: at('v2'),
        compression: { v1, v2: { coreMemory: 'V2', sourceHash: 'h' }, history: [] },
        vectorSync: pending('v2'),
      }),
      // V2 without text of its own: its record falls back to V1's (searchableText), which is read.
      doc('v2-empty', {
        meta: at('v2'),
        compression: { v1, v2: { coreMemory: '', sourceHash: 'h' }, history: [] },
        vectorSync: pending('v2'),
      }),
      doc('synced', { vectorSync: { pending: false, stage: 'raw', textHash: 'raw' } }),
    ]);
    // The embedded server ignores a find's projection; MongoDB sends what each find projects.
    const url = new URL(workerMongoUri(inject('mongoUris')));
    url.searchParams.set('monitorCommands', 'true');
    const monitored = await connectMongo(url.toString(), { dbName: connection.name });
    const finds: { filter: string; projection: Record<string, unknown> }[] = [];
    monitored.getClient().on('commandStarted', (event) => {
      if (event.commandName === 'find')
        finds.push({ filter: JSON.stringify(event.command.filter), projection: event.command.projection });
    });
    try {
      const read = await findVectorPending(createModels(monitored), 10);
      expect(read.map((d) => d.memoryId)).toEqual(['at-v2', 'at-v1', 'v2-empty']);
      expect(read.map((d) => (d.vectorSync as { textHash: string }).textHash)).toEqual(['v2', 'v1', 'v2']);
      const withV2 = finds.find((f) => !f.filter.includes('$nor'))!;
      const others = finds.find((f) => f.filter.includes('$nor'))!;
      expect(withV2.projection).not.toHaveProperty(['compression.v1.compressedContent']);
      expect(withV2.projection).toHaveProperty(['compression.v2.coreMemory']);
      expect(others.projection).toHaveProperty(['compression.v1.compressedContent']);
      // The limit holds across both reads: the memories with V2's text first.
      expect((await findVectorPending(models, 1)).map((d) => d.memoryId)).toEqual(['at-v2']);
      expect((await findVectorPending(models, 2)).map((d) => d.memoryId)).toEqual(['at-v2', 'at-v1']);
    } finally {
      await closeMongo(monitored);
    }
  });
});
