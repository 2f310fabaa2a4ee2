import { productNamed } from './errors.js';
import { sourceHash } from './format.js';
import type { Memory } from './memory.js';
import { parseMemory } from './parse.js';
import type { MemoryStore } from './ports.js';
import type { StagePolicy } from './stage-policy.js';

/** A memory as a stage reads it before it computes or checks anything (readForStage). */
export interface StageRead {
  /** The document as stored: every stage write holds it (docs/design.md invariant 7). */
  doc: Record<string, unknown>;
  memory: Memory;
  /** The instant the stage is computed for: the memory's age and the write's time. */
  now: Date;
  /** The hash of the content its stages are computed from (format.ts sourceHash). */
  source: string;
}

/**
 * The stage preamble the sync path (pipeline.ts) and batch mode (batch-stage.ts) share: the memory
 * read as stored, parsed at the clock's instant (BadInputError for what no model call can fix),
 * with its source hash. Undefined when the memory is gone.
 */
export async function readForStage(
  memoryId: string,
  deps: { store: Pick<MemoryStore, 'loadMemory'>; policy: StagePolicy; now: () => Date },
): Promise<StageRead | undefined> {
  const doc = await deps.store.loadMemory(memoryId);
  if (!doc) return undefined;
  const now = deps.now();
  const memory = parseMemory(doc, deps.policy, now);
  return { doc, memory, now, source: sourceHash(memory) };
}

/**
 * Runs one batch step (a request's preparation, a reply's check) with bad input named as the
 * product names its fields (MemoryStore.fieldName): every BadInputError of the step, the parse's,
 * the role card's and the chunk limit's, leaves through here (the sync path's, compressMemory's).
 */
export async function inProductNames<T>(
  store: Pick<MemoryStore, 'fieldName'>,
  step: () => Promise<T>,
): Promise<T> {
  try {
    return await step();
  } catch (error) {
    throw productNamed(error, (field) => store.fieldName(field));
  }
}
