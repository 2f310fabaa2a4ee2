import { randomUUID } from 'node:crypto';
import { idsFilter, mineFilter, stagesFilter } from './canonical.js';
import { recordVanished } from './enrolment.js';
import { idString, idsAt } from './ids.js';
import { type Mapping, valueAt } from './mapping.js';
import { joinAll } from './memory-documents.js';
import type { Models } from './models.js';
import { ownedOnly, ownerMark } from './ownership.js';

/** Whose derived data to forget: one memory, or every memory of one user. */
export type ForgetTarget = { memoryId: string } | { userId: string };

/** What memfade keeps in MongoDB about the target (or removed from it). */
export interface DerivedCounts {
  /** Memories carrying stage results, rollbacks, discarded history, an error or an outbox flag. */
  memories: number;
  /** Entries of the run history's error list about these memories (ids and messages, no text). */
  runErrors: number;
  /**
   * Side-collection mode only: memfade's side documents of the target, with or without stage
   * results (forget deletes them whole).
   */
  sideDocuments?: number;
}

/** The target's documents holding memfade's fields (its side documents in side-collection mode). */
const targetFilter = (mapping: Mapping, target: ForgetTarget) =>
  'memoryId' in target ? mineFilter(mapping, target.memoryId) : idsAt(mapping.mine.userId, [target.userId]);

/**
 * Everything memfade writes on a product's memory, at the mapping's paths: the stage results and
 * what goes with them (history, rollbacks, stages discarded after an edit, the last error) under
 * `compression`, the fallback error field, the vector outbox flag, and the compression date.
 * Never the product's content.
 */
const derivedFields = ({ fields: f }: Mapping) => [
  f.compression,
  f.fallbackLastError,
  f.vectorSync,
  f.compressedAt,
];

const hasDerived = (mapping: Mapping) => ({
  $or: [
    ...derivedFields(mapping).map((field) => ({ [field]: { $exists: true } })),
    stagesFilter(mapping, ['v1', 'v2']),
  ],
});

/** The ids of the target's memories (a user's: every memory MongoDB holds for them). */
export async function targetMemoryIds(models: Models, target: ForgetTarget): Promise<string[]> {
  if ('memoryId' in target) return [target.memoryId];
  const { fields } = models.mapping;
  const ids = (await models.memories.distinct(fields.memoryId, idsAt(fields.userId, [target.userId]))).map(
    idString,
  );
  // Side documents of the user's memories the product has deleted since are theirs too.
  const sides = models.mapping.side ? await models.mine.distinct('_id', { userId: target.userId }) : [];
  // So are the memories of the user's batch requests: the provider may hold their text still, and
  // after an account deletion no product document names them (simulate --seed 689).
  const requested = await models.batchRequests.distinct('memoryId', { userId: target.userId });
  return [...new Set([...ids, ...sides, ...requested].map(String))];
}

/** What forgetDerived would remove, without removing it (`memfade forget --dry-run`, and the check after). */
export async function countDerived(
  models: Models,
  target: ForgetTarget,
  memoryIds: string[],
): Promise<DerivedCounts> {
  const [memories, runErrors, sideDocuments] = await Promise.all([
    // The product's own data at memfade's field names is not memfade's to count or remove (ownership.ts).
    models.mine.countDocuments(
      ownedOnly(models.mapping, { ...targetFilter(models.mapping, target), ...hasDerived(models.mapping) }),
    ),
    memoryIds.length ? models.runErrors.countDocuments({ memoryId: { $in: memoryIds } }) : 0,
    models.mapping.side ? models.mine.countDocuments(targetFilter(models.mapping, target)) : undefined,
  ]);
  return { memories, runErrors, ...(sideDocuments !== undefined && { sideDocuments }) };
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
  const { mapping } = models;
  if (mapping.side) {
    // memfade's own documents: they go whole (a later stage write starts a new one, from the
    // content as it is then, as a memory that was never compressed).
    const counted = await models.mine.countDocuments({
      ...targetFilter(mapping, target),
      ...hasDerived(mapping),
    });
    const sides = await models.mine.collection.deleteMany(targetFilter(mapping, target));
    const runErrors = memoryIds.length
      ? await models.runErrors.deleteMany({ memoryId: { $in: memoryIds } })
      : undefined;
    return {
      memories: counted,
      runErrors: runErrors?.deletedCount ?? 0,
      sideDocuments: sides.deletedCount,
    };
  }
  const memories = await models.memories.collection.updateMany(
    ownedOnly(mapping, { ...targetFilter(mapping, target), ...hasDerived(mapping) }),
    {
      $set: { [mapping.fields.stage]: 'raw' },
      $unset: Object.fromEntries(derivedFields(mapping).map((field) => [field, ''])),
      $inc: { [mapping.fields.rev]: 1 },
    },
  );
  const runErrors = memoryIds.length
    ? await models.runErrors.deleteMany({ memoryId: { $in: memoryIds } })
    : undefined;
  return { memories: memories.modifiedCount, runErrors: runErrors?.deletedCount ?? 0 };
}

/**
 * The memories of these ids, whole and in core's canonical shape (the sweep compares their content
 * and text), whatever the product's mapping.
 */
export async function findMemories(models: Models, memoryIds: string[]): Promise<Record<string, unknown>[]> {
  if (memoryIds.length === 0) return [];
  const { mapping } = models;
  const docs = await models.memories.collection.find(idsFilter(mapping.fields.memoryId, memoryIds)).toArray();
  return joinAll(models, docs);
}

/**
 * Flags these memories for re-embedding (the sweep removed a record whose text was out of date),
 * each flag a new one: a drain that read a memory before this write and wrote its record before
 * the sweep deleted it must not clear this flag (markVectorSynced clears only the flag it read).
 */
export async function flagVectorPending(models: Models, memoryIds: string[]): Promise<number> {
  if (memoryIds.length === 0) return 0;
  const { fields, mine } = models.mapping;
  const result = await models.mine.collection.updateMany(
    ownedOnly(models.mapping, { [mine.id]: { $in: memoryIds } }),
    {
      $set: { [fields.vectorPending]: true, [fields.vectorFlag]: randomUUID(), ...ownerMark(models.mapping) },
    },
  );
  return result.modifiedCount;
}

/**
 * Side-collection mode: one page of side documents (in `_id` order, after `after`) checked against
 * the product; those whose product document is gone are deleted (docs/design.md invariant 8: a memory the
 * product deleted leaves no stage result behind). Returns how many were deleted and the last id
 * seen (undefined once there are no more, or in prefix mode: memfade's fields go with the document).
 */
export async function sweepOrphanSides(
  models: Models,
  options: { after?: string; limit: number },
): Promise<{ removed: number; last: string | undefined }> {
  const { mapping } = models;
  if (!mapping.side) return { removed: 0, last: undefined };
  const sides = await models.mine.collection
    .find((options.after === undefined ? {} : { _id: { $gt: options.after } }) as never, {
      projection: { _id: 1 },
    })
    .sort({ _id: 1 })
    .limit(options.limit)
    .toArray();
  if (sides.length === 0) return { removed: 0, last: undefined };
  const ids = sides.map((side) => String(side._id));
  const present = await models.memories.collection
    .find(idsFilter(mapping.fields.memoryId, ids), { projection: { [mapping.fields.memoryId]: 1 } })
    .toArray();
  const kept = new Set(present.map((doc) => String(valueAt(doc, mapping.fields.memoryId))));
  const gone = ids.filter((id) => !kept.has(id));
  const removed = gone.length
    ? (await models.mine.collection.deleteMany({ _id: { $in: gone } } as never)).deletedCount
    : 0;
  // The product may put one back under the same id and its old date: the nightly enrolment looks.
  await recordVanished(models, gone, new Date());
  return { removed, last: ids.at(-1) };
}
