import type { VectorStore } from '@memfade/core';
import { LanceDbVectorStore } from './lancedb-store.js';

export { type LanceDbOptions, type LanceDbTableStats, LanceDbVectorStore } from './lancedb-store.js';
export { VectorSyncer } from './vector-sync.js';

/** A vector store plus the maintenance the worker runs after a batch of writes. */
export type MaintainedVectorStore = VectorStore & {
  /** Compacts storage after many writes; a no-op where the backend needs none. */
  optimize(): Promise<void>;
};

export type VectorStoreConfig = { kind: 'lancedb'; dir: string; dimensions: number; embeddingModel: string };

/** The configured vector store; Qdrant (for servers) slots in here as another `kind`. */
export async function createVectorStore(config: VectorStoreConfig): Promise<MaintainedVectorStore> {
  switch (config.kind) {
    case 'lancedb':
      return LanceDbVectorStore.open(config);
  }
}
