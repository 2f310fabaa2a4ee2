import { STAGES, type Stage } from '@memfade/core';
import {
  canonical,
  idsFilter,
  mineFilter,
  readDate,
  stageFilter,
  stagesFilter,
  storedDate,
  storedDateType,
  unknownStageFilter,
  withoutStored,
} from './canonical.js';
import { enrolMemories } from './enrolment.js';
import { idString, idsAt } from './ids.js';
import { type Mapping, outermost, valueAt } from './mapping.js';
import { joinAll, loadMemoryDocument } from './memory-documents.js';
import type { Models } from './models.js';
import { ownedOnly, ownerMark } from './ownership.js';

export interface DueMemory {
  memoryId: string;
  userId: string;
  stage: 'raw' | 'v1';
  createdAt: Date;
}

const userFilter = (mapping: Mapping, userIds?: string[]) =>
  userIds?.length ? idsAt(mapping.fields.userId, userIds) : {};

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
  // It runs where memfade's fields are (mapping.mine): the product's documents, or in side-collection
  // mode the side documents, which carry the user and creation date (enrolment.ts).
  const { mapping } = models;
  const F = mapping.fields;
  const mine = mapping.mine;
  const format = mine.createdAtFormat;
  const cursor = models.mine.collection.aggregate<{
    memoryId: unknown;
    userId: unknown;
    createdAt: unknown;
  }>(
    [
      {
        $match: {
          ...stageFilter(mapping, options.stage),
          [mine.createdAt]: { $lte: storedDate(options.createdBefore, format) },
          ...(options.userIds?.length && idsAt(mine.userId, options.userIds)),
        },
      },
      { $sort: { [F.stage]: 1, [mine.createdAt]: 1 } },
      {
        $project: {
          _id: 0,
          memoryId: `$${mine.id}`,
          userId: `$${mine.userId}`,
          createdAt: `$${mine.createdAt}`,
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
  // Side-collection mode: the product documents have no stage; every one is raw until its side
  // document says otherwise (read below for the few found).
  const due = mapping.side ? {} : stagesFilter(mapping, ['raw', 'v1']);
  const future = options.futureAfter
    ? [{ ...due, [F.createdAt]: { $gt: storedDate(options.futureAfter, format) } }]
    : [];
  const cursor = models.memories.collection.find(
    {
      // Every document has an `_id` (a string or an ObjectId, both read as an id).
      ...(F.memoryId === '_id' ? {} : { [F.memoryId]: { $type: 'string' } }),
      ...userFilter(mapping, options.userIds),
      $or: [
        ...(mapping.side ? [] : [unknownStageFilter(mapping, STAGES)]),
        { ...due, [F.createdAt]: { $not: { $type: storedDateType(format) } } },
        ...future,
      ],
    },
    { projection: { [F.memoryId]: 1, [F.userId]: 1, [F.stage]: 1 } },
  );
  for await (const doc of cursor) {
    const id = idString(valueAt(doc, F.memoryId));
    const side = mapping.side ? await models.mine.collection.findOne({ _id: id } as never) : undefined;
    const memory = canonical(doc, mapping, { side });
    const stage = (memory.meta as { compressionStage?: unknown }).compressionStage;
    // A side document past V1 has nothing left to do for an invalid date.
    if (mapping.side && stage === 'v2') continue;
    yield { memoryId: idString(memory.memoryId), userId: idString(memory.userId), stage };
  }
}

export async function countByStage(
  models: Models,
  options: { userIds?: string[] } = {},
): Promise<Record<Stage | 'other', number>> {
  const { mapping } = models;
  const users = options.userIds?.length ? idsAt(mapping.mine.userId, options.userIds) : {};
  const groups = await models.mine.aggregate<{ _id: unknown; n: number }>([
    { $match: users },
    { $group: { _id: `$${mapping.fields.stage}`, n: { $sum: 1 } } },
  ]);
  const counts = { raw: 0, v1: 0, v2: 0, other: 0 };
  if (mapping.side) {
    // Memories without a side document are raw: the product's count less the side documents past
    // raw (an estimate while a side document outlives its product document, until the sweep).
    const total = await models.memories.countDocuments(userFilter(mapping, options.userIds)).exec();
    for (const g of groups)
      if (g._id !== 'raw')
        counts[(STAGES as readonly unknown[]).includes(g._id) ? (g._id as Stage) : 'other'] += g.n;
    counts.raw = Math.max(0, total - counts.v1 - counts.v2 - counts.other);
    return counts;
  }
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
  const found = await models.memories.distinct(path, idsAt(path, userIds));
  return new Set(found.map(idString));
}

/** One memory in core's shape (without the stored document), or null. */
export async function findMemory(models: Models, memoryId: string): Promise<Record<string, unknown> | null> {
  const memory = await loadMemoryDocument(models, memoryId);
  return memory && withoutStored(memory);
}

/** A projection of these paths; one inside another would be a path collision, the outer one holds it. */
const projectionOf = (paths: string[]) => Object.fromEntries(outermost(paths).map((p) => [p, 1]));

/**
 * Up to `limit` memories whose vector record is behind (the outbox), in core's shape. The flags are
 * where memfade's fields are; in side-collection mode the side documents are read first, then their
 * product documents by id (so the content read is at least as new as the stage: the drain can tell a
 * stage computed from other content, see the vector package), and a side document whose product
 * document is gone comes back as a memory without content (the drain removes its record). The
 * memories with V2's text are read first, without V1's text, which their record does not hold.
 */
export async function findVectorPending(models: Models, limit: number): Promise<Record<string, unknown>[]> {
  const { mapping } = models;
  const F = mapping.fields;
  const v1Text = `${F.compression}.v1.compressedContent`;
  const v2Text = `${F.compression}.v2.coreMemory`;
  const mineFields = [
    `${F.compression}.v1.sourceHash`,
    v2Text,
    `${F.compression}.v2.sourceHash`,
    F.stage,
    // The hash the flag is cleared for (markVectorSynced): not the rest of vectorSync.
    F.vectorHash,
    F.vectorFlag,
    // Bad input is not embedded (the drain reads why a memory last failed).
    `${F.lastError}.stage`,
    `${F.fallbackLastError}.stage`,
    // The record carries it, so an older sync landing late cannot replace a newer one.
    F.rev,
  ];
  const productFields = [
    F.memoryId,
    F.userId,
    F.partnerId,
    // The whole input: the drain compares its hash with the stage's.
    ...F.inputs,
    F.createdAt,
    F.language,
  ];
  const read = (filter: Record<string, unknown>, fields: string[], n: number) =>
    models.mine.collection
      // A product's own `vectorSync.pending` is not memfade's outbox (ownership.ts).
      .find(ownedOnly(mapping, { [F.vectorPending]: true, ...filter }), {
        projection: projectionOf(mapping.side ? ['_id', ...fields] : [...productFields, ...fields]),
      })
      .limit(n)
      .toArray();
  // A memory with V2's text has it as its record's (searchableText): V1's text, longer, is read only
  // for the others (docs/benchmarks.md, MongoDB commands per memory).
  const hasV2Text = { [v2Text]: { $type: 'string', $ne: '' } };
  const withV2 = await read(hasV2Text, mineFields, limit);
  const others =
    withV2.length < limit
      ? await read({ $nor: [hasV2Text] }, [v1Text, ...mineFields], limit - withV2.length)
      : [];
  const pending = [...withV2, ...others];
  const memories = mapping.side
    ? await joinAll(
        models,
        await models.memories.collection
          .find(
            idsFilter(
              F.memoryId,
              pending.map((side) => String(side._id)),
            ),
            { projection: projectionOf(productFields) },
          )
          .toArray(),
        { sides: pending, orphans: true },
      )
    : await joinAll(models, pending);
  return memories.map(withoutStored);
}

/** A memory's outbox flag as a drain read it (findVectorPending): the text hash and the sweep's flag. */
export interface FlagAsRead {
  memoryId: string;
  textHash: string;
  flag?: string;
}

/** Matches memfade's documents of these memories while each is flagged exactly as read. */
function flaggedAsRead(mapping: Mapping, items: FlagAsRead[]): Record<string, unknown> {
  const F = mapping.fields;
  return ownedOnly(mapping, {
    $or: items.map((item) => ({
      ...mineFilter(mapping, item.memoryId),
      [F.vectorPending]: true,
      // Flagged by hand (reindex) before any stage write: there is no hash to compare.
      [F.vectorHash]: item.textHash === '' ? { $exists: false } : item.textHash,
      [F.vectorFlag]: item.flag ?? { $exists: false },
    })),
  });
}

/**
 * Clears the outbox flag of memories whose vector upsert succeeded, only where the text hash and
 * the sweep's flag are still the ones the drain read: a stage written meanwhile, or a record the
 * sweep deleted after the drain wrote it, stays pending. Returns how many were cleared.
 * One update for the whole batch (an $or of one indexed clause per memory), not one per memory:
 * the server matches each memory once either way, but a server without real indexes (the embedded
 * one) scans the collection once per update.
 */
export async function markVectorSynced(models: Models, items: FlagAsRead[], at: Date): Promise<number> {
  if (items.length === 0) return 0;
  const F = models.mapping.fields;
  const result = await models.mine.collection.updateMany(flaggedAsRead(models.mapping, items), {
    $set: { [F.vectorPending]: false, [F.vectorSyncedAt]: at },
  });
  return result.modifiedCount;
}

/**
 * Of these memories as a drain read them, the ones still there and flagged as read: the drain asks
 * under the vector write lock, just before its upsert, so a memory the product deleted and `forget`
 * erased (or flagged again by the sweep) since the read is not written back after forget's purge
 * (docs/design.md invariant 8). In side-collection mode the product's document is looked for too.
 */
export async function stillFlagged(models: Models, items: FlagAsRead[]): Promise<Set<string>> {
  if (items.length === 0) return new Set();
  const { mapping } = models;
  const F = mapping.fields;
  const idOf = (doc: Record<string, unknown>) =>
    mapping.side ? String(doc._id) : idString(valueAt(doc, F.memoryId));
  const flagged = await models.mine.collection
    .find(flaggedAsRead(mapping, items), { projection: { _id: 1, [F.memoryId]: 1 } })
    .toArray();
  const ids = new Set(flagged.map(idOf));
  if (!mapping.side || ids.size === 0) return ids;
  return presentMemories(models, [...ids]);
}

/** Of these memory ids, the ones the product has a memory document for. */
export async function presentMemories(models: Models, memoryIds: string[]): Promise<Set<string>> {
  if (memoryIds.length === 0) return new Set();
  const path = models.mapping.fields.memoryId;
  const products = await models.memories.collection
    .find(idsFilter(path, memoryIds), { projection: { _id: 1, [path]: 1 } })
    .toArray();
  return new Set(products.map((doc) => idString(valueAt(doc, path))));
}

/**
 * Flags memories for re-embedding (reindex); returns how many. In side-collection mode the memories
 * are enrolled first (all of them, or the users'), so raw memories memfade never saw are indexed too.
 */
export async function markVectorPending(
  models: Models,
  filter: { userIds?: string[] } | 'all',
): Promise<number> {
  const { mapping } = models;
  const userIds = filter === 'all' ? undefined : filter.userIds;
  await enrolMemories(models, { all: true, userIds });
  const result = await models.mine.collection.updateMany(
    ownedOnly(mapping, userIds?.length ? idsAt(mapping.mine.userId, userIds) : {}),
    { $set: { [mapping.fields.vectorPending]: true, ...ownerMark(mapping) } },
  );
  // Matched, not modified: a memory whose flag was already set is reindexed all the same.
  return result.matchedCount;
}
