import { uniqueName, workerMongoUri } from '@memfade/testing';
import { type Db, MongoClient } from 'mongodb';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { DIM, describeVectorStoreConformance, MODEL, record, unit } from './conformance.js';
import { createVectorStore } from './index.js';
import { MongoVectorStore, vectorSearchIndexDefinition } from './mongodb-store.js';

// The MongoDB-wire test server (or MONGODB_URI): writes only. It has no search engine, so
// `$vectorSearch` cannot run here (docs/design.md §8); search is left to Atlas / MongoDB 8.2+ with mongot.
let client: MongoClient;
let db: Db;

beforeAll(async () => {
  client = await MongoClient.connect(workerMongoUri(inject('mongoUris')));
  db = client.db(uniqueName('vectors'));
});
afterAll(async () => {
  // The wire test server has no dropDatabase (it keeps nothing once stopped); a real server does.
  await db.dropDatabase().catch(() => {});
  await client.close();
});

describeVectorStoreConformance('MongoVectorStore', {
  newPlace: () => uniqueName('vectors'),
  open: (collection, options) => MongoVectorStore.open({ db, collection, ...options }),
  concurrentInserts: true,
  search: false,
});

describe('MongoVectorStore', () => {
  const open = (collection: string) =>
    MongoVectorStore.open({ db, collection, dimensions: DIM, embeddingModel: MODEL });

  it('stores documents of the documented shape, the embedder in one layout document beside them', async () => {
    const collection = uniqueName('vectors');
    const store = await open(collection);
    const updatedAt = new Date('2026-11-21T10:11:12.345Z');
    await store.upsert([
      record('m1', unit(3), { userId: 'u7', partnerId: 'p2', stage: 'v2', text: 'core', updatedAt, rev: 4 }),
    ]);
    const docs = await db.collection(collection).find().sort({ _id: 1 }).toArray();
    expect(docs).toEqual([
      { _id: '__memfade_vector_store__', dimensions: DIM, embeddingModel: MODEL },
      {
        _id: 'm1',
        userId: 'u7',
        partnerId: 'p2',
        stage: 'v2',
        text: 'core',
        embedding: unit(3),
        embeddingModel: MODEL,
        updatedAt,
        rev: 4,
      },
    ]);
    expect(await store.listIds()).toEqual(['m1']);
    expect(await store.count()).toBe(1);
    await expect(store.upsert([record('__memfade_vector_store__', unit(0))])).rejects.toThrow(/reserved/);
    // The mismatch message names the one collection to drop; dropping it forgets the embedder too.
    await expect(
      MongoVectorStore.open({ db, collection, dimensions: 16, embeddingModel: MODEL }),
    ).rejects.toThrow(
      new RegExp(
        `MongoDB vector collection '${collection}' holds 8-dimension .*db\\.${collection}\\.drop\\(\\)`,
      ),
    );
  });

  it('gives the $vectorSearch index definition, and the command to create it where the server cannot', async () => {
    const store = await open(uniqueName('vectors'));
    expect(vectorSearchIndexDefinition(DIM)).toEqual({
      fields: [
        { type: 'vector', path: 'embedding', numDimensions: DIM, similarity: 'cosine' },
        { type: 'filter', path: 'userId' },
      ],
    });
    // The wire server has no search indexes: open() tried, and kept what an operator must run.
    expect(store.searchIndex).toMatchObject({ status: 'unsupported', name: 'memfade_vector_index' });
    expect(store.searchIndex?.reason).toBeTruthy();
    expect(store.searchIndex?.command).toContain('"numDimensions":8');
    await expect(store.search(unit(0), { limit: 3 })).rejects.toThrow(
      /MongoDB vector search failed .*Atlas or MongoDB 8\.2\+ with mongot.*createSearchIndex/,
    );
  });

  it('takes a mongoose-style connection (its .db) and is what the factory builds for kind mongodb', async () => {
    const made = await createVectorStore({
      kind: 'mongodb',
      db: { db },
      collection: uniqueName('vectors'),
      dimensions: DIM,
      embeddingModel: MODEL,
    });
    expect(made).toBeInstanceOf(MongoVectorStore);
    await made.upsert([record('m1', unit(1))]);
    await made.optimize();
    expect(await made.count()).toBe(1);
    await made.close();
    await expect(MongoVectorStore.open({ db: {}, dimensions: DIM, embeddingModel: MODEL })).rejects.toThrow(
      /not open/,
    );
  });
});
