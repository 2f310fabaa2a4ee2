import { dueCutoff, type StagePolicy } from '@memfade/core';
import {
  type CanonicalMemory,
  canonicalRoleCard,
  stageFilter,
  stagesFilter,
  storedDate,
} from './canonical.js';
import { joinAll } from './memory-documents.js';
import { type Models, modelsOf } from './models.js';

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
  return joinAll(models, docs);
}

/** The role cards of these users, by user id, in core's shape (the default card when mapped so). */
export async function roleCardsOf(
  models: Models,
  userIds: string[],
): Promise<Map<string, Record<string, unknown>>> {
  const { mapping } = models;
  if ('default' in mapping.roleCard)
    return new Map(userIds.map((id) => [id, canonicalRoleCard(null, id, mapping)!]));
  const key = mapping.roleCard.paths.key;
  const cards = await models.roleCards.collection.find({ [key]: { $in: userIds } }).toArray();
  const found = cards.map((card) => canonicalRoleCard(card, '', mapping)!);
  return new Map(found.map((card) => [String(card.userId), card]));
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
  present: boolean;
  /** The mongosh command that creates it. */
  command: string;
}

/** The indexes of models.ts (what ensureIndexes would create), checked without creating any. */
export async function checkIndexes(models: Models): Promise<IndexCheck[]> {
  const checks: IndexCheck[] = [];
  for (const model of modelsOf(models)) {
    const collection = model.collection.collectionName;
    const existing = await model.collection.indexes().catch(() => [] as { key: Record<string, unknown> }[]);
    for (const [keys, options] of model.schema.indexes()) {
      const present = existing.some((index) => JSON.stringify(index.key) === JSON.stringify(keys));
      const name = String(options.name ?? Object.keys(keys).join('_'));
      const command = `db.${collection}.createIndex(${JSON.stringify(keys)}, ${JSON.stringify(options)})`;
      checks.push({ collection, name, keys: keys as Record<string, number>, options, present, command });
    }
  }
  return checks;
}
