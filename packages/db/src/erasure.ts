import { F } from './mapping.js';
import type { Models } from './models.js';

/** Whose derived data to forget: one memory, or every memory of one user. */
export type ForgetTarget = { memoryId: string } | { userId: string };

/** What memfade keeps in MongoDB about the target (or removed from it). */
export interface DerivedCounts {
  /** Memories carrying stage results, rollbacks, discarded history, an error or an outbox flag. */
  memories: number;
  /** Entries of the run history's error list about these memories (ids and messages, no text). */
  runErrors: number;
}

const targetFilter = (target: ForgetTarget) =>
  'memoryId' in target ? { [F.memoryId]: target.memoryId } : { [F.userId]: target.userId };

/**
 * Everything memfade writes on a product's memory: the stage results and what goes with them
 * (history, rollbacks, stages discarded after an edit, the last error) under `compression`, the
 * fallback error field, the vector outbox flag, and the compression date. Never `content`.
 */
const DERIVED_FIELDS = [F.compression, F.fallbackLastError, F.vectorSync, F.compressedAt] as const;

const hasDerived = {
  $or: [
    ...DERIVED_FIELDS.map((field) => ({ [field]: { $exists: true } })),
    { [F.stage]: { $in: ['v1', 'v2'] } },
  ],
};

/** The ids of the target's memories (a user's: every memory MongoDB holds for them). */
export async function targetMemoryIds(models: Models, target: ForgetTarget): Promise<string[]> {
  if ('memoryId' in target) return [target.memoryId];
  const ids = await models.memories.distinct(F.memoryId, targetFilter(target));
  return ids.map(String);
}

/** What forgetDerived would remove, without removing it (`memfade forget --dry-run`, and the check after). */
export async function countDerived(
  models: Models,
  target: ForgetTarget,
  memoryIds: string[],
): Promise<DerivedCounts> {
  const [memories, runErrors] = await Promise.all([
    models.memories.countDocuments({ ...targetFilter(target), ...hasDerived }),
    memoryIds.length ? models.runErrors.countDocuments({ memoryId: { $in: memoryIds } }) : 0,
  ]);
  return { memories, runErrors };
}

/**
 * Removes memfade's derived data from the target's memories, leaving the product's fields as they
 * are, and takes them back to raw (the stage no longer has a result behind it). The memories get a
 * new `rev`, so a job that read one before cannot write its stage afterwards. A memory the product
 * still keeps is compressed again when it is next due: forgetting what memfade made of it does not
 * stop memfade from making it again; deleting the memory does.
 */
export async function forgetDerived(
  models: Models,
  target: ForgetTarget,
  memoryIds: string[],
): Promise<DerivedCounts> {
  const memories = await models.memories.collection.updateMany(
    { ...targetFilter(target), ...hasDerived },
    {
      $set: { [F.stage]: 'raw' },
      $unset: Object.fromEntries(DERIVED_FIELDS.map((field) => [field, ''])),
      $inc: { [F.rev]: 1 },
    },
  );
  const runErrors = memoryIds.length
    ? await models.runErrors.deleteMany({ memoryId: { $in: memoryIds } })
    : undefined;
  return { memories: memories.modifiedCount, runErrors: runErrors?.deletedCount ?? 0 };
}

/** The memories of these ids as stored (whole documents: the sweep compares their content and text). */
export async function findMemories(models: Models, memoryIds: string[]): Promise<Record<string, unknown>[]> {
  if (memoryIds.length === 0) return [];
  return models.memories.collection
    .find({ [F.memoryId]: { $in: memoryIds } }, { projection: { _id: 0 } })
    .toArray();
}

/** Flags these memories for re-embedding (the sweep removed a record whose text was out of date). */
export async function flagVectorPending(models: Models, memoryIds: string[]): Promise<number> {
  if (memoryIds.length === 0) return 0;
  const result = await models.memories.collection.updateMany(
    { [F.memoryId]: { $in: memoryIds } },
    { $set: { [F.vectorPending]: true } },
  );
  return result.modifiedCount;
}
