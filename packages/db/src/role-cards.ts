import { canonicalRoleCard } from './canonical.js';
import { idForms, idString } from './ids.js';
import { keyParts, type Mapping, type RoleCardCollection, valueAt } from './mapping.js';
import type { Models } from './models.js';

/**
 * How a memory finds its role card (docs/mapping.md "roleCard"): by the card fields the mapping keys
 * cards by (`roleCard.key`), matched with the memory's fields of the same name: its user id, its
 * partner id, or both. Several cards with one key are the product's to fix, not a reason to stop:
 * the most recently updated one is used (`roleCard.updatedAt`; without it, or on a tie, the one with
 * the smallest `_id`), and the others are reported (doctor, and a warning in the worker's log).
 */

/** What a memory carries to find its card: its user and partner (core's `default` when it has none). */
export interface CardOwner {
  userId: string;
  partnerId: string;
}

/**
 * A found card in core's shape (for the user whose memory asked), its `_id`, the key it holds (card
 * path to value) and the `_id`s of the other cards with that key (unused).
 */
export interface FoundCard {
  card: Record<string, unknown>;
  id: unknown;
  key: Record<string, unknown>;
  duplicates: unknown[];
}

/** The key a memory looks its card up by, as a string (only the mapped parts count). */
export function ownerKey(collection: RoleCardCollection, owner: CardOwner): string {
  return JSON.stringify(keyParts(collection).map(([part]) => owner[part]));
}

/** The key a card document holds, read the way ownerKey writes a memory's (an ObjectId as its hex). */
export function cardKey(collection: RoleCardCollection, doc: Record<string, unknown>): string {
  return JSON.stringify(keyParts(collection).map(([, path]) => keyValue(valueAt(doc, path))));
}

/** A key value as a memory would carry it (ids.ts: an ObjectId as its hex digits, a number in decimal). */
export function keyValue(value: unknown): string | null {
  return value === undefined || value === null ? null : idString(value);
}

/** The order in which cards of one key are taken: the first one is used. */
export function cardOrder(collection: RoleCardCollection): Record<string, 1 | -1> {
  // A card without the update field sorts as null: after every card that has one.
  return collection.updatedAt ? { [collection.updatedAt]: -1, _id: 1 } : { _id: 1 };
}

/**
 * The key a memory's card is found under in findRoleCards' result (and a worker's cache): the user,
 * and the partner when cards are keyed by partner. A card keyed by partner alone is shared by users,
 * but core's card names the user it serves, so the user is always part of it.
 */
export function lookupKey(mapping: Mapping, owner: CardOwner): string {
  const byPartner = 'keys' in mapping.roleCard && mapping.roleCard.keys.partnerId !== undefined;
  return JSON.stringify(byPartner ? [owner.userId, owner.partnerId] : [owner.userId]);
}

/**
 * The cards of these owners, by lookupKey, in one query (the first by cardOrder for each key). With a
 * default card for everyone the collection is not read.
 */
export async function findRoleCards(models: Models, owners: CardOwner[]): Promise<Map<string, FoundCard>> {
  const { mapping } = models;
  const found = new Map<string, FoundCard>();
  if (owners.length === 0) return found;
  if ('default' in mapping.roleCard) {
    for (const owner of owners)
      found.set(lookupKey(mapping, owner), {
        card: canonicalRoleCard(null, owner.userId, mapping)!,
        id: null,
        key: {},
        duplicates: [],
      });
    return found;
  }
  const collection = mapping.roleCard;
  const parts = keyParts(collection);
  const filter = Object.fromEntries(
    parts.map(([part, path]) => [path, { $in: idForms(owners.map((o) => o[part])) }]),
  );
  const docs = await models.roleCards.collection.find(filter).sort(cardOrder(collection)).toArray();
  // The query matches a user of one owner with the partner of another too: grouped by key first.
  const byKey = new Map<string, Record<string, unknown>[]>();
  for (const doc of docs) {
    const key = cardKey(collection, doc);
    byKey.set(key, [...(byKey.get(key) ?? []), doc]);
  }
  for (const owner of owners) {
    const [first, ...others] = byKey.get(ownerKey(collection, owner)) ?? [];
    if (!first) continue;
    found.set(lookupKey(mapping, owner), {
      card: canonicalRoleCard(first, owner.userId, mapping)!,
      id: first._id,
      key: Object.fromEntries(parts.map(([part, path]) => [path, owner[part]])),
      duplicates: others.map((doc) => doc._id),
    });
  }
  return found;
}

/** The card of one memory's owner, or null: findRoleCards for one. */
export async function findRoleCard(models: Models, owner: CardOwner): Promise<FoundCard | null> {
  return (await findRoleCards(models, [owner])).get(lookupKey(models.mapping, owner)) ?? null;
}

/** Keys held by more than one card, for doctor: the key, the cards' ids in use order, how many. */
export interface DuplicateCardKey {
  key: Record<string, string | null>;
  /** The `_id`s of the cards with this key, the one memfade uses first. */
  ids: unknown[];
  count: number;
}

/**
 * Keys held by more than one card (up to `limit` of them, with up to 10 ids each, in use order) and
 * how many such keys there are. Counted by the server, so a large card collection is not read here.
 */
export async function duplicateCardKeys(
  models: Models,
  limit = 20,
): Promise<{ keys: DuplicateCardKey[]; total: number }> {
  const { mapping } = models;
  if ('default' in mapping.roleCard) return { keys: [], total: 0 };
  const collection = mapping.roleCard;
  const parts = keyParts(collection);
  const cards = models.roleCards.collection;
  const group = {
    $group: {
      _id: Object.fromEntries(parts.map(([, path], i) => [`k${i}`, `$${path}`])),
      count: { $sum: 1 },
    },
  };
  const [probe] = await cards.aggregate([group, { $limit: 1 }]).toArray();
  if (!probe) return { keys: [], total: 0 };
  const grouped = [group, { $match: { count: { $gt: 1 } } }];
  // The MongoDB-wire test server takes `$owner` in an object key literally: grouped here instead.
  const evaluated = parts.every(
    ([, path], i) => (probe._id as Record<string, unknown>)[`k${i}`] !== `$${path}`,
  );
  const { groups, total } = evaluated
    ? {
        total: Number(
          (await cards.aggregate([...grouped, { $count: 'total' }], { allowDiskUse: true }).toArray())[0]
            ?.total ?? 0,
        ),
        groups: await cards
          .aggregate([...grouped, { $sort: { count: -1, _id: 1 } }, { $limit: limit }], {
            allowDiskUse: true,
          })
          .toArray(),
      }
    : await groupHere(models, parts, limit);
  const keys: DuplicateCardKey[] = [];
  for (const g of groups) {
    const values = parts.map((_, i) => (g._id as Record<string, unknown>)[`k${i}`] ?? null);
    // The ids in the order the worker takes them (the first one is used).
    const docs = await cards
      .find(Object.fromEntries(parts.map(([, path], i) => [path, values[i]])), { projection: { _id: 1 } })
      .sort(cardOrder(collection))
      .limit(10)
      .toArray();
    keys.push({
      key: Object.fromEntries(parts.map(([, path], i) => [path, keyValue(values[i])])),
      ids: docs.map((doc) => doc._id),
      count: Number(g.count),
    });
  }
  return { total, keys };
}

/** duplicateCardKeys' grouping done in this process, for a server that cannot group by several fields. */
async function groupHere(models: Models, parts: [string, string][], limit: number) {
  const counts = new Map<string, { _id: Record<string, unknown>; count: number }>();
  const projection = Object.fromEntries(parts.map(([, path]) => [path, 1]));
  for await (const doc of models.roleCards.collection.find({}, { projection })) {
    const id = Object.fromEntries(parts.map(([, path], i) => [`k${i}`, valueAt(doc, path) ?? null]));
    const key = JSON.stringify(id);
    const entry = counts.get(key) ?? { _id: id, count: 0 };
    entry.count++;
    counts.set(key, entry);
  }
  const duplicated = [...counts.values()].filter((g) => g.count > 1).sort((a, b) => b.count - a.count);
  return { total: duplicated.length, groups: duplicated.slice(0, limit) };
}

/** Describes how cards are keyed, for doctor: `user (用户)`, `user (owner) and partner (persona_id)`. */
export function describeCardKey(mapping: Mapping): string {
  if ('default' in mapping.roleCard) return 'one default card for every user (mapping.roleCard.default)';
  const names = { userId: 'user', partnerId: 'partner' };
  return keyParts(mapping.roleCard)
    .map(([part, path]) => `${names[part]} (${path})`)
    .join(' and ');
}
