import { readTime } from '@memfade/core';
import { idsAt, idText } from './ids.js';
import type { DateFormat, Mapping } from './mapping.js';
import { valueAt } from './mapping.js';
import { productFields } from './ownership.js';

/**
 * The one place a product document becomes the shape core reads (docs/design.md §3): every reader
 * of memories (the memory store, the vector outbox, rollback, doctor) goes through canonical().
 * Values are carried over as found: a wrong type is core's parseMemory's to refuse, with a reason.
 */

/**
 * What memfade read besides the product's memory document: its side document (side-collection
 * mode; null when it has none yet) and the joined turn documents, as stored.
 */
export interface Joined {
  side?: Record<string, unknown> | null;
  turns?: Record<string, unknown>[];
}

/**
 * A canonical memory with the product's document as read (`source`), and what else was read for it
 * (`joined`), for the conditional write (invariant 7).
 */
export type CanonicalMemory = Record<string, unknown> & { source: Record<string, unknown>; joined?: Joined };

/** The canonical memory without the documents as read (what inspect and the outbox hand on). */
export function withoutStored(memory: CanonicalMemory): Record<string, unknown> {
  const { source: _, joined: __, ...rest } = memory;
  return rest;
}

/**
 * `doc` is the product's memory document; in side-collection mode memfade's fields come from
 * `joined.side` (none: raw at rev 0), and with joined turns the conversation from `joined.turns`.
 */
export function canonical(
  doc: Record<string, unknown>,
  mapping: Mapping,
  joined: Joined = {},
): CanonicalMemory {
  const f = mapping.fields;
  const at = (path: string) => valueAt(doc, path);
  const mine = mapping.side ? (joined.side ?? {}) : doc;
  const own = (path: string) => valueAt(mine, path);
  const defined = (entries: Record<string, unknown>) =>
    Object.fromEntries(Object.entries(entries).filter(([, v]) => v !== undefined));
  const stage = own(f.stage);
  // memfade-named fields holding the product's data: parseMemory refuses the memory (ownership.ts).
  const foreign = mapping.side ? [] : productFields(doc, mapping);
  return {
    ...defined({
      // A side document whose product document is gone still names its memory.
      // Ids in any stored form (an ObjectId, a number) as strings (ids.ts); another type as found,
      // for parseMemory to refuse naming the field.
      memoryId: asId(at(f.memoryId)) ?? (mapping.side ? joined.side?._id : undefined),
      userId: asId(at(f.userId)),
      partnerId: asId(at(f.partnerId)) ?? undefined,
      content: defined({
        raw: conversation(mapping.joined ? joined.turns : at(f.conversation), mapping, {
          $userId: idText(at(f.userId)),
          $partnerId: idText(at(f.partnerId)),
        }),
        processed: at(f.processed) ?? undefined,
      }),
      pendingTopics: at(f.pendingTopics) ?? undefined,
      meta: defined({
        createdAt: readDate(at(f.createdAt), mapping.createdAtFormat),
        // A product document memfade has not written yet has no stage: it is raw (when mapped so).
        compressionStage: stage ?? (mapping.missingStageIsRaw || mapping.side ? 'raw' : undefined),
        compressedAt: own(f.compressedAt),
        language: at(f.language),
      }),
      compression: own(f.compression),
      vectorSync: own(f.vectorSync),
      rev: own(f.rev),
    }),
    ...(foreign.length && { productFields: foreign }),
    source: doc,
    ...((mapping.side || mapping.joined) && { joined: { side: joined.side ?? null, turns: joined.turns } }),
  };
}

const asId = (value: unknown): unknown => idText(value) ?? value;

/** The memory's own ids, which `roles` may name as `$userId` and `$partnerId` (a turn's sender id). */
type Owners = Record<'$userId' | '$partnerId', string | undefined>;

/**
 * A turn's role as memfade reads it (docs/mapping.md `roles`): the value `roles` maps it to (a
 * number or an ObjectId by its text), or, where the product stores who sent the turn by id, the
 * role `roles` gives the memory's `$userId` or `$partnerId`; else the value as found (a string
 * speaker's name; another type for parseMemory to refuse, naming the field).
 */
function roleOf(role: unknown, roles: Record<string, string>, owners: Owners): unknown {
  const key = idText(role);
  if (key === undefined) return role;
  // Own keys only: a role named "constructor" is no key of the map.
  const mapped = (k: string) => (Object.hasOwn(roles, k) ? roles[k] : undefined);
  const owner = (['$userId', '$partnerId'] as const).find((k) => owners[k] === key && mapped(k));
  return mapped(key) ?? (owner ? mapped(owner) : role);
}

function conversation(value: unknown, mapping: Mapping, owners: Owners): unknown {
  const turns = mapping.config.memory.conversation.turns;
  if (!turns || !Array.isArray(value)) return value;
  return value.map((turn: unknown) => {
    if (!turn || typeof turn !== 'object') return turn;
    const t = turn as Record<string, unknown>;
    return {
      role: roleOf(t[turns.role], turns.roles, owners),
      text: t[turns.text],
      ...(t[turns.at] !== undefined && { at: readTurnTime(t[turns.at], turns.atFormat) }),
    };
  });
}

/**
 * A turn's time as a Date, in the mapping's declared format (unset: a number is epoch milliseconds,
 * a string ISO 8601), so the canonical memory holds one form of it whatever the product stores.
 * Another type is passed on as found, for parseMemory to refuse with the field named.
 */
function readTurnTime(value: unknown, format: DateFormat | undefined): unknown {
  if (format) return readDate(value, format);
  return typeof value === 'number' || typeof value === 'string' ? readTime(value) : value;
}

/**
 * The stored creation date as a Date, in the mapping's declared format. A value of another type is
 * passed on as found, so parseMemory names what it is; an unreadable one becomes an invalid date.
 */
export function readDate(value: unknown, format: DateFormat): unknown {
  switch (format) {
    case 'date':
      return value;
    case 'iso':
      return typeof value === 'string' ? readTime(value) : value;
    case 'epoch-seconds':
      return typeof value === 'number' ? new Date(value * 1000) : value;
    case 'epoch-millis':
      return typeof value === 'number' ? new Date(value) : value;
  }
}

/**
 * An instant as the product stores creation dates, so a range query on them compares like with
 * like. ISO strings compare as text: they must be UTC (`Z`) in one precision, as toISOString writes.
 */
export function storedDate(date: Date, format: DateFormat): Date | string | number {
  switch (format) {
    case 'date':
      return date;
    case 'iso':
      return date.toISOString();
    case 'epoch-seconds':
      return Math.floor(date.getTime() / 1000);
    case 'epoch-millis':
      return date.getTime();
  }
}

/** The BSON type creation dates have in this format (what the invalid-memory scan looks for). */
export function storedDateType(format: DateFormat): 'date' | 'string' | 'number' {
  return format === 'date' ? 'date' : format === 'iso' ? 'string' : 'number';
}

/**
 * The role card document as core reads it, from the mapped collection or the default card. `userId`
 * is the user whose memory found it: a card keyed by partner alone holds no user id.
 */
export function canonicalRoleCard(
  doc: Record<string, unknown> | null,
  userId: string,
  mapping: Mapping,
): Record<string, unknown> | null {
  if ('default' in mapping.roleCard) return { userId, ...mapping.roleCard.default };
  if (!doc) return null;
  const p = mapping.roleCard.paths;
  const card: Record<string, unknown> = { userId };
  const fields = [
    'name',
    'userName',
    'personality',
    'values',
    'hobbies',
    'speakingStyle',
    'language',
  ] as const;
  for (const field of fields) {
    const path = p[field];
    const value = path === undefined ? undefined : valueAt(doc, path);
    if (value !== undefined && value !== null) card[field] = value;
  }
  return card;
}

/** Matches the document holding memfade's fields of one memory (its side document in side mode). */
export function mineFilter(mapping: Mapping, memoryId: string): Record<string, unknown> {
  return mapping.side ? { _id: memoryId } : memoryFilter(mapping, memoryId);
}

/** Matches the documents of these memory ids at a path, in any stored form (ids.ts). */
export const idsFilter = (path: string, memoryIds: string[]): Record<string, unknown> =>
  idsAt(path, memoryIds);

/** Matches one memory by its id at the mapped path, in any stored form (ids.ts). */
export const memoryFilter = (mapping: Mapping, memoryId: string): Record<string, unknown> =>
  idsAt(mapping.fields.memoryId, [memoryId]);

/** Matches memories at a stage; raw includes documents without one when the mapping says so. */
export function stageFilter(mapping: Mapping, stage: string): Record<string, unknown> {
  const raw = mapping.missingStageIsRaw && stage === 'raw';
  return { [mapping.fields.stage]: raw ? { $in: ['raw', null] } : stage };
}

/** Matches memories at any of these stages (raw as stageFilter reads it). */
export function stagesFilter(mapping: Mapping, stages: string[]): Record<string, unknown> {
  const missing = mapping.missingStageIsRaw && stages.includes('raw') ? [null] : [];
  return { [mapping.fields.stage]: { $in: [...stages, ...missing] } };
}

/** Matches memories whose stage is none memfade knows (a missing one too, unless it reads as raw). */
export function unknownStageFilter(mapping: Mapping, known: readonly string[]): Record<string, unknown> {
  // $exists: some servers match a missing field with $nin null.
  return {
    [mapping.fields.stage]: mapping.missingStageIsRaw
      ? { $exists: true, $nin: [...known, null] }
      : { $nin: known },
  };
}
