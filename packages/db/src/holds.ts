import type { Models } from './models.js';

/**
 * Which run holds each memory with a model request in flight (docs/design.md invariant 9): a memory held
 * by one run is not requested by another, whatever the two runs' modes (two batch nights fired
 * together, a sync backfill during a batch night). One document per memory, its `_id` the memory
 * id, so taking a hold is an insert and two runs cannot both take one.
 *
 * A hold is released when its run finishes (every request of a finished run has an outcome), so a
 * hold whose run has finished, or whose run is gone, is stale and taken over: a crash between a
 * run's finish and its release costs nothing but that takeover.
 */
export class MemoryHolds {
  constructor(private readonly models: Models) {}

  /**
   * Takes these memories for the run; returns the ones it now holds (taken now, or already its
   * own). The others are held by a run still open: they are left to it.
   */
  async take(runId: string, memoryIds: string[]): Promise<Set<string>> {
    if (memoryIds.length === 0) return new Set();
    const holds = this.models.holds.collection;
    const at = new Date();
    const read = () =>
      holds.find({ _id: { $in: memoryIds } } as never, { projection: { runId: 1 } }).toArray();
    let held: Awaited<ReturnType<typeof read>> = [];
    // ordered: false, so one memory held elsewhere does not stop the rest; its error is expected.
    // A server that still stops at the first duplicate (the tests' MongoDB-wire server, when two
    // runs insert at once) leaves some memories held by nobody: those are inserted again.
    for (let missing = memoryIds, tries = 0; missing.length > 0 && tries < 5; tries++) {
      const inserted = await holds
        .insertMany(missing.map((id) => ({ _id: id, runId, at })) as never[], { ordered: false })
        .then((result) => result.insertedCount)
        .catch((error: unknown) => {
          if (!isDuplicateKeyOnly(error)) throw error;
          return 0;
        });
      // Every memory inserted at the first try (a night's usual chunk): all of them are this run's,
      // and reading them back would return one document per memory for nothing.
      if (tries === 0 && inserted === memoryIds.length) return new Set(memoryIds);
      held = await read();
      const found = new Set(held.map((hold) => String(hold._id)));
      missing = memoryIds.filter((id) => !found.has(id));
    }
    const mine = new Set<string>();
    const others = new Map<string, string[]>();
    for (const hold of held) {
      const id = String(hold._id);
      const holder = String(hold.runId);
      if (holder === runId) mine.add(id);
      else others.set(holder, [...(others.get(holder) ?? []), id]);
    }
    if (others.size === 0) return mine;
    const open = await this.openRuns([...others.keys()]);
    const stale = [...others].filter(([holder]) => !open.has(holder));
    if (stale.length === 0) return mine;
    // Taken over only from the holder read: a third run taking it meanwhile wins, and this one reads so.
    await holds.bulkWrite(
      stale.flatMap(([holder, ids]) =>
        ids.map((id) => ({
          updateOne: { filter: { _id: id, runId: holder } as never, update: { $set: { runId, at } } },
        })),
      ),
      { ordered: false },
    );
    const takenOver = await holds
      .find({ _id: { $in: stale.flatMap(([, ids]) => ids) }, runId } as never, { projection: { _id: 1 } })
      .toArray();
    for (const hold of takenOver) mine.add(String(hold._id));
    return mine;
  }

  /** The ones of these memories another run still holds (open, not finished): left to that run. */
  async heldByOthers(runId: string, memoryIds: string[]): Promise<Set<string>> {
    if (memoryIds.length === 0) return new Set();
    const held = await this.models.holds.collection
      .find({ _id: { $in: memoryIds }, runId: { $ne: runId } } as never, { projection: { runId: 1 } })
      .toArray();
    if (held.length === 0) return new Set();
    const open = await this.openRuns([...new Set(held.map((h) => String(h.runId)))]);
    return new Set(held.filter((h) => open.has(String(h.runId))).map((h) => String(h._id)));
  }

  /** How many memories the run holds. */
  count(runId: string): Promise<number> {
    return this.models.holds.collection.countDocuments({ runId });
  }

  /** Releases every memory the run holds: called once its requests all have an outcome. */
  async release(runId: string): Promise<number> {
    const { deletedCount } = await this.models.holds.collection.deleteMany({ runId });
    return deletedCount;
  }

  /**
   * Releases the holds of runs that have finished or are gone: left by a worker that died between
   * marking its run finished and releasing them (simulate --seed 6180). take() already treats them
   * as free; removed, no hold outlives its run (docs/design.md invariant 12). Returns how many.
   */
  async releaseFinished(): Promise<number> {
    const holders = (await this.models.holds.collection.distinct('runId')).map(String);
    if (holders.length === 0) return 0;
    const open = await this.openRuns(holders);
    const done = holders.filter((runId) => !open.has(runId));
    if (done.length === 0) return 0;
    const { deletedCount } = await this.models.holds.collection.deleteMany({ runId: { $in: done } } as never);
    return deletedCount;
  }

  /** Of these runs, the ones that exist and have not finished. */
  private async openRuns(runIds: string[]): Promise<Set<string>> {
    const runs = await this.models.runs.collection
      .find({ runId: { $in: runIds }, finishedAt: { $exists: false } }, { projection: { runId: 1 } })
      .toArray();
    return new Set(runs.map((run) => String(run.runId)));
  }
}

/** An insertMany refused only because some ids exist (E11000 on every failed write). */
function isDuplicateKeyOnly(error: unknown): boolean {
  const writeErrors = (error as { writeErrors?: { code?: number }[] | { code?: number } }).writeErrors;
  const list = Array.isArray(writeErrors) ? writeErrors : writeErrors ? [writeErrors] : [];
  const code = (error as { code?: number }).code;
  if (list.length === 0) return code === 11000;
  return list.every((e) => e.code === 11000);
}
