import { dueCutoff, type StagePolicy } from '@memfade/core';
import {
  type CanonicalMemory,
  idsFilter,
  readDate,
  stageFilter,
  stagesFilter,
  storedDate,
  storedDateType,
} from './canonical.js';
import { idString } from './ids.js';
import { type DateFormat, valueAt } from './mapping.js';
import { idsSeenTwice, joinAll } from './memory-documents.js';
import { type Models, modelsOf, ownModelsOf, productModelsOf } from './models.js';
import { type CardOwner, type FoundCard, findRoleCards, lookupKey } from './role-cards.js';

/**
 * Read-only looks at a product's database for `memfade doctor`: nothing here writes, creates a
 * collection or builds an index.
 */

/**
 * Up to `size` memory documents picked at random ($sample); the first `size` where the server
 * has no $sample (the MongoDB-wire test server). In core's shape, each with its document as stored
 * (`source`), so doctor checks the mapped paths and parses what the worker would parse.
 */
export async function sampleMemories(models: Models, size: number): Promise<CanonicalMemory[]> {
  let docs: Record<string, unknown>[];
  try {
    docs = await models.memories.collection.aggregate([{ $sample: { size } }]).toArray();
  } catch {
    docs = await models.memories.collection.find({}).limit(size).toArray();
  }
  const memories = await joinAll(models, docs);
  // An id another document also has is marked, as the worker's reads mark it: it fails as bad input.
  const shared = await sharedIds(
    models,
    memories.map((memory) => idString(memory.memoryId)),
  );
  return memories.map((memory) =>
    shared.has(idString(memory.memoryId)) ? { ...memory, sharedId: true } : memory,
  );
}

/** Of these memory ids, the ones more than one product document has (none where the id is `_id`). */
async function sharedIds(models: Models, memoryIds: string[]): Promise<Set<string>> {
  const path = models.mapping.fields.memoryId;
  if (path === '_id' || memoryIds.length === 0) return new Set();
  const found = await models.memories.collection
    .find(idsFilter(path, memoryIds), { projection: { _id: 1, [path]: 1 } })
    .toArray();
  return idsSeenTwice(found, path);
}

/**
 * The role cards of these memories' owners, by lookupKey (role-cards.ts), the first of each key as
 * the worker would use it, with the ids of the others.
 */
export async function roleCardsOf(models: Models, owners: CardOwner[]): Promise<Map<string, FoundCard>> {
  const unique = new Map(owners.map((owner) => [lookupKey(models.mapping, owner), owner]));
  return findRoleCards(models, [...unique.values()]);
}

/** The documents of a collection and their size, for what a missing index costs (doctor). */
export async function collectionSize(
  model: Models['memories'],
): Promise<{ documents: number; bytes?: number }> {
  const documents = await model.collection.estimatedDocumentCount();
  const stats = await model.db.db
    ?.command({ collStats: model.collection.collectionName })
    .catch(() => undefined);
  const bytes = typeof stats?.size === 'number' ? stats.size : undefined;
  return { documents, ...(bytes !== undefined && { bytes }) };
}

/** The product's creation dates as stored: the oldest, the newest and how many lie out of range. */
export interface CreationDates {
  collection: string;
  path: string;
  format: DateFormat;
  /** Documents whose creation date has the mapped format's type. */
  dated: number;
  oldest?: { id: string; stored: unknown; date: Date | null };
  newest?: { id: string; stored: unknown; date: Date | null };
  /** Documents dated before `floor`, and after `ceiling`. */
  before: number;
  after: number;
}

/**
 * The creation dates of the product's memories in their mapped format, and how many lie before
 * `floor` or after `ceiling`: a date unit mapped wrong puts every memory in 1970 or far ahead.
 */
export async function creationDates(models: Models, floor: Date, ceiling: Date): Promise<CreationDates> {
  const { mapping } = models;
  const path = mapping.fields.createdAt;
  const format = mapping.createdAtFormat;
  const memories = models.memories.collection;
  const typed = { [path]: { $type: storedDateType(format) } };
  const end = async (order: 1 | -1) => {
    const [doc] = await memories
      .find(typed, { projection: { [path]: 1, [mapping.fields.memoryId]: 1 } })
      .sort({ [path]: order })
      .limit(1)
      .toArray();
    if (!doc) return undefined;
    const stored = valueAt(doc, path);
    const date = readDate(stored, format);
    const id = valueAt(doc, mapping.fields.memoryId) ?? doc._id;
    return {
      id: String(id),
      stored,
      date: date instanceof Date && !Number.isNaN(date.getTime()) ? date : null,
    };
  };
  const [dated, oldest, newest, before, after] = await Promise.all([
    memories.countDocuments(typed),
    end(1),
    end(-1),
    memories.countDocuments({ [path]: { $lt: storedDate(floor, format) } }),
    memories.countDocuments({ [path]: { $gt: storedDate(ceiling, format) } }),
  ]);
  return {
    collection: mapping.collections.memories,
    path,
    format,
    dated,
    ...(oldest && { oldest }),
    ...(newest && { newest }),
    before,
    after,
  };
}

/** Model calls a night makes, by the stage they produce. */
export interface NightCalls {
  v1: number;
  v2: number;
}

/**
 * The stage transitions due tonight (everything due now, backlog included) and, for each of the
 * next `nights` nights, the ones that become due that night, if every earlier night ran.
 */
export async function transitionsByNight(
  models: Models,
  policy: StagePolicy,
  now: Date,
  nights: number,
): Promise<NightCalls[]> {
  const { mapping } = models;
  const F = mapping.fields;
  const count = (filter: Record<string, unknown>) => models.memories.countDocuments(filter).exec();
  const at = (night: number) => new Date(now.getTime() + night * 86_400_000);
  // In the format the product stores creation dates in, as the due scan compares them.
  const cutoff = (target: 'v1' | 'v2', night: number) =>
    storedDate(dueCutoff(target, at(night), policy), mapping.createdAtFormat);
  const window = (target: 'v1' | 'v2', night: number) => ({
    ...(night > 0 && { $gt: cutoff(target, night - 1) }),
    $lte: cutoff(target, night),
  });
  const result: NightCalls[] = [];
  if (mapping.side) {
    // The product's memories in the window, less those whose side document is past the stage.
    const side = (filter: Record<string, unknown>) => models.mine.countDocuments(filter).exec();
    const sideWindow = (target: 'v1' | 'v2', night: number) => ({
      ...(night > 0 && { $gt: dueCutoff(target, at(night - 1), policy) }),
      $lte: dueCutoff(target, at(night), policy),
    });
    for (let night = 0; night <= nights; night++) {
      const [all1, done1, all2, done2] = await Promise.all([
        count({ [F.createdAt]: window('v1', night) }),
        side({ [F.stage]: { $in: ['v1', 'v2'] }, createdAt: sideWindow('v1', night) }),
        count({ [F.createdAt]: window('v2', night) }),
        side({ [F.stage]: 'v2', createdAt: sideWindow('v2', night) }),
      ]);
      result.push({ v1: Math.max(0, all1 - done1), v2: Math.max(0, all2 - done2) });
    }
    return result;
  }
  for (let night = 0; night <= nights; night++) {
    const [v1, v2] = await Promise.all([
      count({ ...stageFilter(mapping, 'raw'), [F.createdAt]: window('v1', night) }),
      // Raw memories that reach V2 age get V1 first, then V2, in the same job.
      count({ ...stagesFilter(mapping, ['raw', 'v1']), [F.createdAt]: window('v2', night) }),
    ]);
    result.push({ v1, v2 });
  }
  return result;
}

/** An index memfade relies on, and whether the collection has one on the same keys. */
export interface IndexCheck {
  collection: string;
  name: string;
  keys: Record<string, number>;
  options: Record<string, unknown>;
  /** `memfade`: created at every open; `product`: only by `memfade doctor --create-indexes`. */
  owner: 'memfade' | 'product';
  present: boolean;
  /** The index found on these keys is unique (an earlier memfade made the product's ones unique). */
  unique?: boolean;
  /** The name of the index found on these keys, when it is another one. */
  presentAs?: string;
  /** The mongosh command that creates it. */
  command: string;
}

/** The indexes of models.ts, checked without creating any: memfade's own first, then the product's. */
export async function checkIndexes(models: Models): Promise<IndexCheck[]> {
  const checks: IndexCheck[] = [];
  const owned = [
    ...ownModelsOf(models).map((model) => ({ model, owner: 'memfade' as const })),
    ...productModelsOf(models).map((model) => ({ model, owner: 'product' as const })),
  ];
  for (const { model, owner } of owned) {
    const collection = model.collection.collectionName;
    const existing = await model.collection
      .indexes()
      .catch(() => [] as { key: Record<string, unknown>; name?: string; unique?: boolean }[]);
    for (const [keys, options] of model.schema.indexes()) {
      const found = existing.find((index) => JSON.stringify(index.key) === JSON.stringify(keys));
      const name = String(options.name ?? Object.keys(keys).join('_'));
      const command = `db.getCollection(${JSON.stringify(collection)}).createIndex(${JSON.stringify(keys)}, ${JSON.stringify(options)})`;
      checks.push({
        collection,
        name,
        keys: keys as Record<string, number>,
        options,
        owner,
        present: found !== undefined,
        ...(found?.unique && { unique: true }),
        ...(found?.name && found.name !== name && { presentAs: found.name }),
        command,
      });
    }
  }
  return checks;
}

/** The names an earlier memfade gave the unique indexes it made on the product's collections. */
const LEGACY_UNIQUE = ['user', 'memory_id'];

/**
 * Unique indexes an earlier memfade created on the product's collections (`user` on the role cards,
 * `memory_id` on the memories): MongoDB refuses the product's own writes of a second document with
 * the same key, and memfade no longer needs them unique.
 */
export async function legacyUniqueIndexes(
  models: Models,
): Promise<{ collection: string; name: string; keys: Record<string, unknown> }[]> {
  const found: { collection: string; name: string; keys: Record<string, unknown> }[] = [];
  for (const model of productModelsOf(models)) {
    const collection = model.collection.collectionName;
    const indexes = await model.collection.indexes().catch(() => []);
    for (const index of indexes)
      if (index.unique && index.name && LEGACY_UNIQUE.includes(index.name))
        found.push({ collection, name: index.name, keys: index.key });
  }
  return found;
}

/**
 * Creates the indexes checkIndexes found missing, one by one (an index already there on the same keys,
 * under another name or options, is left as it is); the error of each that could not be made.
 */
export async function createMissingIndexes(
  models: Models,
  checks: IndexCheck[],
): Promise<{ check: IndexCheck; error?: string }[]> {
  const byCollection = new Map(modelsOf(models).map((model) => [model.collection.collectionName, model]));
  const results: { check: IndexCheck; error?: string }[] = [];
  for (const check of checks.filter((c) => !c.present)) {
    try {
      await byCollection.get(check.collection)!.collection.createIndex(check.keys, check.options);
      results.push({ check });
    } catch (error) {
      results.push({ check, error: error instanceof Error ? error.message : String(error) });
    }
  }
  return results;
}
