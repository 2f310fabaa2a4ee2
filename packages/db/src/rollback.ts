import {
  type Memory,
  type Stage,
  searchableText,
  stageIndex,
  type TargetStage,
  vectorHash,
} from '@memfade/core';
import { stageResultPath } from './mapping.js';
import { loadMemoryDocument, writeMine } from './memory-documents.js';
import type { Models } from './models.js';

export interface RollbackResult {
  from: Stage;
  to: 'raw' | 'v1';
}

/** A rollback the memory's state refuses (nothing to roll back, or it changed meanwhile): nothing written. */
export class RollbackRefusedError extends Error {
  override readonly name = 'RollbackRefusedError';
}

/**
 * Takes a memory back to an earlier stage so the next run compresses it again. Nothing is lost:
 * the stage results it drops are kept under `compression.rollbacks`, and the original content is
 * never touched. One write, conditional on the revision read, like every other transition.
 */
export async function rollbackStage(
  models: Models,
  memoryId: string,
  to: 'raw' | 'v1',
  at: Date,
): Promise<RollbackResult> {
  const { mapping } = models;
  const F = mapping.fields;
  const found = await loadMemoryDocument(models, memoryId);
  if (!found) throw new Error(`memory ${memoryId}: not found`);
  const doc = found as unknown as Memory;
  const from = doc.meta?.compressionStage;
  if (!from || stageIndex(from) <= stageIndex(to)) {
    throw new RollbackRefusedError(
      `memory ${memoryId}: is at ${from ?? 'no stage'}, nothing to roll back to ${to}`,
    );
  }
  const dropped = to === 'raw' ? ['v1', 'v2'] : ['v2'];
  const results = Object.fromEntries(
    dropped.map((s) => [s, doc.compression?.[s as TargetStage]]).filter(([, r]) => r),
  );
  const compression = {
    ...doc.compression,
    v1: to === 'raw' ? undefined : doc.compression?.v1,
    v2: undefined,
  };
  const after = { ...doc, compression, meta: { ...doc.meta, compressionStage: to } } as Memory;
  const rollbacks = [
    ...((doc.compression as { rollbacks?: unknown[] })?.rollbacks ?? []),
    { from, to, at, results },
  ];
  const text = searchableText(after);
  const unset: Record<string, ''> = Object.fromEntries(
    dropped.map((s) => [stageResultPath(mapping, s as TargetStage), '']),
  );
  if (to === 'raw') unset[F.compressedAt] = '';
  // A draft belongs to the V1 it was written with (docs/design.md §4).
  unset[F.v2Draft] = '';
  // Not computed from the content: it holds the stage and revision only.
  const written = await writeMine(
    models,
    { memoryId, expectedStage: from, expectedRev: doc.rev ?? 0, asRead: found },
    {
      $set: {
        [F.stage]: to,
        [F.rollbacks]: rollbacks,
        [F.vectorSync]: { pending: true, stage: to, textHash: vectorHash(to, text) },
      },
      $unset: unset,
    },
    { holdInputs: false },
  );
  if (!written) throw new RollbackRefusedError(`memory ${memoryId}: changed while rolling back; try again`);
  return { from, to };
}
