/**
 * The erasure sweep (docs/design.md invariant 8): what the product deleted or changed must not survive
 * in a vector record or a stage result. The sweep compares the store with MongoDB page by page (the
 * vector syncer runs a page per interval, `memfade reindex --prune` all of them); forget (forget.ts)
 * removes one memory's or one user's derived data on request.
 */
import { type DeletedPurge, searchableText, type VectorRecord } from '@memfade/core';
import {
  F,
  findMemories,
  flagVectorPending,
  owePurge,
  purgeOwed,
  purgePaid,
  sweepOrphanSides,
  valueAt,
} from '@memfade/db';
import { type ErasureDeps, withLock } from './deps.js';
import { recordText, staleMemory } from './record-text.js';

export interface SweepCounts {
  /** Records compared with their memory. */
  checked: number;
  /** Records deleted because their memory is gone from MongoDB (or must have none: bad input). */
  gone: number;
  /** Records deleted because their text is no longer what the memory's would be (re-flagged for the drain). */
  outdated: number;
  /** Memories taken back to raw because the product changed their content after their last stage. */
  restaged: number;
  /** Side documents deleted because their product document is gone (side-collection mode). */
  orphans: number;
}

export const emptySweep = (): SweepCounts => ({ checked: 0, gone: 0, outdated: 0, restaged: 0, orphans: 0 });

/** Records per sweep page: one listIds, one get and one MongoDB find each. */
export const SWEEP_PAGE = 500;

/**
 * One page of the sweep: the records after `after` in id order, each compared with its memory.
 * Returns the last id seen (where the next page starts), undefined once the store has no more.
 *
 * - memory gone, or bad input (no record allowed): the record is deleted;
 * - memory whose stage results come from content the product has changed since (their
 *   `sourceHash` is not the content's): its stages are discarded (discardStaleStages, the same
 *   conditional write the pipeline uses), so it is back at raw with its new text and the next night
 *   compresses it again from that text (invariant 7); its record, which holds the stale compressed
 *   text, is deleted now and the outbox writes the raw text's;
 * - record text not what the memory's would be, and no outbox write pending for it: deleted and
 *   flagged, so the drain writes the right one (a raw memory the product redacted changes no flag).
 */
/**
 * Where a page starts and how many records it reads; `owe` records the history purge its deletions
 * make due, before they are made (the workers' sweep and `reindex --prune` pass owePurge).
 */
export interface SweepOptions {
  after?: string;
  limit?: number;
  owe?: (models: ErasureDeps['models']) => Promise<void>;
}

export async function sweepPage(
  deps: ErasureDeps,
  options: SweepOptions = {},
): Promise<{ counts: SweepCounts; last: string | undefined }> {
  const counts = emptySweep();
  const ids = await deps.store.listIds({ after: options.after, limit: options.limit ?? SWEEP_PAGE });
  if (ids.length === 0) return { counts, last: undefined };
  // The memories first, then their records (as committed now, VectorStore.get): a memory read
  // with no outbox write pending had its record written before it was read, so the record read
  // after it is that one or newer. Read the other way round, a drain finishing in between made a
  // current record look outdated: it was deleted, and searches missed the memory until the outbox
  // wrote it again.
  const docs = await findMemories(deps.models, ids);
  const records = await deps.store.get(ids);
  const byId = new Map(docs.map((doc) => [String(valueAt(doc, F.memoryId)), doc]));
  // Records whose memory is gone go whatever they hold; the others only while they hold the text
  // read here (deleteUnchanged): a drain that wrote the memory's current text since keeps its record.
  const remove: string[] = [];
  const stale: VectorRecord[] = [];
  const reflag: string[] = [];
  const restaged: string[] = [];
  const outdated = (record: VectorRecord) => {
    stale.push(record);
    reflag.push(record.id);
    counts.outdated++;
  };
  const newerThanRead: VectorRecord[] = [];
  for (const record of records) {
    counts.checked++;
    const doc = byId.get(record.id);
    const expected = doc && recordText(doc, deps.policy);
    if (!doc || expected === undefined) {
      remove.push(record.id);
      counts.gone++;
      continue;
    }
    if (await discardIfStale(deps, doc)) {
      stale.push(record);
      restaged.push(record.id);
      counts.restaged++;
      continue;
    }
    if (valueAt(doc, F.vectorPending) === true || record.text === expected) continue;
    // Made from a later rev than the one read: a stage written and synced since (this read is the
    // stale one), or an older memory of the same id the product deleted and inserted again.
    if (record.rev > revOf(doc)) newerThanRead.push(record);
    else outdated(record);
  }
  // Told apart by reading those memories again: only a memory whose rev is still below its
  // record's was inserted again, and its record holds the deleted memory's text.
  if (newerThanRead.length) {
    const again = await findMemories(
      deps.models,
      newerThanRead.map((r) => r.id),
    );
    const revs = new Map(again.map((doc) => [String(valueAt(doc, F.memoryId)), revOf(doc)]));
    for (const record of newerThanRead) if (record.rev > (revs.get(record.id) ?? -1)) outdated(record);
  }
  // The purge these deletions make due (their text stays in the store's history until one) is owed
  // before they are made: a process dying between the two would leave a debt nobody recorded, and
  // the page swept again finds nothing more to delete (docs/design.md invariant 8).
  if (remove.length || stale.length) await options.owe?.(deps.models);
  // Flagged before the delete, so the outbox never looks empty while such a memory has no record;
  // and again after it, with the memories taken back to raw (discardIfStale flagged those), so
  // the drain writes each of them whatever happened in between.
  await flagVectorPending(deps.models, reflag);
  if (remove.length) await withLock(deps, () => deps.store.delete(remove));
  if (stale.length) await withLock(deps, () => deps.store.deleteUnchanged(stale));
  await flagVectorPending(deps.models, [...reflag, ...restaged]);
  if (restaged.length) await deps.releaseJobs?.(restaged);
  return { counts, last: ids.at(-1) };
}

/**
 * Side-collection mode: one page of the side collection, deleting the side documents of memories
 * the product deleted (those with no vector record are found here, not by the store's pages).
 */
export async function sweepSidePage(
  deps: ErasureDeps,
  options: SweepOptions = {},
): Promise<{ counts: SweepCounts; last: string | undefined }> {
  const { removed, last } = await sweepOrphanSides(deps.models, {
    after: options.after,
    limit: options.limit ?? SWEEP_PAGE,
  });
  return { counts: { ...emptySweep(), orphans: removed }, last };
}

/**
 * The whole store, page by page, then the side collection (`memfade reindex --prune`), and the
 * store's history purged where a sweep removed a record.
 */
export async function sweepAll(deps: ErasureDeps, pageSize = SWEEP_PAGE): Promise<SweepCounts> {
  const total = emptySweep();
  for (const sweep of [sweepPage, sweepSidePage]) {
    let after: string | undefined;
    for (;;) {
      const { counts, last } = await sweep(deps, { after, limit: pageSize, owe: owePurge });
      addSweep(total, counts);
      if (last === undefined) break;
      after = last;
    }
  }
  // Also the purge a pass of the workers' sweep owes (vectors/vector-sync.ts): this pass ends it.
  if (await purgeOwed(deps.models)) await purgeHistory(deps);
  return total;
}

/**
 * Purges the store's history (LanceDB's older versions and the files that hold deleted rows;
 * pgvector's dead tuples), under the vector write lock, as forget does: what the product deleted or
 * changed leaves no copy behind (docs/design.md invariant 8).
 */
export async function purgeHistory(deps: ErasureDeps): Promise<DeletedPurge> {
  const startedAt = new Date();
  const purge = await withLock(deps, () => deps.store.purgeDeleted());
  // A purge that left something for later (pgvector's VACUUM refused) is owed still.
  if (!purge.pending) await purgePaid(deps.models, startedAt);
  return purge;
}

export function addSweep(total: SweepCounts, counts: SweepCounts): void {
  for (const key of Object.keys(total) as (keyof SweepCounts)[]) total[key] += counts[key];
}

/** A memory whose stage results were computed from other content goes back to raw; true if it did. */
export async function discardIfStale(deps: ErasureDeps, doc: Record<string, unknown>): Promise<boolean> {
  // Parsed as the pipeline parsed it when it hashed the content: the document as loaded is not a
  // Memory (a turn time may be a number or a string there), and its hash is not the stage's.
  const memory = staleMemory(doc, deps.policy);
  if (!memory) return false;
  // Refused when a job or the product changed the memory since it was read: the next sweep sees it again.
  return deps.memories.discardStaleStages({
    memoryId: memory.memoryId,
    expectedStage: memory.meta.compressionStage,
    expectedRev: memory.rev,
    asRead: doc,
    searchText: searchableText({ ...memory, compression: { history: [] } }),
    at: deps.now(),
  });
}

const revOf = (doc: Record<string, unknown>) => Number(valueAt(doc, F.rev) ?? 0);
