import { type Language, type RoleCard, rawText, type Turn, vectorHash } from '@memfade/core';
import { DEFAULT_MAPPING, MappingError } from './mapping.js';
import type { Models } from './models.js';

/**
 * New memories written by `memfade import` and the demo, in memfade's own document shape
 * (docs/design.md §3); memory-documents.ts reads and writes memories the product already has.
 */

/** A new memory document as the product would store it, in the docs/design.md §3 shape. */
export interface NewMemory {
  memoryId: string;
  userId: string;
  partnerId: string;
  turns: Turn[];
  createdAt: Date;
  language?: Language;
}

export function memoryDocument(memory: NewMemory): Record<string, unknown> {
  const raw = memory.turns;
  return {
    memoryId: memory.memoryId,
    userId: memory.userId,
    partnerId: memory.partnerId,
    content: { raw },
    meta: {
      createdAt: memory.createdAt,
      compressionStage: 'raw',
      ...(memory.language && { language: memory.language }),
    },
    compression: { history: [] },
    // New memories are indexed with their raw text until compression replaces it.
    vectorSync: { pending: true, stage: 'raw', textHash: vectorHash('raw', rawText(raw)) },
    rev: 0,
  };
}

/**
 * Writes memories and role cards idempotently: an existing memoryId or userId is left exactly
 * as it is (importing twice adds nothing and never overwrites a compressed memory). In memfade's
 * own document shape only: through a mapping file it would put documents of another shape into
 * the product's collections, so it refuses.
 */
export async function insertMemories(
  models: Models,
  memories: Record<string, unknown>[],
  roleCards: RoleCard[],
): Promise<{ memories: number; roleCards: number }> {
  if (models.mapping !== DEFAULT_MAPPING)
    throw new MappingError(
      "import writes memfade's own document shape, not a mapped one: unset MEMFADE_MAPPING to import",
    );
  let insertedMemories = 0;
  let insertedCards = 0;
  for (let i = 0; i < memories.length; i += 1000) {
    const chunk = memories.slice(i, i + 1000);
    const result = await models.memories.bulkWrite(
      chunk.map((doc) => ({
        updateOne: { filter: { memoryId: doc.memoryId }, update: { $setOnInsert: doc }, upsert: true },
      })),
      { ordered: false },
    );
    insertedMemories += result.upsertedCount;
  }
  if (roleCards.length) {
    const result = await models.roleCards.bulkWrite(
      roleCards.map((card) => ({
        updateOne: { filter: { userId: card.userId }, update: { $setOnInsert: card }, upsert: true },
      })),
      { ordered: false },
    );
    insertedCards = result.upsertedCount;
  }
  return { memories: insertedMemories, roleCards: insertedCards };
}
