import type { Models } from './models.js';

/**
 * Where the fleet's vector erasure sweep goes on (docs/design.md invariant 8), shared by every worker in
 * `compression_state`: each interval a worker sweeps the page after it and moves it on, so N
 * replicas sweep the store N pages at a time instead of each sweeping all of it. `store` is the
 * last vector record id swept, `side` the last side document (side-collection mode); undefined:
 * at the start.
 */
export interface SweepCursor {
  store?: string;
  side?: string;
}

const CURSOR_ID = 'erasure-sweep';

export async function readSweepCursor(models: Models): Promise<SweepCursor> {
  const doc = await models.state.collection.findOne({ _id: CURSOR_ID } as never);
  return {
    store: (doc?.store as string | null) ?? undefined,
    side: (doc?.side as string | null) ?? undefined,
  };
}

/**
 * Moves the cursor from where it was read to `to`, unless another worker moved it meanwhile (it
 * swept the same page at the same moment: harmless, and its move stands). True when moved.
 */
export async function advanceSweepCursor(
  models: Models,
  from: SweepCursor,
  to: SweepCursor,
): Promise<boolean> {
  const stored = (cursor: SweepCursor) => ({ store: cursor.store ?? null, side: cursor.side ?? null });
  const moved = await models.state.collection.updateOne({ _id: CURSOR_ID, ...stored(from) } as never, {
    $set: stored(to),
  });
  if (moved.matchedCount === 1) return true;
  if (from.store !== undefined || from.side !== undefined) return false;
  // The first move of all: no cursor document yet, unless another worker just wrote it.
  try {
    await models.state.collection.insertOne({ _id: CURSOR_ID, ...stored(to) } as never);
    return true;
  } catch (error) {
    if ((error as { code?: unknown }).code !== 11000) throw error;
    return false;
  }
}

/**
 * The sweep removed records (a memory the product deleted or changed): their text stays in the vector
 * store's older versions and data files until its history is purged, which the end of the pass
 * does (app vectors/vector-sync.ts). Kept with the cursor, so whichever worker ends the pass purges;
 * the time says which deletions a purge that started later covers.
 */
export async function owePurge(models: Models): Promise<void> {
  await models.state.collection.updateOne(
    { _id: CURSOR_ID } as never,
    { $set: { purgeOwedAt: new Date() } },
    { upsert: true },
  );
}

/** Whether a purge is owed: cleared only once one that started after the deletions succeeded. */
export async function purgeOwed(models: Models): Promise<boolean> {
  const doc = await models.state.collection.findOne({ _id: CURSOR_ID } as never);
  return doc?.purgeOwedAt instanceof Date;
}

/**
 * A purge that started at `startedAt` succeeded: what was owed before it is paid. A deletion owed
 * since (another worker's page, meanwhile) keeps the flag for the next pass.
 */
export async function purgePaid(models: Models, startedAt: Date): Promise<void> {
  await models.state.collection.updateOne({ _id: CURSOR_ID, purgeOwedAt: { $lte: startedAt } } as never, {
    $unset: { purgeOwedAt: '' },
  });
}
