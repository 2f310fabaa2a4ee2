/**
 * What every adapter checks the same way: one embedder per store (dimensions and model), records it
 * can hold, and the message that tells the operator how to rebuild. One place, so LanceDB, pgvector
 * and MongoDB refuse a model change with the same words.
 */
import type { ListIdsOptions, VectorRecord } from '@memfade/core';

export interface StoreSpec {
  /** How messages name the store, e.g. "vector table 'memories' in /data/vectors". */
  name: string;
  /** What empties it, e.g. "delete or rename the vector folder /data/vectors". */
  clear: string;
  dimensions: number;
  embeddingModel: string;
}

/** What an existing store was built with, as found (undefined where it does not say). */
export type FoundLayout = { missing: string[] } | { dimensions?: number; embeddingModel?: string };

export const DEFAULT_LIST_LIMIT = 1000;

export function checkDimensions(dimensions: number): void {
  if (!Number.isInteger(dimensions) || dimensions <= 0) {
    throw new Error(`vector dimensions must be a positive integer, got ${dimensions}`);
  }
}

/**
 * What the operator must do when the store and the embedder disagree. The store holds only vectors
 * derived from MongoDB, so emptying it loses nothing that reindex cannot rebuild; it must go first
 * because reindex opens the same store and would hit the same mismatch.
 */
export function reindexHint(spec: Pick<StoreSpec, 'clear'>): string {
  return (
    `${spec.clear} (it holds only vectors derived from MongoDB), ` +
    'then run `memfade reindex --all` to re-embed every memory with the configured embedder'
  );
}

/** Throws when an existing store was built by another embedder: its vectors cannot be compared with new ones. */
export function checkLayout(found: FoundLayout, spec: StoreSpec): void {
  if ('missing' in found) {
    if (found.missing.length === 0) return;
  } else if (found.dimensions === spec.dimensions && found.embeddingModel === spec.embeddingModel) {
    return;
  }
  const what =
    'missing' in found
      ? `lacks the columns ${found.missing.join(', ')}`
      : `holds ${found.dimensions ?? 'unknown-size'}-dimension vectors from embedding model ` +
        `'${found.embeddingModel ?? 'unknown'}'`;
  throw new Error(
    `${spec.name} ${what}, but the configured embedder is ` +
      `'${spec.embeddingModel}' with ${spec.dimensions} dimensions: ${reindexHint(spec)}`,
  );
}

/** Refuses a record the store cannot hold consistently, naming the memory so the operator can find it. */
export function checkRecord(record: VectorRecord, spec: StoreSpec): void {
  if (record.vector.length !== spec.dimensions) {
    throw new Error(
      `memory ${record.id}: its vector has ${record.vector.length} dimensions, but the ${spec.name} ` +
        `expects ${spec.dimensions} (embedding model '${spec.embeddingModel}'). If the embedder ` +
        `changed, ${reindexHint(spec)}`,
    );
  }
  if (record.embeddingModel !== spec.embeddingModel) {
    throw new Error(
      `memory ${record.id}: its vector comes from embedding model '${record.embeddingModel}', but the ` +
        `${spec.name} holds '${spec.embeddingModel}'. If the embedder changed, ${reindexHint(spec)}`,
    );
  }
  // A NaN would be stored silently and poison every distance computed against it.
  if (!record.vector.every(Number.isFinite)) {
    throw new Error(`memory ${record.id}: its vector contains a value that is not a finite number`);
  }
  if (!Number.isInteger(record.rev)) {
    throw new Error(`memory ${record.id}: rev must be an integer, got ${record.rev}`);
  }
  if (Number.isNaN(record.updatedAt.getTime())) {
    throw new Error(`memory ${record.id}: updatedAt is an invalid date`);
  }
}

export function checkQueryVector(vector: number[], spec: StoreSpec): void {
  if (vector.length !== spec.dimensions) {
    throw new Error(
      `query vector has ${vector.length} dimensions, but the ${spec.name} expects ` +
        `${spec.dimensions} (embedding model '${spec.embeddingModel}'). If the embedder changed, ` +
        reindexHint(spec),
    );
  }
}

/**
 * One record per id, the highest rev winning and the last of equal revs: a single write statement
 * cannot touch one row twice (PostgreSQL refuses, LanceDB inserts a new id twice).
 */
export function latestById(records: VectorRecord[]): VectorRecord[] {
  const latest = new Map<string, VectorRecord>();
  for (const record of records) {
    const seen = latest.get(record.id);
    if (!seen || seen.rev <= record.rev) latest.set(record.id, record);
  }
  return [...latest.values()];
}

/** Binary UTF-8 order, as PostgreSQL's "C" collation and MongoDB compare strings. */
export function compareIds(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}

export function listLimit(options: ListIdsOptions | undefined): number {
  const limit = options?.limit ?? DEFAULT_LIST_LIMIT;
  if (!Number.isInteger(limit) || limit <= 0)
    throw new Error(`listIds limit must be a positive integer, got ${limit}`);
  return limit;
}

/** Splits a list into chunks, so no single statement or filter grows with what the caller passed. */
export function chunks<T>(items: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}
