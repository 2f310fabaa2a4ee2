import { z } from 'zod';
import { collectionName, fieldKey, fieldPath } from './mapping-names.js';

/**
 * The mapping file's schema (docs/mapping.md): what an operator may write in MEMFADE_MAPPING, with
 * the defaults that describe the reference design's documents. mapping.ts adds the checks across
 * keys (mappingSchema) and resolves it into paths.
 */

export const DATE_FORMATS = ['date', 'iso', 'epoch-seconds', 'epoch-millis'] as const;
export type DateFormat = (typeof DATE_FORMATS)[number];

/** Paths, keys and collection names MongoDB reads as meant (mapping-names.ts). */
const path = fieldPath;
const key = fieldKey;
const name = collectionName;
/** A wrong type reads "expected an object"; an unknown key keeps zod's message, which names it. */
const objectError = (issue: { code?: string }) =>
  issue.code === 'invalid_type' ? 'expected an object' : undefined;
const strictObject = <T extends z.ZodRawShape>(shape: T) =>
  z.strictObject(shape, { error: objectError }).prefault({} as never);

const cardText = z.string({ error: 'expected a string' }).optional();
/**
 * The card fields a memory finds its card by: a path (the user's id, as before), or the card fields
 * holding the memory's user id, its partner id, or both (one card per partner, or per user and partner).
 */
const cardKey = z.union(
  [
    path,
    z
      .strictObject({ userId: path.optional(), partnerId: path.optional() })
      .refine((k) => k.userId !== undefined || k.partnerId !== undefined, {
        error: 'expected userId, partnerId or both',
      })
      .refine((k) => k.userId !== k.partnerId, { error: 'expected two different paths' }),
  ],
  { error: 'expected a field path, or { userId: <card path>, partnerId: <card path> }' },
);
const cardList = z
  .union([z.string(), z.array(z.string())], { error: 'expected a string or a list' })
  .optional();

export const mappingShape = z.strictObject(
  {
    collections: strictObject({
      memories: name.default('memories'),
      roleCards: name.default('role_cards'),
    }),
    memory: strictObject({
      /** `_id` works too, when it holds a string. */
      id: path.default('memoryId'),
      userId: path.default('userId'),
      partnerId: path.default('partnerId'),
      createdAt: strictObject({
        path: path.default('meta.createdAt'),
        format: z.enum(DATE_FORMATS, { error: `expected one of ${DATE_FORMATS.join(', ')}` }).default('date'),
      }),
      /** Where memfade keeps the stage; unset: beside its other fields (writes.prefix). */
      stage: path.optional(),
      /**
       * What a document without a stage is: `raw` (memfade has not written it yet: the default of a
       * mapping file) or `invalid` (bad input: memfade's own document shape, where the product
       * writes the stage at insert).
       */
      missingStage: z.enum(['raw', 'invalid'], { error: 'expected raw or invalid' }).default('raw'),
      language: path.default('meta.language'),
      conversation: strictObject({
        /** content.raw unless the turns are in another collection. */
        path: path.optional(),
        /** Turns kept in another collection, one document per turn, joined by memory id. */
        collection: name.optional(),
        /** The field of each turn document holding the memory's id (with `collection`). */
        memoryId: path.optional(),
        /** The field the turns of one memory are sorted by, ascending (with `collection`). */
        order: path.optional(),
        /**
         * Set when the conversation is an array of turns shaped the product's way: the keys of a
         * turn's role, text and time, and the product's role values mapped to memfade's.
         */
        turns: z
          .strictObject(
            {
              role: key.default('role'),
              text: key.default('text'),
              at: key.default('at'),
              /**
               * How a turn's time is stored, as `createdAt.format`; unset: as found (a BSON date, an
               * ISO string, or a number of epoch milliseconds).
               */
              atFormat: z
                .enum(DATE_FORMATS, { error: `expected one of ${DATE_FORMATS.join(', ')}` })
                .optional(),
              roles: z
                .record(z.string(), z.string(), { error: 'expected an object of role names' })
                .default({}),
            },
            { error: objectError },
          )
          .optional(),
      }),
      processed: path.default('content.processed'),
      pendingTopics: path.default('pendingTopics'),
    }),
    roleCard: strictObject({
      /** One card for every user, for products without personas: the paths below are then unused. */
      default: z
        .strictObject(
          {
            name: cardText,
            personality: cardList,
            values: z.array(z.string(), { error: 'expected a list of strings' }).optional(),
            hobbies: cardList,
            speakingStyle: cardText,
            language: z.enum(['zh', 'en'], { error: 'expected zh or en' }).optional(),
          },
          { error: objectError },
        )
        .optional(),
      key: cardKey.default('userId'),
      /** When the card last changed: of two cards with one key, the most recent one is used. */
      updatedAt: path.optional(),
      name: path.default('name'),
      /** What the persona calls its user; unset: the product has no user name (the prompt says 你/you). */
      userName: path.optional(),
      personality: path.default('personality'),
      values: path.default('values'),
      hobbies: path.default('hobbies'),
      speakingStyle: path.default('speakingStyle'),
      language: path.default('language'),
    }),
    writes: strictObject({
      /** memfade's fields go under this path; empty: today's fields (meta.compressionStage, compression, ...). */
      prefix: z.union([path, z.literal('')]).default(''),
      /** A side collection of memfade's, keyed by memory id: the product's documents are never written. */
      collection: name.optional(),
    }),
  },
  { error: objectError },
);

export type MappingConfig = z.infer<typeof mappingShape>;
export type DefaultRoleCard = NonNullable<MappingConfig['roleCard']['default']>;
/** Where each role card field is in the product's card documents. */
export type RoleCardPaths = Omit<MappingConfig['roleCard'], 'default' | 'key' | 'updatedAt'>;

/** The field paths every query uses, resolved once from the mapping. */
export interface Fields {
  memoryId: string;
  userId: string;
  partnerId: string;
  createdAt: string;
  language: string;
  conversation: string;
  processed: string;
  pendingTopics: string;
  /** The product's input to compression: a stage write holds them as read (docs/design.md invariant 7). */
  inputs: string[];
  stage: string;
  compressedAt: string;
  rev: string;
  compression: string;
  history: string;
  lastError: string;
  /** The V2 draft written with V1 (V2_DRAFT=with-v1), until V2 is written. */
  v2Draft: string;
  /** Stage results a rollback dropped, kept for a later look. */
  rollbacks: string;
  /** History entries of stages discarded because the product changed the content they came from. */
  discarded: string;
  /** Where the error goes when `compression` itself is malformed and cannot take a sub-field. */
  fallbackLastError: string;
  vectorSync: string;
  vectorPending: string;
  vectorHash: string;
  vectorFlag: string;
  vectorSyncedAt: string;
  /** memfade's mark on a product document whose memfade-named fields it wrote (ownership.ts). */
  owner: string;
}
