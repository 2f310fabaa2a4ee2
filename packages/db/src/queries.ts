import { STAGES, type Stage } from '@memfade/core';
import { F } from './mapping.js';
import type { Models } from './models.js';

export interface DueMemory {
  memoryId: string;
  userId: string;
  stage: 'raw' | 'v1';
  createdAt: Date;
}

const userFilter = (userIds?: string[]) => (userIds?.length ? { [F.userId]: { $in: userIds } } : {});

/**
 * Memories at `stage` created at or before `createdBefore`, streamed in index order with a
 * cursor (a range scan on the due_scan index; the collection is never loaded into memory).
 */
export async function* streamDueMemories(
  models: Models,
  options: { stage: 'raw' | 'v1'; createdBefore: Date; userIds?: string[]; batchSize?: number },
): AsyncGenerator<DueMemory> {
  // The driver's aggregate, not mongoose's cursor (per-document work the fields below do not need)
  // nor a find: $project keeps the reply to three top-level fields, where the MongoDB-wire server
  // used in tests ignores a find's projection and sends whole documents, which the scan then pays
  // for in CPU. $match + $sort first use the due_scan index as a find does.
  const cursor = models.memories.collection.aggregate<{ memoryId: string; userId: string; createdAt: Date }>(
    [
      {
        $match: {
          [F.stage]: options.stage,
          [F.createdAt]: { $lte: options.createdBefore },
          ...userFilter(options.userIds),
        },
      },
      { $sort: { [F.stage]: 1, [F.createdAt]: 1 } },
      {
        $project: {
          _id: 0,
          memoryId: `$${F.memoryId}`,
          userId: `$${F.userId}`,
          createdAt: `$${F.createdAt}`,
        },
      },
    ],
    { batchSize: options.batchSize ?? 1000 },
  );
  for await (const doc of cursor) {
    yield { memoryId: doc.memoryId, userId: doc.userId, stage: options.stage, createdAt: doc.createdAt };
  }
}

/**
 * Documents the due scan cannot place: an unknown or missing stage, or a raw/v1 memory without a
 * valid date or (with `futureAfter`) created after that instant. The nightly run still sends them
 * through a job so each fails with its reason recorded, instead of staying broken unnoticed.
 */
export async function* streamInvalidMemories(
  models: Models,
  options: { userIds?: string[]; futureAfter?: Date } = {},
): AsyncGenerator<{ memoryId: string; userId: string; stage: unknown }> {
  const future = options.futureAfter
    ? [{ [F.stage]: { $in: ['raw', 'v1'] }, [F.createdAt]: { $gt: options.futureAfter } }]
    : [];
  const cursor = models.memories
    .find(
      {
        [F.memoryId]: { $type: 'string' },
        ...userFilter(options.userIds),
        $or: [
          { [F.stage]: { $nin: [...STAGES] } },
          { [F.stage]: { $in: ['raw', 'v1'] }, [F.createdAt]: { $not: { $type: 'date' } } },
          ...future,
        ],
      },
      { _id: 0, [F.memoryId]: 1, [F.userId]: 1, [F.stage]: 1 },
    )
    .lean<{ memoryId: string; userId?: unknown; meta?: { compressionStage?: unknown } }>()
    .cursor();
  for await (const doc of cursor) {
    yield { memoryId: doc.memoryId, userId: String(doc.userId ?? ''), stage: doc.meta?.compressionStage };
  }
}

export async function countByStage(
  models: Models,
  options: { userIds?: string[] } = {},
): Promise<Record<Stage | 'other', number>> {
  const groups = await models.memories.aggregate<{ _id: unknown; n: number }>([
    { $match: userFilter(options.userIds) },
    { $group: { _id: `$${F.stage}`, n: { $sum: 1 } } },
  ]);
  const counts = { raw: 0, v1: 0, v2: 0, other: 0 };
  for (const g of groups) {
    const key = (STAGES as readonly unknown[]).includes(g._id) ? (g._id as Stage) : 'other';
    counts[key] += g.n;
  }
  return counts;
}

/** Which of these users have at least one memory. */
export async function usersWithMemories(models: Models, userIds: string[]): Promise<Set<string>> {
  const found = await models.memories.distinct(F.userId, { [F.userId]: { $in: userIds } });
  return new Set(found.map(String));
}

/** Up to `limit` memories whose vector record is behind (the outbox). */
export async function findVectorPending(models: Models, limit: number): Promise<Record<string, unknown>[]> {
  return models.memories
    .find(
      { [F.vectorPending]: true },
      {
        _id: 0,
        memoryId: 1,
        userId: 1,
        partnerId: 1,
        'content.raw': 1,
        'content.processed.summary': 1,
        'compression.v1.compressedContent': 1,
        'compression.v2.coreMemory': 1,
        // Bad input is not embedded (the drain reads why a memory last failed).
        'compression.lastError.stage': 1,
        [`${F.fallbackLastError}.stage`]: 1,
        meta: 1,
        vectorSync: 1,
        // The record carries it, so an older sync landing late cannot replace a newer one.
        [F.rev]: 1,
      },
    )
    .limit(limit)
    .lean<Record<string, unknown>[]>()
    .exec();
}

/**
 * Clears the outbox flag of memories whose vector upsert succeeded, only where the text hash is
 * still the synced one: a stage written meanwhile stays pending. Returns how many were cleared.
 * One update for the whole batch (an $or of one indexed clause per memory), not one per memory:
 * the server matches each memory once either way, but a server without real indexes (the embedded
 * one) scans the collection once per update.
 */
export async function markVectorSynced(
  models: Models,
  items: { memoryId: string; textHash: string }[],
  at: Date,
): Promise<number> {
  if (items.length === 0) return 0;
  const result = await models.memories.updateMany(
    {
      $or: items.map((item) => ({
        [F.memoryId]: item.memoryId,
        [F.vectorPending]: true,
        // Flagged by hand (reindex) before any stage write: there is no hash to compare.
        [F.vectorHash]: item.textHash === '' ? { $exists: false } : item.textHash,
      })),
    },
    { $set: { [F.vectorPending]: false, [F.vectorSyncedAt]: at } },
    { strict: false },
  );
  return result.modifiedCount;
}

/** Flags memories for re-embedding (reindex); returns how many. */
export async function markVectorPending(
  models: Models,
  filter: { userIds?: string[] } | 'all',
): Promise<number> {
  const result = await models.memories.updateMany(
    filter === 'all' ? {} : userFilter(filter.userIds),
    {
      $set: { [F.vectorPending]: true },
    },
    { strict: false },
  );
  return result.modifiedCount;
}
