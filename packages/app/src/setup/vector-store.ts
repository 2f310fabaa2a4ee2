import type { Exclusive } from '@memfade/core';
import { vectorWriteLock } from '@memfade/queue';
import type { Logger } from '@memfade/runtime';
import { createVectorStore, type MaintainedVectorStore, MongoVectorStore } from '@memfade/vector';
import type { Redis } from 'ioredis';
import type { Connection } from 'mongoose';
import type { MemfadeConfig } from './config.js';

/**
 * The configured vector store, opened with the embedding model's name and dimensions only: the
 * embedder itself (and its key) is for writing records, which erasure never does. MongoDB's lives
 * in the product's database, on the connection already open.
 */
export async function openVectorStore(
  config: MemfadeConfig,
  operations: { mongo: Connection; logger: Logger },
  embedding: { model: string; dimensions: number },
): Promise<MaintainedVectorStore> {
  const { dimensions, model: embeddingModel } = embedding;
  const { vector } = config;
  switch (vector.kind) {
    case 'lancedb':
      return createVectorStore({ kind: 'lancedb', dir: vector.dir, dimensions, embeddingModel });
    case 'pgvector': {
      if (!vector.pgvector.url) throw new Error('PGVECTOR_URL is required with VECTOR_STORE=pgvector');
      return createVectorStore({
        kind: 'pgvector',
        url: vector.pgvector.url,
        table: vector.pgvector.table,
        poolSize: vector.pgvector.poolSize,
        dimensions,
        embeddingModel,
      });
    }
    case 'mongodb': {
      const store = await MongoVectorStore.open({
        db: operations.mongo,
        collection: vector.mongodb.collection,
        searchIndex: vector.mongodb.searchIndex,
        dimensions,
        embeddingModel,
      });
      if (store.searchIndex?.status === 'unsupported') {
        // Writes work without it; search (`$vectorSearch`) needs it, on Atlas or MongoDB 8.2+ with mongot.
        operations.logger.warn(
          { command: store.searchIndex.command, reason: store.searchIndex.reason },
          'MongoDB could not create the vector search index: create it where search runs',
        );
      }
      return store;
    }
  }
}

/**
 * The fleet's vector write lock where the store needs one. Only LanceDB needs the fleet to take
 * turns: two writers merging the same new id into one folder can both insert it. pgvector and
 * MongoDB upserts are conditional per row (ON CONFLICT ... WHERE rev <=, a filtered update of one
 * document), atomic on the server, so replicas write at once.
 */
export function vectorExclusive(config: MemfadeConfig, redis: Redis): Exclusive | undefined {
  return config.vector.kind === 'lancedb' ? vectorWriteLock(redis, config.queuePrefix) : undefined;
}
