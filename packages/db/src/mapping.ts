import type { TargetStage } from '@memfade/core';
import { checkCollections, checkWritesApart } from './mapping-rules.js';
import {
  type DateFormat,
  type DefaultRoleCard,
  type Fields,
  type MappingConfig,
  mappingShape,
  type RoleCardPaths,
} from './mapping-schema.js';

export {
  DATE_FORMATS,
  type DateFormat,
  type DefaultRoleCard,
  type Fields,
  type MappingConfig,
  mappingShape,
  type RoleCardPaths,
} from './mapping-schema.js';

/**
 * Where memfade's data lives in the product's MongoDB (docs/design.md §3): configuration, read
 * from the MEMFADE_MAPPING file and validated here; no mapping file means today's defaults.
 * Every read and write of product data in this package goes through a Mapping, and canonical.ts
 * turns a product document into the shape core reads, in one place.
 */

/** memfade's own collections: never the product's, so they are not part of the mapping. */
export const COLLECTIONS = {
  memories: 'memories',
  roleCards: 'role_cards',
  runs: 'compression_runs',
  runErrors: 'compression_run_errors',
  /** Small state documents of memfade's (the enrolment watermark of side-collection mode). */
  state: 'compression_state',
  batchRequests: 'compression_batch_requests',
  batches: 'compression_batches',
  /** Which run holds each memory with a live model request (holds.ts). */
  holds: 'compression_holds',
  /** What each user cost in each run (user-costs.ts). */
  userCosts: 'compression_user_costs',
};

export type CollectionNames = typeof COLLECTIONS;

/** The mapping file's schema with the checks that span keys: the error names the key it refuses. */
export const mappingSchema = mappingShape.superRefine((config, ctx) => {
  const refuse = (path: string[], message: string) => ctx.addIssue({ code: 'custom', path, message });
  const { conversation } = config.memory;
  if (conversation.collection) {
    if (conversation.path !== undefined)
      refuse(
        ['memory', 'conversation', 'path'],
        'not with conversation.collection: the turns are the documents of that collection',
      );
    if (!conversation.memoryId)
      refuse(
        ['memory', 'conversation', 'memoryId'],
        'expected the field of each turn document holding the memory id (conversation.collection is set)',
      );
    if (!conversation.order)
      refuse(
        ['memory', 'conversation', 'order'],
        'expected the field the turns are sorted by (conversation.collection is set)',
      );
  } else {
    for (const key of ['memoryId', 'order'] as const)
      if (conversation[key] !== undefined)
        refuse(
          ['memory', 'conversation', key],
          'only with conversation.collection (turns in another collection)',
        );
  }
  if (config.writes.collection) {
    if (config.writes.prefix)
      refuse(
        ['writes', 'prefix'],
        'not with writes.collection: memfade writes nothing in the product documents',
      );
    if (config.memory.stage !== undefined)
      refuse(['memory', 'stage'], 'not with writes.collection: the stage is kept in the side collection');
    const taken = [...Object.values(COLLECTIONS), config.collections.memories, config.collections.roleCards];
    if (taken.includes(config.writes.collection) || config.writes.collection === conversation.collection)
      refuse(
        ['writes', 'collection'],
        `expected a collection of memfade's own, not ${config.writes.collection}`,
      );
  }
  // Invariant 10: memfade writes nothing the product owns (mapping-rules.ts).
  const own = Object.entries(COLLECTIONS)
    .filter(([kind]) => kind !== 'memories' && kind !== 'roleCards')
    .map(([, collection]) => collection);
  checkCollections(config, own, refuse);
  if (!config.writes.collection) checkWritesApart(config, resolveMapping(config).fields, refuse);
});

/**
 * The card fields holding the key a memory finds its card by, each matched with the memory's field
 * of the same name (its user id, its partner id): one of them or both.
 */
export interface RoleCardKeys {
  userId?: string;
  partnerId?: string;
}
/** A role card collection of the product's: its keys, where each field is, and its update time. */
export interface RoleCardCollection {
  keys: RoleCardKeys;
  paths: RoleCardPaths;
  updatedAt?: string;
}

const KEY_PARTS = ['userId', 'partnerId'] as const;

/** The mapped key parts of a card collection, as [memory field, card path]. */
export function keyParts(collection: RoleCardCollection): [(typeof KEY_PARTS)[number], string][] {
  return KEY_PARTS.filter((part) => collection.keys[part] !== undefined).map((part) => [
    part,
    collection.keys[part]!,
  ]);
}

/**
 * The document that holds memfade's fields (`fields.stage`, `fields.rev`, ...) and where it keeps
 * the memory's id, user and creation date: the product's memory document (beside or under a prefix),
 * or memfade's side document (side-collection mode: `_id`, `userId`, `createdAt` as a BSON date).
 */
export interface MineDocument {
  collection: string;
  id: string;
  userId: string;
  createdAt: string;
  createdAtFormat: DateFormat;
}

/** Turns kept in another collection, one document per turn, joined by the memory's id. */
export interface JoinedTurns {
  collection: string;
  memoryId: string;
  order: string;
}

export interface Mapping {
  config: MappingConfig;
  collections: CollectionNames;
  fields: Fields;
  /** Where memfade's fields are written. */
  mine: MineDocument;
  /** Side-collection mode: the product's memory documents are never written. */
  side: boolean;
  /** The conversation's turns are documents of another collection. */
  joined?: JoinedTurns;
  createdAtFormat: DateFormat;
  /** A document without a stage is raw (and the due scan for raw matches a missing stage too). */
  missingStageIsRaw: boolean;
  /**
   * memfade's fields sit in the product's documents under names the product did not agree to (a
   * mapping file, prefix or none): memfade writes them only where it wrote them before, or where none
   * exists yet (ownership.ts, docs/design.md §3). False without a mapping file, where the documents
   * follow memfade's data contract (the fields are memfade's by it), and in side-collection mode.
   */
  checksOwnership: boolean;
  /** The role card collection's keys and paths, or the one card every user shares. */
  roleCard: RoleCardCollection | { default: DefaultRoleCard };
}

/** A side document's keys besides memfade's fields (side-collection mode). */
export const SIDE_KEYS = { id: '_id', userId: 'userId', createdAt: 'createdAt' } as const;

const join = (prefix: string, field: string) => (prefix ? `${prefix}.${field}` : field);

/** Drops paths inside another listed path: the outer one already holds them. */
export function outermost(paths: string[]): string[] {
  const unique = [...new Set(paths)];
  return unique.filter((p) => !unique.some((other) => other !== p && p.startsWith(`${other}.`)));
}

/** A validated mapping file's content (or nothing: the defaults) resolved into field paths. */
export function resolveMapping(config: MappingConfig): Mapping {
  const { memory, writes } = config;
  const side = writes.collection !== undefined;
  // In a side document memfade's fields are at its top level.
  const prefix = side ? '' : writes.prefix;
  const { collection: turnsCollection, memoryId: turnMemoryId, order } = memory.conversation;
  const joined =
    turnsCollection && turnMemoryId && order
      ? { collection: turnsCollection, memoryId: turnMemoryId, order }
      : undefined;
  // Joined turns are in no field of the memory document.
  const conversation = joined ? '' : (memory.conversation.path ?? 'content.raw');
  const compression = join(prefix, 'compression');
  const vectorSync = join(prefix, 'vectorSync');
  const fields: Fields = {
    memoryId: memory.id,
    userId: memory.userId,
    partnerId: memory.partnerId,
    createdAt: memory.createdAt.path,
    language: memory.language,
    conversation,
    processed: memory.processed,
    pendingTopics: memory.pendingTopics,
    inputs: outermost([conversation, memory.processed, memory.pendingTopics].filter(Boolean)),
    stage: side ? 'stage' : (memory.stage ?? (prefix ? `${prefix}.stage` : 'meta.compressionStage')),
    compressedAt: side ? 'compressedAt' : prefix ? `${prefix}.compressedAt` : 'meta.compressedAt',
    rev: join(prefix, 'rev'),
    compression,
    history: `${compression}.history`,
    lastError: `${compression}.lastError`,
    v2Draft: `${compression}.v2Draft`,
    rollbacks: `${compression}.rollbacks`,
    discarded: `${compression}.discarded`,
    fallbackLastError: join(prefix, 'memfadeLastError'),
    vectorSync,
    vectorPending: `${vectorSync}.pending`,
    vectorHash: `${vectorSync}.textHash`,
    vectorFlag: `${vectorSync}.flag`,
    vectorSyncedAt: `${vectorSync}.syncedAt`,
    owner: join(prefix, 'memfade'),
  };
  const collections = { ...COLLECTIONS, ...config.collections };
  return {
    config,
    collections,
    fields,
    mine: side
      ? { collection: writes.collection!, ...SIDE_KEYS, createdAtFormat: 'date' }
      : {
          collection: collections.memories,
          id: memory.id,
          userId: memory.userId,
          createdAt: memory.createdAt.path,
          createdAtFormat: memory.createdAt.format,
        },
    side,
    ...(joined && { joined }),
    createdAtFormat: memory.createdAt.format,
    // A memory without a side document is raw; a side document always has a stage.
    missingStageIsRaw: !side && memory.missingStage === 'raw',
    checksOwnership: !side,
    roleCard: config.roleCard.default ? { default: config.roleCard.default } : roleCardCollection(config),
  };
}

function roleCardCollection(config: MappingConfig): RoleCardCollection {
  const { default: _, key, updatedAt, ...paths } = config.roleCard;
  return {
    keys: typeof key === 'string' ? { userId: key } : key,
    paths,
    ...(updatedAt !== undefined && { updatedAt }),
  };
}

/** Parses a mapping file's content; the error names the offending key (`mapping.memory.id: ...`). */
export function parseMapping(content: unknown): Mapping {
  const parsed = mappingSchema.safeParse(content ?? {});
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => {
      const where = ['mapping', ...issue.path.map(String)].join('.');
      return `${where}: ${issue.message}`;
    });
    throw new MappingError(problems.join('\n'));
  }
  const mapping = resolveMapping(parsed.data);
  // A file that maps nothing of the memory documents (only role cards, or collection names) leaves
  // them in memfade's document shape, the data contract: the fields of memfade's name in them are
  // memfade's by that contract, as without a file (ownership.ts). Checked, every memory the
  // product inserted as the contract says (`rev: 0`, `vectorSync`) was refused as the product's
  // data (simulate --seed 4021: memfade's own shape, two personas, so a file for the card key).
  const { memory, writes } = (content ?? {}) as Record<string, unknown>;
  return memory === undefined && writes === undefined ? { ...mapping, checksOwnership: false } : mapping;
}

export class MappingError extends Error {
  override readonly name = 'MappingError';
}

/**
 * Today's field names: what a product gets without a mapping file. Its documents carry a stage
 * from their insert (docs/design.md §3), so one without is bad input, as before mappings existed.
 */
export const DEFAULT_MAPPING: Mapping = {
  ...resolveMapping(mappingSchema.parse({ memory: { missingStage: 'invalid' } })),
  // The product writes memfade's document shape (docs/how-it-works.md, the data contract): the
  // fields are memfade's by that contract, whoever wrote them first.
  checksOwnership: false,
};

/** The default field paths (the paths of docs/design.md §3). */
export const F = DEFAULT_MAPPING.fields;

export const stageResultPath = (mapping: Mapping, stage: TargetStage) =>
  `${mapping.fields.compression}.${stage}`;

/** The value at a dotted path of a document as read (undefined when any part is missing). */
export function valueAt(doc: Record<string, unknown>, path: string): unknown {
  let value: unknown = doc;
  for (const key of path.split('.')) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}
