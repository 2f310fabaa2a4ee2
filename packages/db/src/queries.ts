import { STAGES, type Stage } from '@memfade/core';
import {
  canonical,
  memoryFilter,
  readDate,
  stageFilter,
  stagesFilter,
  storedDate,
  storedDateType,
  unknownStageFilter,
} from './canonical.js';
import { type Mapping, outermost } from './mapping.js';
import type { Models } from './models.js';

export interface DueMemory {
  memoryId: string;
  userId: string;
  stage: 'raw' | 'v1';
  createdAt: Date;
}

const userFilter = (mapping: Mapping, userIds?: string[]) =>
  userIds?.length ? { [mapping.fields.userId]: { $in: userIds } } : {};

/** An id read from the product as a string (an ObjectId `_id` as its hex digits). */
const idString = (value: unknown) => (value === undefined || value === null ? '' : String(value));

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
  // for in CPU. $match + $sort first use the due_scan index as a find does. The cutoff is
  // converted to the format the product stores dates in, so the range compares like with like.
  const { mapping } = models;
  const F = mapping.fields;
  const format = mapping.createdAtFormat;
  const cursor = models.memories.collection.aggregate<{
    memoryId: unknown;
    userId: unknown;
    createdAt: unknown;
  }>(
    [
      {
        $match: {
          ...stageFilter(mapping, options.stage),
          [F.createdAt]: { $lte: storedDate(options.createdBefore, format) },
          ...userFilter(mapping, options.userIds),
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
    yield {
      memoryId: idString(doc.memoryId),
      userId: idString(doc.userId),
      stage: options.stage,
      createdAt: readDate(doc.createdAt, format) as Date,
    };
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
  const { mapping } = models;
  const F = mapping.fields;
  const format = mapping.createdAtFormat;
  const due = stagesFilter(mapping, ['raw', 'v1']);
  const future = options.futureAfter
    ? [{ ...due, [F.createdAt]: { $gt: storedDate(options.futureAfter, format) } }]
    : [];
  const cursor = models.memories.collection.find(
    {
      // Every document has an `_id` (a string or an ObjectId, both read as an id).
      ...(F.memoryId === '_id' ? {} : { [F.memoryId]: { $type: 'string' } }),
      ...userFilter(mapping, options.userIds),
      $or: [
        unknownStageFilter(mapping, STAGES),
        { ...due, [F.createdAt]: { $not: { $type: storedDateType(format) } } },
        ...future,
      ],
    },
    { projection: { [F.memoryId]: 1, [F.userId]: 1, [F.stage]: 1 } },
  );
  for await (const doc of cursor) {
    const memory = canonical(doc, mapping);
    yield {
      memoryId: idString(memory.memoryId),
      userId: idString(memory.userId),
      stage: (memory.meta as { compressionStage?: unknown }).compressionStage,
    };
  }
}

export async function countByStage(
  models: Models,
  options: { userIds?: string[] } = {},
): Promise<Record<Stage | 'other', number>> {
  const { mapping } = models;
  const groups = await models.memories.aggregate<{ _id: unknown; n: number }>([
    { $match: userFilter(mapping, options.userIds) },
    { $group: { _id: `$${mapping.fields.stage}`, n: { $sum: 1 } } },
  ]);
  const counts = { raw: 0, v1: 0, v2: 0, other: 0 };
  for (const g of groups) {
    // No stage (null or missing): memfade has not written the memory yet, it is raw (if mapped so).
    const stage = g._id ?? (mapping.missingStageIsRaw ? 'raw' : undefined);
    const key = (STAGES as readonly unknown[]).includes(stage) ? (stage as Stage) : 'other';
    counts[key] += g.n;
  }
  return counts;
}

/** Which of these users have at least one memory. */
export async function usersWithMemories(models: Models, userIds: string[]): Promise<Set<string>> {
  const path = models.mapping.fields.userId;
  const found = await models.memories.distinct(path, { [path]: { $in: userIds } });
  return new Set(found.map(String));
}

/** One memory in core's shape (without the stored document), or null. */
export async function findMemory(models: Models, memoryId: string): Promise<Record<string, unknown> | null> {
  const doc = await models.memories.collection.findOne(memoryFilter(models.mapping, memoryId));
  if (!doc) return null;
  const { source: _, ...memory } = canonical(doc, models.mapping);
  return memory;
}

/** A projection of these paths; one inside another would be a path collision, the outer one holds it. */
const projectionOf = (paths: string[]) => Object.fromEntries(outermost(paths).map((p) => [p, 1]));

/** Up to `limit` memories whose vector record is behind (the outbox), in core's shape. */
export async function findVectorPending(models: Models, limit: number): Promise<Record<string, unknown>[]> {
  const { mapping } = models;
  const F = mapping.fields;
  const docs = await models.memories.collection
    .find(
      { [F.vectorPending]: true },
      {
        projection: projectionOf([
          F.memoryId,
          F.userId,
          F.partnerId,
          F.conversation,
          `${F.processed}.summary`,
          `${F.compression}.v1.compressedContent`,
          `${F.compression}.v2.coreMemory`,
          F.stage,
          F.createdAt,
          F.language,
          F.vectorSync,
          // Bad input is not embedded (the drain reads why a memory last failed).
          `${F.lastError}.stage`,
          `${F.fallbackLastError}.stage`,
          // The record carries it, so an older sync landing late cannot replace a newer one.
          F.rev,
        ]),
      },
    )
    .limit(limit)
    .toArray();
  return docs.map((doc) => {
    const { source: _, ...memory } = canonical(doc, mapping);
    return memory;
  });
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
  const { mapping } = models;
  const F = mapping.fields;
  const result = await models.memories.updateMany(
    {
      $or: items.map((item) => ({
        ...memoryFilter(mapping, item.memoryId),
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
  const { mapping } = models;
  const result = await models.memories.updateMany(
    filter === 'all' ? {} : userFilter(mapping, filter.userIds),
    {
      $set: { [mapping.fields.vectorPending]: true },
    },
    { strict: false },
  );
  return result.modifiedCount;
}
