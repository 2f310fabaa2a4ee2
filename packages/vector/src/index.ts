import type { VectorStore } from '@memfade/core';
import { LanceDbVectorStore } from './lancedb-store.js';
import { type MongoVectorOptions, MongoVectorStore } from './mongodb-store.js';
import { type PgVectorOptions, PgVectorStore } from './pgvector-store.js';

export { type LanceDbOptions, type LanceDbTableStats, LanceDbVectorStore } from './lancedb-store.js';
export {
  type MongoVectorOptions,
  MongoVectorStore,
  type SearchIndexOutcome,
  vectorSearchIndexDefinition,
} from './mongodb-store.js';
export { type PgVectorOptions, PgVectorStore } from './pgvector-store.js';
export { chunks } from './store-spec.js';

/** A vector store plus the maintenance the worker runs after a batch of writes. */
export type MaintainedVectorStore = VectorStore & {
  /** Compacts storage after many writes; a no-op where the backend needs none. */
  optimize(): Promise<void>;
};

/**
 * LanceDB: a local folder (the embedded default; several hosts need a shared volume and take turns
 * through the vector write lock). pgvector and MongoDB: a server every worker replica reaches, no lock.
 */
export type VectorStoreConfig =
  | { kind: 'lancedb'; dir: string; dimensions: number; embeddingModel: string }
  | ({ kind: 'pgvector' } & PgVectorOptions)
  | ({ kind: 'mongodb' } & MongoVectorOptions);

export async function createVectorStore(config: VectorStoreConfig): Promise<MaintainedVectorStore> {
  switch (config.kind) {
    case 'lancedb':
      return LanceDbVectorStore.open(config);
    case 'pgvector':
      return PgVectorStore.open(config);
    case 'mongodb':
      return MongoVectorStore.open(config);
  }
}
