/**
 * `memfade forget` (docs/design.md invariant 8): removes memfade's derived data of one memory or one user
 * from every place memfade put it, then looks again and writes a receipt, one entry per place.
 */
import type { DeletedPurge, VectorStore } from '@memfade/core';
import {
  countDerived,
  type DerivedCounts,
  type ForgetTarget,
  forgetDerived,
  targetMemoryIds,
} from '@memfade/db';
import { chunks } from '@memfade/vector';
import { type ForgetDeps, type JobRelease, withLock } from './deps.js';
import { BATCH_PLACES, DONE, type ReceiptEntry } from './receipt.js';

/** What forget found (dry run) or removed, with the receipt of every place it checked. */
export interface ForgetReport extends DerivedCounts {
  vectorRecords: number;
  /** One entry per place checked; empty for a dry run (which removes nothing). */
  receipt: ReceiptEntry[];
  /** The entries that are neither done nor explicitly pending, as `place: detail`. */
  failures: string[];
  /**
   * A user memfade knows nothing of (no memory in the product, no vector record): most likely a
   * mistyped id, so nothing was done unless `allowUnknown` (`memfade forget --allow-unknown`).
   */
  unknown?: true;
}

const MONGO_KEPT =
  "MongoDB's oplog (a replica set's, for its window) and backups keep the documents as they were";

type Outcome<T> = { value: T } | { error: string };

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

async function attempt<T>(work: () => Promise<T>): Promise<Outcome<T>> {
  try {
    return { value: await work() };
  } catch (error) {
    return { error: messageOf(error) };
  }
}

/** An entry from what the removal said and what the look afterwards found left there. */
function checked(
  place: string,
  removal: Outcome<string>,
  left: Outcome<number>,
  kept?: string,
): ReceiptEntry {
  const did = 'value' in removal ? removal.value : `not removed: ${removal.error}`;
  if ('error' in left) return { place, status: 'failed', detail: `${did}; could not check: ${left.error}` };
  if (left.value > 0) return { place, status: 'left', detail: `${did}; ${left.value} left` };
  if ('error' in removal) return { place, status: 'failed', detail: did };
  return { place, status: 'clean', detail: did, ...(kept && { kept }) };
}

/**
 * Removes the target's vector records, then what the store keeps of them (older versions, deleted
 * rows: purgeDeleted), then memfade's fields and run errors in MongoDB, the compress jobs in Redis
 * and, in batch mode, its batch requests and the provider's batch files. The product's content is
 * never touched. Each place is looked at again afterwards: anything left (a write that raced this
 * one, a store that failed) makes its entry `left` or `failed`, so the command can exit non-zero.
 */
export async function forget(
  deps: ForgetDeps,
  target: ForgetTarget,
  options: { dryRun: boolean; allowUnknown?: boolean },
): Promise<ForgetReport> {
  const memoryIds = await targetMemoryIds(deps.models, target);
  // An all-clean receipt for an id memfade never saw would read as proof of an erasure that
  // reached nobody (docs/design.md invariant 8: the receipt says only what is true).
  if (
    'userId' in target &&
    !options.allowUnknown &&
    memoryIds.length === 0 &&
    (await vectorIds(deps.store, target, [])).size === 0
  )
    return { vectorRecords: 0, memories: 0, runErrors: 0, receipt: [], failures: [], unknown: true };
  if (options.dryRun) {
    return {
      vectorRecords: (await vectorIds(deps.store, target, memoryIds)).size,
      ...(await countDerived(deps.models, target, memoryIds)),
      receipt: [],
      failures: [],
    };
  }
  // Requests in flight first: a result applied after the stage fields are cleared would write the
  // memory's text again; one applied before is cleared with them below.
  const batch = deps.batchErasure
    ? await deps.batchErasure(memoryIds).catch((error: unknown) =>
        Object.values(BATCH_PLACES).map(
          (place): ReceiptEntry => ({
            place,
            status: 'failed',
            detail: `not checked: ${messageOf(error)}`,
          }),
        ),
      )
    : Object.values(BATCH_PLACES).map(
        (place): ReceiptEntry => ({ place, status: 'not checked', detail: 'batch mode off' }),
      );
  // One turn of the vector write lock for both: the purge rewrites LanceDB's files.
  const { vectors, purge } = await withLock(deps, async () => ({
    vectors: await attempt(async () => {
      let removed = 0;
      for (const ids of chunks(memoryIds, 1000)) removed += await deps.store.delete(ids);
      if ('userId' in target) removed += await deps.store.deleteByUser(target.userId);
      return removed;
    }),
    purge: await attempt(() => deps.store.purgeDeleted()),
  })).catch((error: unknown) => {
    // The lock itself failed (Redis away): neither ran.
    const failed = { error: `vector write lock: ${messageOf(error)}` };
    return { vectors: failed, purge: failed };
  });
  const derived = await attempt(() => forgetDerived(deps.models, target, memoryIds));
  const jobs = deps.releaseJobs && (await attempt(() => deps.releaseJobs!(memoryIds)));
  // What is still there is not forgotten, whatever the removal said.
  const leftVectors = await attempt(async () => (await vectorIds(deps.store, target, memoryIds)).size);
  const left = await attempt(() => countDerived(deps.models, target, memoryIds));
  const leftOf = (key: keyof DerivedCounts): Outcome<number> =>
    'value' in left ? { value: left.value[key] ?? 0 } : left;
  const removed = 'value' in derived ? derived.value : undefined;
  const said = (what: (counts: DerivedCounts) => string): Outcome<string> =>
    removed ? { value: what(removed) } : (derived as { error: string });

  const receipt: ReceiptEntry[] = [
    checked(
      'stage results (MongoDB)',
      said(
        (c) =>
          `removed from ${c.memories} memories: stages, V2 drafts and their history texts, rollbacks, ` +
          'discarded stages, last errors, outbox flag',
      ),
      leftOf('memories'),
      MONGO_KEPT,
    ),
    ...(deps.models.mapping.side
      ? [
          checked(
            `side collection ${deps.models.mapping.mine.collection} (MongoDB)`,
            said((c) => `deleted ${c.sideDocuments ?? 0} side documents`),
            leftOf('sideDocuments'),
            MONGO_KEPT,
          ),
        ]
      : []),
    checked(
      'run errors (MongoDB)',
      said((c) => `removed ${c.runErrors} error records naming these memories (ids and reasons, no text)`),
      leftOf('runErrors'),
    ),
    checked(
      'vector records',
      'value' in vectors ? { value: `removed ${vectors.value} records` } : vectors,
      leftVectors,
    ),
    purgeEntry(purge),
    jobsEntry(jobs),
    ...batch,
  ];
  const counts = removed ?? { memories: 0, runErrors: 0 };
  return {
    vectorRecords: 'value' in vectors ? vectors.value : 0,
    ...counts,
    receipt,
    failures: receipt.filter((e) => !DONE.includes(e.status)).map((e) => `${e.place}: ${e.detail}`),
  };
}

/** The store's copies of deleted records: `pending` where the store removes them later on its own. */
function purgeEntry(purge: Outcome<DeletedPurge>): ReceiptEntry {
  const place = 'vector store history';
  if ('error' in purge) return { place, status: 'failed', detail: `not purged: ${purge.error}` };
  const { removed, pending, kept } = purge.value;
  return {
    place,
    status: pending ? 'pending' : 'clean',
    detail: pending ? `removed ${removed}; ${pending}` : `removed ${removed}`,
    ...(kept && { kept }),
  };
}

/**
 * Compress jobs carry ids and counts, never text (their failures carry reasons, docs/design.md invariant
 * 6); the finished ones are removed so the next run can enqueue the memories again. A running job
 * stays (a worker holds it): its stage write is refused, as forget changed the memory's rev.
 */
function jobsEntry(jobs: Outcome<JobRelease> | undefined): ReceiptEntry {
  const place = 'compress jobs (Redis)';
  if (!jobs) return { place, status: 'not checked', detail: 'no queue connected' };
  if ('error' in jobs) return { place, status: 'failed', detail: `not removed: ${jobs.error}` };
  const { removed, running } = jobs.value;
  const rest = running ? `; ${running} running (ids only; their stage write is refused)` : '';
  return {
    place,
    status: 'clean',
    detail: `removed ${removed} finished jobs (ids and counts, no text)${rest}`,
  };
}

/** The ids of the target's records: its memories' and, for a user, every record under their id. */
async function vectorIds(
  store: VectorStore,
  target: ForgetTarget,
  memoryIds: string[],
): Promise<Set<string>> {
  const found = new Set<string>();
  for (const ids of chunks(memoryIds, 1000)) for (const record of await store.get(ids)) found.add(record.id);
  if ('userId' in target) {
    let after: string | undefined;
    for (;;) {
      const page = await store.listIds({ userId: target.userId, after, limit: 1000 });
      for (const id of page) found.add(id);
      if (page.length < 1000) break;
      after = page.at(-1);
    }
  }
  return found;
}
