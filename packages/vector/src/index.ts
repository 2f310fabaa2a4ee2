import { LanceDbVectorStore } from './lancedb-store.js';

export { type LanceDbOptions, LanceDbVectorStore } from './lancedb-store.js';

export type VectorStoreConfig = { kind: 'lancedb'; dir: string; dimensions: number; embeddingModel: string };

/** The configured vector store; Qdrant (for servers) slots in here as another kind. */
export async function createVectorStore(config: VectorStoreConfig): Promise<LanceDbVectorStore> {
  return LanceDbVectorStore.open(config);
}
