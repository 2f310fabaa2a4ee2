import { dueCutoff, type StagePolicy } from '@memfade/core';
import { F } from './mapping.js';
import type { Models } from './models.js';

/**
 * Read-only looks at a product's database for `memfade doctor`: nothing here writes, creates a
 * collection or builds an index.
 */

/**
 * Up to `size` memory documents picked at random ($sample); the first `size` where the server
 * has no $sample (the MongoDB-wire test server).
 */
export async function sampleMemories(models: Models, size: number): Promise<Record<string, unknown>[]> {
  try {
    return await models.memories.collection.aggregate([{ $sample: { size } }]).toArray();
  } catch {
    return models.memories.collection.find({}).limit(size).toArray();
  }
}

/** The role cards of these users, by user id. */
export async function roleCardsOf(
  models: Models,
  userIds: string[],
): Promise<Map<string, Record<string, unknown>>> {
  const cards = await models.roleCards.collection.find({ [F.roleCardUserId]: { $in: userIds } }).toArray();
  return new Map(cards.map((card) => [String(card[F.roleCardUserId]), card]));
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
  const count = (filter: Record<string, unknown>) => models.memories.countDocuments(filter).exec();
  const at = (night: number) => new Date(now.getTime() + night * 86_400_000);
  const window = (target: 'v1' | 'v2', night: number) => ({
    ...(night > 0 && { $gt: dueCutoff(target, at(night - 1), policy) }),
    $lte: dueCutoff(target, at(night), policy),
  });
  const result: NightCalls[] = [];
  for (let night = 0; night <= nights; night++) {
    const [v1, v2] = await Promise.all([
      count({ [F.stage]: 'raw', [F.createdAt]: window('v1', night) }),
      // Raw memories that reach V2 age get V1 first, then V2, in the same job.
      count({ [F.stage]: { $in: ['raw', 'v1'] }, [F.createdAt]: window('v2', night) }),
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
  for (const model of [models.memories, models.roleCards, models.runs, models.runErrors]) {
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
