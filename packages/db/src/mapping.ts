import type { TargetStage } from '@memfade/core';
/**
 * The one module that knows where memfade's fields live in the product's MongoDB. A product that
 * names things differently changes this file (and only this file).
 */
export const COLLECTIONS = {
  memories: 'memories',
  roleCards: 'role_cards',
  runs: 'compression_runs',
  runErrors: 'compression_run_errors',
  batchRequests: 'compression_batch_requests',
  batches: 'compression_batches',
};

export type CollectionNames = typeof COLLECTIONS;

export const F = {
  memoryId: 'memoryId',
  userId: 'userId',
  partnerId: 'partnerId',
  stage: 'meta.compressionStage',
  createdAt: 'meta.createdAt',
  compressedAt: 'meta.compressedAt',
  rev: 'rev',
  /** The product's input to compression: a stage write holds them as read (DESIGN invariant 7). */
  content: 'content',
  raw: 'content.raw',
  pendingTopics: 'pendingTopics',
  compression: 'compression',
  history: 'compression.history',
  lastError: 'compression.lastError',
  /** Stage results a rollback dropped, kept for a later look. */
  rollbacks: 'compression.rollbacks',
  /** History entries of stages discarded because the product changed the content they came from. */
  discarded: 'compression.discarded',
  /** Where the error goes when `compression` itself is malformed and cannot take a sub-field. */
  fallbackLastError: 'memfadeLastError',
  vectorSync: 'vectorSync',
  vectorPending: 'vectorSync.pending',
  vectorHash: 'vectorSync.textHash',
  vectorSyncedAt: 'vectorSync.syncedAt',
  roleCardUserId: 'userId',
} as const;

export const stageResultPath = (stage: TargetStage) => `compression.${stage}`;

/** The value at a dotted path of a document as read (undefined when any part is missing). */
export function valueAt(doc: Record<string, unknown>, path: string): unknown {
  let value: unknown = doc;
  for (const key of path.split('.')) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}
