import { isDeepStrictEqual } from 'node:util';
import {
  type LastError,
  type MemoryStore,
  type StageTransition,
  type StaleStagesDiscard,
  vectorHash,
} from '@memfade/core';

type Doc = Record<string, unknown> & {
  meta: { compressionStage: string; compressedAt?: Date };
  compression?: Record<string, unknown>;
  rev?: number;
};

/**
 * A deep copy of a document as a database hands it out: plain objects, arrays and dates copied,
 * anything else (never seen here) by structuredClone. structuredClone alone serialises every
 * value and took 2-3% of a whole eval's CPU.
 */
function copy<T>(value: T): T {
  if (value === null || typeof value !== 'object') return value;
  if (value instanceof Date) return new Date(value.getTime()) as T;
  if (Array.isArray(value)) return value.map(copy) as T;
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return structuredClone(value);
  const out: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(value)) out[key] = copy(field);
  return out as T;
}

/**
 * The evaluation's memory database: documents held in a Map, never MongoDB, so `memfade eval`
 * cannot touch production data. It honours the same conditional writes as the MongoDB store
 * (packages/db memory-store.ts): a write applies only while the memory is at the expected stage
 * and revision and its input (content, pending topics) is as read; otherwise it returns false.
 */
export class InMemoryMemoryStore implements MemoryStore {
  private readonly memories = new Map<string, Doc>();
  private readonly roleCards = new Map<string, Record<string, unknown>>();

  /** The evaluation's documents are in memfade's own shape: every field keeps its name. */
  fieldName(field: string): string {
    return field;
  }

  putMemory(doc: Record<string, unknown> & { memoryId: string }): void {
    this.memories.set(doc.memoryId, copy(doc) as unknown as Doc);
  }

  putRoleCard(card: Record<string, unknown> & { userId: string }): void {
    this.roleCards.set(card.userId, copy(card));
  }

  async loadMemory(memoryId: string): Promise<Record<string, unknown> | null> {
    const doc = this.memories.get(memoryId);
    // A copy, as a database read would return: the pipeline's changes reach the store only by a write.
    return doc ? copy(doc) : null;
  }

  async loadRoleCard(userId: string): Promise<Record<string, unknown> | null> {
    const card = this.roleCards.get(userId);
    return card ? copy(card) : null;
  }

  /** The stored memory at (expectedStage, expectedRev) with its input as read, or undefined. */
  private matching(
    memoryId: string,
    expectedStage: string,
    expectedRev: number,
    asRead: Record<string, unknown>,
  ): Doc | undefined {
    const doc = this.memories.get(memoryId);
    if (!doc) return undefined;
    if (doc.meta.compressionStage !== expectedStage || (doc.rev ?? 0) !== expectedRev) return undefined;
    if (!isDeepStrictEqual(doc.content, asRead.content)) return undefined;
    if (!isDeepStrictEqual(doc.pendingTopics, asRead.pendingTopics)) return undefined;
    return doc;
  }

  async applyTransition(t: StageTransition): Promise<boolean> {
    const doc = this.matching(t.memoryId, t.expectedStage, t.expectedRev, t.asRead);
    if (!doc) return false;
    // As the MongoDB store: a V2 draft comes with its V1 and goes with the next stage write.
    const { lastError: _cleared, v2Draft: _draft, ...compression } = doc.compression ?? {};
    doc.compression = {
      ...compression,
      [t.stage]: copy(t.result),
      ...(t.draft && { v2Draft: copy(t.draft) }),
      history: copy(t.history),
    };
    doc.meta = { ...doc.meta, compressionStage: t.stage, compressedAt: t.result.compressedAt };
    doc.vectorSync = { pending: true, stage: t.stage, textHash: vectorHash(t.stage, t.searchText) };
    doc.rev = (doc.rev ?? 0) + 1;
    return true;
  }

  async discardStaleStages(d: StaleStagesDiscard): Promise<boolean> {
    const doc = this.matching(d.memoryId, d.expectedStage, d.expectedRev, d.asRead);
    if (!doc) return false;
    const before = doc.compression ?? {};
    const list = (value: unknown) => (Array.isArray(value) ? value : []);
    const { v1: _v1, v2: _v2, v2Draft: _draft, rollbacks: _rollbacks, ...kept } = before;
    doc.compression = {
      ...kept,
      history: [],
      discarded: [
        ...list(before.discarded),
        ...list(before.history).map((entry) => ({ ...entry, discardedAt: d.at })),
      ],
    };
    const { compressedAt: _at, ...meta } = doc.meta;
    doc.meta = { ...meta, compressionStage: 'raw' };
    doc.vectorSync = { pending: true, stage: 'raw', textHash: vectorHash('raw', d.searchText) };
    doc.rev = (doc.rev ?? 0) + 1;
    return true;
  }

  async recordError(memoryId: string, error: LastError): Promise<void> {
    const doc = this.memories.get(memoryId);
    if (!doc) return;
    doc.compression = { ...(doc.compression ?? {}), lastError: copy(error) };
    doc.rev = (doc.rev ?? 0) + 1;
  }
}
