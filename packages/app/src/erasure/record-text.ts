import { type Memory, parseMemory, type StagePolicy, searchableText, sourceHash } from '@memfade/core';
import { F, valueAt } from '@memfade/db';

/**
 * What a memory's vector record must hold, or undefined when it must have none: a memory that
 * failed as bad input (its last error says so) or that parseMemory refuses (huge, binary,
 * malformed) is not embedded. The outbox drain and the erasure sweep decide with this one function.
 */
export function recordText(doc: Record<string, unknown>, policy: StagePolicy): string | undefined {
  const compression = asObject(valueAt(doc, F.compression));
  const lastErrors = [asObject(valueAt(doc, F.lastError)), asObject(valueAt(doc, F.fallbackLastError))];
  if (lastErrors.some((error) => error?.stage === 'input')) return undefined;
  // Its content and dates; the stage results are read below for their text only (the outbox
  // reads no more of them than that).
  const memory = readMemory(doc, policy);
  if (!memory) return undefined;
  const v1 = asObject(compression?.v1);
  const v2 = asObject(compression?.v2);
  return searchableText({
    ...memory,
    compression: {
      history: [],
      v1: typeof v1?.compressedContent === 'string' ? (v1 as never) : undefined,
      v2: typeof v2?.coreMemory === 'string' ? (v2 as never) : undefined,
    },
  });
}

/**
 * The memory as the pipeline reads it (parseMemory of the canonical document), without its stage
 * results; undefined when parseMemory refuses it (bad input). Its content is what sourceHash hashes on
 * every path (stage write, batch request, drain, sweep): hashed from the document as loaded, a turn
 * time stored as a number or an ISO string would read as other content than the stage's
 * (docs/design.md invariant 7).
 */
export function readMemory(doc: Record<string, unknown>, policy: StagePolicy): Memory | undefined {
  try {
    return parseMemory({ ...doc, compression: undefined }, policy);
  } catch {
    return undefined;
  }
}

/**
 * The memory (as readMemory reads it) when a stage result of it was computed from content other than
 * the content read here (its `sourceHash` is not the content's): such a stage must not be embedded,
 * and the memory goes back to raw (docs/design.md invariant 7). Undefined otherwise, and for bad input
 * (recordText says so).
 */
export function staleMemory(doc: Record<string, unknown>, policy: StagePolicy): Memory | undefined {
  const compression = asObject(valueAt(doc, F.compression));
  const hashes = [asObject(compression?.v1)?.sourceHash, asObject(compression?.v2)?.sourceHash].filter(
    (hash) => typeof hash === 'string',
  );
  if (hashes.length === 0) return undefined;
  const memory = readMemory(doc, policy);
  if (!memory) return undefined;
  const source = sourceHash(memory);
  return hashes.some((hash) => hash !== source) ? memory : undefined;
}

function asObject(value: unknown): Record<string, unknown> | undefined {
  return value !== null && typeof value === 'object' ? (value as Record<string, unknown>) : undefined;
}
