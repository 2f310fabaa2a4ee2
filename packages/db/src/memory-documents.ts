import type { LastError } from '@memfade/core';
import { mongo } from 'mongoose';
import {
  type CanonicalMemory,
  canonical,
  idsFilter,
  type Joined,
  memoryFilter,
  mineFilter,
  readDate,
  stageFilter,
} from './canonical.js';
import { idString } from './ids.js';
import { type Mapping, valueAt } from './mapping.js';
import type { Models } from './models.js';
import { ownedOnly, ownerMark } from './ownership.js';

/**
 * The one place that knows where a memory's parts are (docs/design.md §3, README "Adopting memfade on
 * your database"): the product's memory document, memfade's fields beside it or in a side document
 * (`writes.collection`), and the turns beside it or in another collection
 * (`memory.conversation.collection`). Every read of a whole memory and every guarded write of
 * memfade's fields goes through here, in both modes.
 */

type Doc = Record<string, unknown>;

/** Documents written before memfade have no `rev`: they count as revision 0. */
export function revFilter(rev: number, mapping: Mapping): Doc {
  const path = mapping.fields.rev;
  return rev === 0 ? { $or: [{ [path]: 0 }, { [path]: { $exists: false } }] } : { [path]: rev };
}

/**
 * Matches the memory only while its input (the mapping's conversation, processed fields and
 * pending topics: what the product may edit or redact) is exactly as read (docs/design.md invariant 7).
 * An equality on the values at their mapped paths in the document as read (`source`), not a hash:
 * MongoDB cannot hash a field inside a filter, and a hash stored by memfade would not change when
 * the product edits the content. `$eq` keeps product data from being read as operators.
 */
export function inputFilter(asRead: Doc, mapping: Mapping): Doc {
  const source = (asRead.source ?? asRead) as Doc;
  return Object.fromEntries(
    mapping.fields.inputs.map((field) => {
      const value = valueAt(source, field);
      return [field, value === undefined ? { $exists: false } : { $eq: value }];
    }),
  );
}

/** An id read from the product as a string (an ObjectId `_id` as its hex digits). */

/** The turn documents of these memories, each memory's in order (one query for all of them). */
async function turnsOf(models: Models, memoryIds: string[]): Promise<Map<string, Doc[]>> {
  const joined = models.mapping.joined;
  const byMemory = new Map<string, Doc[]>();
  if (!joined || !models.turns || memoryIds.length === 0) return byMemory;
  const turns = await models.turns.collection
    .find(idsFilter(joined.memoryId, memoryIds))
    .sort({ [joined.memoryId]: 1, [joined.order]: 1, _id: 1 })
    .toArray();
  for (const turn of turns) {
    const id = idString(valueAt(turn, joined.memoryId));
    const list = byMemory.get(id) ?? [];
    list.push(turn);
    byMemory.set(id, list);
  }
  return byMemory;
}

/**
 * These product documents in core's shape, each with its side document and joined turns (read here
 * unless given: the outbox read the side documents first). `orphans`: side documents whose product
 * document is gone, as memories with no product fields (the outbox and the sweep remove their data).
 */
export async function joinAll(
  models: Models,
  products: Doc[],
  options: { sides?: Doc[]; orphans?: boolean } = {},
): Promise<CanonicalMemory[]> {
  const { mapping } = models;
  const ids = products.map((doc) => idString(valueAt(doc, mapping.fields.memoryId)));
  const sides =
    options.sides ??
    (mapping.side && ids.length
      ? await models.mine.collection.find({ _id: { $in: ids } } as Doc).toArray()
      : []);
  const sideById = new Map(sides.map((side) => [String(side._id), side]));
  const turnIds = [...ids, ...(options.orphans ? [...sideById.keys()] : [])];
  const turns = await turnsOf(models, [...new Set(turnIds)]);
  const joined = (id: string): Joined => ({
    side: sideById.get(id) ?? null,
    ...(mapping.joined && { turns: turns.get(id) ?? [] }),
  });
  const found = products.map((doc, i) => canonical(doc, mapping, joined(ids[i]!)));
  if (!options.orphans || !mapping.side) return found;
  const present = new Set(ids);
  const orphans = [...sideById.keys()].filter((id) => !present.has(id));
  return [...found, ...orphans.map((id) => canonical({}, mapping, joined(id)))];
}

/** One memory in core's shape with everything as read (`source`, `joined`), or null when the product has none. */
export async function loadMemoryDocument(models: Models, memoryId: string): Promise<CanonicalMemory | null> {
  const { mapping } = models;
  // The three reads at once: the side document and the turns are found by the id asked for.
  // Two documents are read where the id is not `_id` (unique by itself): a second one under the
  // same id is the product's mistake, refused rather than compressing one copy and leaving the other.
  const [docs, side, turns] = await Promise.all([
    models.memories.collection
      .find(memoryFilter(mapping, memoryId))
      .limit(mapping.fields.memoryId === '_id' ? 1 : 2)
      .toArray(),
    mapping.side ? models.mine.collection.findOne({ _id: memoryId } as Doc) : null,
    mapping.joined ? turnsOf(models, [memoryId]) : undefined,
  ]);
  const [doc] = docs;
  if (!doc) return null;
  const memory = canonical(doc, mapping, {
    side: side ?? null,
    ...(mapping.joined && { turns: turns?.get(memoryId) ?? [] }),
  });
  return docs.length > 1 ? { ...memory, sharedId: true } : memory;
}

/**
 * Many memories in core's shape at once (batch mode reads a chunk of a round this way): one query for
 * the product documents, one for their side documents and one for their turns. Keyed by the id asked
 * for; a memory the product does not have is absent.
 */
export async function loadMemoryDocuments(
  models: Models,
  memoryIds: string[],
): Promise<Map<string, CanonicalMemory>> {
  if (memoryIds.length === 0) return new Map();
  const { mapping } = models;
  const products = await models.memories.collection
    .find(idsFilter(mapping.fields.memoryId, memoryIds))
    .toArray();
  const memories = await joinAll(models, products);
  const shared = idsSeenTwice(products, mapping.fields.memoryId);
  const found = new Map<string, CanonicalMemory>();
  for (const [i, memory] of memories.entries()) {
    const id = idString(valueAt(products[i]!, mapping.fields.memoryId));
    // The first document of an id is read, marked shared when another has it (as loadMemoryDocument).
    if (!found.has(id)) found.set(id, shared.has(id) ? { ...memory, sharedId: true } : memory);
  }
  return found;
}

/** The ids (at `path`) that more than one of these product documents has. */
export function idsSeenTwice(docs: Doc[], path: string): Set<string> {
  const seen = new Set<string>();
  const twice = new Set<string>();
  for (const doc of docs) {
    const id = idString(valueAt(doc, path));
    if (seen.has(id)) twice.add(id);
    seen.add(id);
  }
  return twice;
}

/** The memory a guarded write expects: as the job read it, at this stage and revision. */
export interface Guard {
  memoryId: string;
  expectedStage: string;
  expectedRev: number;
  /** The canonical memory as read (loadMemoryDocument), with `source` and `joined`. */
  asRead: Doc;
}

export interface MineUpdate {
  $set: Doc;
  $unset?: Record<string, ''>;
}

const DUPLICATE_KEY = 11000;
const isDuplicateKey = (error: unknown) => (error as { code?: unknown } | null)?.code === DUPLICATE_KEY;

/**
 * Writes memfade's fields of one memory, only while it is at the expected stage and revision (docs/design.md
 * invariant 2) and, with `holdInputs`, while the product's input is as the job read it (invariant 7).
 * The revision goes up by one. True when written.
 *
 * Prefix mode, turns in the document: ONE conditional update of the product document, whose filter
 * holds the input as read. Side-collection mode or joined turns: MongoDB cannot make a write
 * conditional on another collection's document (and a transaction does not conflict with a write to
 * a document it only read), so the write is made first, conditional on stage and revision, then the
 * input is read again; if it is not as read, the write is reverted (at a new revision: a revision is
 * never reused) and this returns false, exactly as if the conditional write had been refused.
 */
export async function writeMine(
  models: Models,
  guard: Guard,
  update: MineUpdate,
  options: { holdInputs: boolean },
): Promise<boolean> {
  const { mapping } = models;
  const F = mapping.fields;
  const change = { ...update, $set: { ...update.$set, ...ownerMark(mapping) }, $inc: { [F.rev]: 1 } };
  let written: boolean;
  if (mapping.side && guard.expectedRev === 0) {
    // A side document at rev 0 (enrolled), or none yet: an upsert. Two writers racing to insert it
    // meet at the unique `_id`: the loser gets a duplicate key error and has lost the race.
    try {
      const result = await models.mine.collection.updateOne(
        { _id: guard.memoryId, [F.stage]: guard.expectedStage, [F.rev]: 0 } as Doc,
        { ...change, $setOnInsert: sideKeys(guard.asRead) },
        { upsert: true },
      );
      written = result.modifiedCount + result.upsertedCount === 1;
    } catch (error) {
      if (!isDuplicateKey(error)) throw error;
      written = false;
    }
  } else {
    const result = await models.mine.collection.updateOne(guardFilter(mapping, guard, options), change);
    written = result.modifiedCount === 1;
  }
  if (!written || !options.holdInputs || !(mapping.side || mapping.joined)) return written;
  if (await inputAsRead(models, guard)) return true;
  await revert(models, guard);
  return false;
}

/**
 * The memory at the expected stage and revision and, with `holdInputs` in prefix mode, with its input
 * as read; and, in a product document, with no product data at memfade's fields (ownership.ts).
 */
function guardFilter(mapping: Mapping, guard: Guard, options: { holdInputs: boolean }): Doc {
  return ownedOnly(mapping, {
    ...mineFilter(mapping, guard.memoryId),
    ...stageFilter(mapping, guard.expectedStage),
    ...revFilter(guard.expectedRev, mapping),
    ...(options.holdInputs && !mapping.side && inputFilter(guard.asRead, mapping)),
  });
}

/**
 * Many of writeMine's writes at once, where each is one conditional update of the product document
 * (prefix mode, turns in the document): one command for all of them, each update as conditional as
 * alone. MongoDB says how many were written, not which: when some were refused, the memories are
 * read again (memfade's fields only) and `holds` tells, from each memory as it now is, whether it
 * holds its write. In the other modes each write is writeMine's, one after another.
 */
export async function writeManyMine(
  models: Models,
  writes: { guard: Guard; update: MineUpdate }[],
  holds: (doc: Doc, index: number) => boolean,
): Promise<boolean[]> {
  const { mapping } = models;
  const options = { holdInputs: true };
  if (mapping.side || mapping.joined || writes.length < 2) {
    const written: boolean[] = [];
    for (const { guard, update } of writes) written.push(await writeMine(models, guard, update, options));
    return written;
  }
  const $inc = { [mapping.fields.rev]: 1 };
  const result = await models.mine.collection.bulkWrite(
    writes.map(({ guard, update }) => ({
      updateOne: {
        filter: guardFilter(mapping, guard, options),
        update: { ...update, $set: { ...update.$set, ...ownerMark(mapping) }, $inc },
      },
    })),
    { ordered: false },
  );
  if (result.modifiedCount === writes.length) return writes.map(() => true);
  const ids = writes.map(({ guard }) => guard.memoryId);
  const fields = mapping.fields;
  const now = await models.mine.collection
    .find(idsFilter(fields.memoryId, ids), {
      projection: { [fields.memoryId]: 1, [fields.history]: 1 },
    })
    .toArray();
  const byId = new Map(now.map((doc) => [idString(valueAt(doc, fields.memoryId)), doc]));
  return writes.map(({ guard }, i) => {
    const doc = byId.get(guard.memoryId);
    return doc !== undefined && holds(doc, i);
  });
}

/** The user and creation date a new side document starts with (the due scan reads them). */
function sideKeys(asRead: Doc): Doc {
  const createdAt = (asRead.meta as { createdAt?: unknown } | undefined)?.createdAt;
  return {
    userId: asRead.userId,
    ...(createdAt instanceof Date && !Number.isNaN(createdAt.getTime()) && { createdAt }),
  };
}

/** Equal as stored: BSON bytes, so a changed type, order or value all count as a change. */
const same = (a: unknown, b: unknown) =>
  Buffer.from(mongo.BSON.serialize({ v: a ?? null })).equals(
    Buffer.from(mongo.BSON.serialize({ v: b ?? null })),
  );

/**
 * Whether the product's input is still as the job read it: the input fields of the product document
 * (side-collection mode; in prefix mode the write's filter held them) and the joined turns. One more
 * read each (two with both).
 */
async function inputAsRead(models: Models, guard: Guard): Promise<boolean> {
  const { mapping } = models;
  const source = (guard.asRead.source ?? {}) as Doc;
  const joined = (guard.asRead.joined ?? {}) as Joined;
  const inputs = mapping.side ? mapping.fields.inputs : [];
  const [doc, turns] = await Promise.all([
    inputs.length
      ? models.memories.collection.findOne(memoryFilter(mapping, guard.memoryId), {
          projection: Object.fromEntries(inputs.map((p) => [p, 1])),
        })
      : undefined,
    mapping.joined ? turnsOf(models, [guard.memoryId]) : undefined,
  ]);
  if (doc === null) return false;
  if (doc && !inputs.every((p) => same(valueAt(doc, p), valueAt(source, p)))) return false;
  return !turns || same(turns.get(guard.memoryId) ?? [], joined.turns ?? []);
}

/**
 * Puts memfade's fields of the memory back as the job read them, conditional on the revision the
 * write just made, at the next revision. The outbox flag is set: a drain may have embedded the
 * reverted stage in between, and the record must be written again from the memory as it is.
 */
async function revert(models: Models, guard: Guard): Promise<void> {
  const { mapping } = models;
  const F = mapping.fields;
  const asRead = guard.asRead as { source?: Doc; joined?: Joined };
  const before: Doc = (mapping.side ? asRead.joined?.side : asRead.source) ?? { [F.stage]: 'raw' };
  const $set: Doc = { [F.rev]: guard.expectedRev + 2 };
  const $unset: Record<string, ''> = {};
  for (const path of [F.stage, F.compressedAt, F.compression, F.fallbackLastError]) {
    const value = valueAt(before, path);
    if (value === undefined) $unset[path] = '';
    else $set[path] = value;
  }
  const vectorSync = valueAt(before, F.vectorSync);
  $set[F.vectorSync] = { ...(vectorSync && typeof vectorSync === 'object' ? vectorSync : {}), pending: true };
  // Refused when another writer moved the memory on meanwhile (a forget, a sweep): its write stands.
  await models.mine.collection.updateOne(
    { ...mineFilter(mapping, guard.memoryId), [F.rev]: guard.expectedRev + 1 },
    { $set, ...(Object.keys($unset).length && { $unset }) },
  );
}

/** Records why a memory failed, whatever its stage and revision (a new revision). */
export async function recordLastError(models: Models, memoryId: string, error: LastError): Promise<void> {
  const { mapping } = models;
  const F = mapping.fields;
  if (mapping.side) {
    // memfade's own document: `compression` is always an object. A memory without a side document
    // yet gets one, with the user and creation date of its product document.
    const product = await models.memories.collection.findOne(memoryFilter(mapping, memoryId), {
      projection: { [F.userId]: 1, [F.createdAt]: 1 },
    });
    const createdAt = product && readDate(valueAt(product, F.createdAt), mapping.createdAtFormat);
    const upsert = async () =>
      models.mine.collection.updateOne(
        { _id: memoryId } as Doc,
        {
          $set: { [F.lastError]: error },
          $inc: { [F.rev]: 1 },
          $setOnInsert: {
            [F.stage]: 'raw',
            ...(product && { userId: idString(valueAt(product, F.userId)) }),
            ...(createdAt instanceof Date && !Number.isNaN(createdAt.getTime()) && { createdAt }),
          },
        },
        { upsert: true },
      );
    // Two upserts racing: the second finds the document the first inserted when it tries again.
    await upsert().catch((err) => (isDuplicateKey(err) ? upsert() : Promise.reject(err)));
    return;
  }
  // Not over the product's data at memfade's fields (ownership.ts): the run's error record keeps
  // the reason then (the run tracker records every failure).
  const filter = ownedOnly(mapping, memoryFilter(mapping, memoryId));
  try {
    await models.memories.updateOne(
      filter,
      { $set: { [F.lastError]: error, ...ownerMark(mapping) }, $inc: { [F.rev]: 1 } },
      { strict: false },
    );
  } catch {
    // `compression` holds something that is not an object, so it cannot take a sub-field; the
    // reason must still be recorded, and the malformed field is the product's to keep.
    await models.memories.updateOne(
      filter,
      { $set: { [F.fallbackLastError]: error, ...ownerMark(mapping) }, $inc: { [F.rev]: 1 } },
      { strict: false },
    );
  }
}
