import { randomUUID } from 'node:crypto';
import {
  type BatchRecord,
  type BatchRequestRecord,
  type BatchRequestState,
  type BatchRequestUpdate,
  LIVE_REQUEST_STATES,
} from './batch-record.js';
import type { Models } from './models.js';

/** A request record as read: without the fields only its writes use. */
const RECORD_FIELDS = { _id: 0, updatedAt: 0, movedBy: 0 };

/** Batch mode's records in MongoDB; what they mean is the queue's batch processors'. */
export class BatchRepository {
  constructor(private readonly models: Models) {}

  /** Writes requests that are not there yet (by custom id); returns how many were new. */
  async addRequests(records: BatchRequestRecord[]): Promise<number> {
    if (records.length === 0) return 0;
    // The driver's collection: these records are plain values, and mongoose's casting of a night's
    // worth of them was about 3% of the batch night's worker CPU in a profile.
    const result = await this.models.batchRequests.collection.bulkWrite(
      records.map((record) => ({
        updateOne: {
          filter: { customId: record.customId },
          update: { $setOnInsert: { ...record, updatedAt: new Date() } },
          upsert: true,
        },
      })),
      { ordered: true },
    );
    return result.upsertedCount;
  }

  /**
   * A round's requests in the given states, streamed; `byUser`: one user's together (in user, then
   * custom-id order), for grouping several in one request line.
   */
  async *requests(
    runId: string,
    round: number,
    states: BatchRequestState[],
    byUser = false,
  ): AsyncGenerator<BatchRequestRecord> {
    const cursor = this.models.batchRequests.collection
      .find({ runId, round, state: { $in: states } }, { projection: RECORD_FIELDS })
      .sort(byUser ? { userId: 1, customId: 1 } : { customId: 1 });
    for await (const record of cursor) yield record as unknown as BatchRequestRecord;
  }

  /** These requests, keyed by custom id (one query for a chunk of a results file). */
  async requestsById(customIds: string[]): Promise<Map<string, BatchRequestRecord>> {
    const records = await this.models.batchRequests.collection
      .find({ customId: { $in: customIds } }, { projection: RECORD_FIELDS })
      .toArray();
    return new Map(
      records.map((record) => [record.customId as string, record as unknown as BatchRequestRecord]),
    );
  }

  /** The requests the group lines of these custom ids carry (one query for a chunk of a results file). */
  async requestsByLine(lines: string[]): Promise<BatchRequestRecord[]> {
    if (lines.length === 0) return [];
    const records = await this.models.batchRequests.collection
      .find({ line: { $in: lines } }, { projection: RECORD_FIELDS })
      .toArray();
    return records as unknown as BatchRequestRecord[];
  }

  /**
   * Moves many requests on in one bulk write, each only from one of its `from` states; returns the
   * custom ids this call moved. Another poller of the same batch may move some of them first: each
   * move is tagged with a token of this call and read back, so each caller knows its own.
   */
  async transitionMany(
    moves: { customId: string; from: BatchRequestState[]; set: BatchRequestUpdate }[],
  ): Promise<Set<string>> {
    if (moves.length === 0) return new Set();
    const movedBy = randomUUID();
    const updatedAt = new Date();
    const result = await this.models.batchRequests.collection.bulkWrite(
      moves.map(({ customId, from, set }) => ({
        updateOne: {
          filter: { customId, state: { $in: from } },
          update: { $set: { ...set, movedBy, updatedAt } },
        },
      })),
      { ordered: false },
    );
    const customIds = new Set(moves.map((m) => m.customId));
    // Every move matched (one per request): this call moved them all, nothing to read back. The
    // read tells a caller which ones it moved only when some were moved by another first.
    if (customIds.size === moves.length && result.matchedCount === moves.length) return customIds;
    const moved = await this.models.batchRequests.collection
      .find({ customId: { $in: moves.map((m) => m.customId) }, movedBy }, { projection: { customId: 1 } })
      .toArray();
    return new Set(moved.map((record) => record.customId as string));
  }

  /** How many of a run's requests are in each state (all rounds). */
  async countByState(runId: string): Promise<Partial<Record<BatchRequestState, number>>> {
    const rows = await this.models.batchRequests.aggregate<{ _id: BatchRequestState; n: number }>([
      { $match: { runId } },
      { $group: { _id: '$state', n: { $sum: 1 } } },
    ]);
    return Object.fromEntries(rows.map((row) => [row._id, row.n]));
  }

  /**
   * The run's requests still without an outcome: how many, and the first round holding one with
   * whether any of that round's is not in a batch yet (it needs its submit job, not a poll).
   */
  async live(runId: string): Promise<{ count: number; round?: number; unsubmitted: boolean }> {
    const requests = this.models.batchRequests.collection;
    const live = { runId, state: { $in: LIVE_REQUEST_STATES } };
    const count = await requests.countDocuments(live);
    if (count === 0) return { count, unsubmitted: false };
    const [first] = await requests
      .find(live, { projection: { round: 1 } })
      .sort({ round: 1 })
      .limit(1)
      .toArray();
    const round = first!.round as number;
    const unsubmitted =
      (await requests.countDocuments({ runId, round, state: { $in: ['pending', 'prepared'] } })) > 0;
    return { count, round, unsubmitted };
  }

  /**
   * Gives up the run's requests still without an outcome (`interrupted`); returns the ones this
   * call moved, with what their memories' earlier rounds spent (to be counted in the run).
   */
  async interrupt(runId: string): Promise<Pick<BatchRequestRecord, 'memoryId' | 'carried' | 'discarded'>[]> {
    const movedBy = randomUUID();
    await this.models.batchRequests.collection.updateMany(
      { runId, state: { $in: LIVE_REQUEST_STATES } },
      { $set: { state: 'interrupted', movedBy, updatedAt: new Date() } },
    );
    const moved = await this.models.batchRequests.collection
      .find({ runId, movedBy }, { projection: { _id: 0, memoryId: 1, carried: 1, discarded: 1 } })
      .toArray();
    return moved as unknown as Pick<BatchRequestRecord, 'memoryId' | 'carried' | 'discarded'>[];
  }

  /**
   * Requests given up (`interrupted`) whose result lines came all the same: each marked counted,
   * once; returns the custom ids this call marked, whose lines it counts (docs/design.md invariant 9).
   */
  async countLinesOfInterrupted(customIds: string[]): Promise<Set<string>> {
    if (customIds.length === 0) return new Set();
    const movedBy = randomUUID();
    await this.models.batchRequests.collection.updateMany(
      { customId: { $in: customIds }, state: 'interrupted', lineCounted: { $exists: false } },
      { $set: { lineCounted: true, movedBy, updatedAt: new Date() } },
    );
    const marked = await this.models.batchRequests.collection
      .find({ customId: { $in: customIds }, movedBy }, { projection: { customId: 1 } })
      .toArray();
    return new Set(marked.map((record) => record.customId as string));
  }

  /**
   * `memfade forget`: the requests of these memories still in flight, in any run, are erased (their
   * results are never applied). Returns how many, and the erased ones that were not in a batch yet:
   * no line of theirs will come, so what their earlier rounds spent is the caller's to count.
   */
  async eraseRequests(memoryIds: string[]): Promise<{
    erased: number;
    unsubmitted: Pick<BatchRequestRecord, 'runId' | 'memoryId' | 'carried' | 'discarded'>[];
  }> {
    if (memoryIds.length === 0) return { erased: 0, unsubmitted: [] };
    const requests = this.models.batchRequests.collection;
    const erase = async (states: BatchRequestState[], set: Partial<BatchRequestRecord> = {}) => {
      const movedBy = randomUUID();
      const result = await requests.updateMany(
        { memoryId: { $in: memoryIds }, state: { $in: states } },
        { $set: { ...set, state: 'erased', movedBy, updatedAt: new Date() } },
      );
      return { movedBy, count: result.modifiedCount };
    };
    const before = await erase(['pending', 'prepared'], { erasedUnsubmitted: true });
    const submitted = await erase(['submitted']);
    const unsubmitted = await requests
      .find(
        { movedBy: before.movedBy },
        { projection: { _id: 0, runId: 1, memoryId: 1, carried: 1, discarded: 1 } },
      )
      .toArray();
    return {
      erased: before.count + submitted.count,
      unsubmitted: unsubmitted as unknown as Pick<
        BatchRequestRecord,
        'runId' | 'memoryId' | 'carried' | 'discarded'
      >[],
    };
  }

  /**
   * The batches that ever held, or are being submitted with, a request of these memories: by the
   * batch id on the request, and by the batch record's custom ids (a batch whose create call has
   * not returned has no id yet, and a request erased meanwhile is never moved to `submitted`).
   */
  async batchesHolding(memoryIds: string[]): Promise<BatchRecord[]> {
    if (memoryIds.length === 0) return [];
    const requests = this.models.batchRequests.collection;
    const mine = { memoryId: { $in: memoryIds } };
    const batchIds = await requests.distinct('batchId', { ...mine, batchId: { $exists: true } });
    const customIds = await requests.distinct('customId', mine);
    if (customIds.length === 0) return [];
    return this.models.batches
      .find({ $or: [{ batchId: { $in: batchIds } }, { customIds: { $in: customIds } }] }, { _id: 0 })
      .lean<BatchRecord[]>()
      .exec();
  }

  /** Which of these requests `memfade forget` erased: a submit leaves them out of its batch. */
  async erasedAmong(customIds: string[]): Promise<Set<string>> {
    if (customIds.length === 0) return new Set();
    const erased = await this.models.batchRequests.collection
      .find({ customId: { $in: customIds }, state: 'erased' }, { projection: { customId: 1 } })
      .toArray();
    return new Set(erased.map((record) => record.customId as string));
  }

  /**
   * `memfade forget` marks a batch whose files must go (`eraseFiles`) and reads it back in one
   * step, as `accepted` records a provider id: whichever comes second sees the other's write, so a
   * batch whose create call returns after a forget is reached by exactly one of the two.
   */
  async markForErasure(key: Pick<BatchRecord, 'runId' | 'round' | 'index'>): Promise<BatchRecord | null> {
    return this.setAndRead(key, { eraseFiles: true });
  }

  /** Records the provider's id of an accepted batch; returns the record as written (with `eraseFiles` if forget came first). */
  async accepted(
    key: Pick<BatchRecord, 'runId' | 'round' | 'index'>,
    set: Pick<BatchRecord, 'batchId' | 'submittedAt' | 'customIds' | 'lines'>,
  ): Promise<BatchRecord | null> {
    return this.setAndRead(key, { ...set, state: 'submitted' });
  }

  private async setAndRead(
    { runId, round, index }: Pick<BatchRecord, 'runId' | 'round' | 'index'>,
    set: Partial<BatchRecord>,
  ): Promise<BatchRecord | null> {
    const batch = await this.models.batches.collection.findOneAndUpdate(
      { runId, round, index },
      { $set: set },
      { returnDocument: 'after', projection: { _id: 0 } },
    );
    return (batch as unknown as BatchRecord | null) ?? null;
  }

  /** The runs that ever recorded a request of these memories (their uploads may hold the text). */
  async runsRequesting(memoryIds: string[]): Promise<string[]> {
    if (memoryIds.length === 0) return [];
    return this.models.batchRequests.collection.distinct('runId', { memoryId: { $in: memoryIds } });
  }

  /** How many of the batch's requests still wait for their result (not erased, not settled). */
  async waitingIn(batchId: string): Promise<number> {
    return this.models.batchRequests.collection.countDocuments({ batchId, state: 'submitted' });
  }

  /** Every request of a batch the provider accepted moves to `submitted` with the batch's id. */
  async markSubmitted(customIds: string[], batchId: string): Promise<void> {
    await this.models.batchRequests.updateMany(
      { customId: { $in: customIds }, state: { $in: ['pending', 'prepared'] } },
      { $set: { state: 'submitted', batchId, updatedAt: new Date() } },
    );
    // One `memfade forget` erased while the create call was in flight keeps its state but learns
    // its batch: a later forget finds the batch by it (docs/design.md invariant 8).
    await this.models.batchRequests.updateMany(
      { customId: { $in: customIds }, state: { $in: ['erased', 'forgotten'] }, batchId: { $exists: false } },
      { $set: { batchId } },
    );
  }

  /** Requests of one batch still waiting for their outcome (no result line was applied yet). */
  async unresolved(runId: string, round: number, batchId: string): Promise<BatchRequestRecord[]> {
    return this.models.batchRequests
      .find({ runId, round, batchId, state: 'submitted' }, RECORD_FIELDS)
      .lean<BatchRequestRecord[]>()
      .exec();
  }

  /** Whether the run has requests waiting to be submitted in this round. */
  async hasPending(runId: string, round: number): Promise<boolean> {
    return (await this.models.batchRequests.countDocuments({ runId, round, state: 'pending' })) > 0;
  }

  /**
   * The rounds of the run with a batch whose results were never applied: accepted by the provider,
   * or recorded without its id (its create call may have been accepted all the same).
   */
  async roundsUnread(runId: string): Promise<number[]> {
    const rounds = await this.models.batches.distinct('round', { runId, state: { $ne: 'applied' } });
    return (rounds as number[]).sort((a, b) => a - b);
  }

  batches(runId: string, round: number): Promise<BatchRecord[]> {
    return this.models.batches
      .find({ runId, round }, { _id: 0 })
      .sort({ index: 1 })
      .lean<BatchRecord[]>()
      .exec();
  }

  /** Records a batch before it is submitted; an existing record of the same index is returned as is. */
  async openBatch(
    batch: Pick<BatchRecord, 'runId' | 'round' | 'index' | 'customIds' | 'lines'>,
    at: Date,
  ): Promise<BatchRecord> {
    const { runId, round, index } = batch;
    await this.models.batches.updateOne(
      { runId, round, index },
      { $setOnInsert: { ...batch, state: 'submitting', submittingAt: at } },
      { upsert: true },
    );
    const stored = await this.models.batches
      .findOne({ runId, round, index }, { _id: 0 })
      .lean<BatchRecord>()
      .exec();
    return stored as BatchRecord;
  }

  /** Notes that the provider ended the batch; true only the first time (it is counted once). */
  async markEnded(key: Pick<BatchRecord, 'runId' | 'round' | 'index'>, at: Date): Promise<boolean> {
    const { runId, round, index } = key;
    const result = await this.models.batches.updateOne(
      { runId, round, index, endedAt: { $exists: false } },
      { $set: { endedAt: at } },
    );
    return result.modifiedCount === 1;
  }

  /**
   * Names the requests a batch being submitted carries, just before its create call: an earlier
   * attempt may have recorded others, and a crash after the call is resolved by finding the batch
   * by its size (batch-submit.ts). `lines` absent: one line per custom id.
   */
  async recordSending(
    key: Pick<BatchRecord, 'runId' | 'round' | 'index'>,
    { customIds, lines }: Pick<BatchRecord, 'customIds' | 'lines'>,
  ): Promise<void> {
    const { runId, round, index } = key;
    const update =
      lines === undefined ? { $set: { customIds }, $unset: { lines: '' } } : { $set: { customIds, lines } };
    await this.models.batches.updateOne({ runId, round, index, batchId: { $exists: false } }, update);
  }

  async updateBatch(
    key: Pick<BatchRecord, 'runId' | 'round' | 'index'>,
    set: Partial<Omit<BatchRecord, 'runId' | 'round' | 'index'>>,
  ): Promise<void> {
    // By the key alone: callers pass whole records, whose other fields are no filter.
    const { runId, round, index } = key;
    await this.models.batches.updateOne({ runId, round, index }, { $set: set });
  }
}
