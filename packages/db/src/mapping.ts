/**
 * The one module that knows where memfade's fields live in the product's MongoDB. A product that
 * names things differently changes this file (and only this file).
 */
export const COLLECTIONS = {
  memories: 'memories',
  roleCards: 'role_cards',
  runs: 'compression_runs',
  runErrors: 'compression_run_errors',
};

export type CollectionNames = typeof COLLECTIONS;

export const F = {
  memoryId: 'memoryId',
  userId: 'userId',
  stage: 'meta.compressionStage',
  createdAt: 'meta.createdAt',
  compressedAt: 'meta.compressedAt',
  rev: 'rev',
  compression: 'compression',
  history: 'compression.history',
  lastError: 'compression.lastError',
  /** Where the error goes when `compression` itself is malformed and cannot take a sub-field. */
  fallbackLastError: 'memfadeLastError',
  vectorSync: 'vectorSync',
  vectorPending: 'vectorSync.pending',
  vectorHash: 'vectorSync.textHash',
  vectorSyncedAt: 'vectorSync.syncedAt',
  roleCardUserId: 'userId',
} as const;

export const stageResultPath = (stage: 'v1' | 'v2') => `compression.${stage}`;
