import { ZERO_USAGE } from '@memfade/core';
import type { Models } from './models.js';
import { add, addSpending, addTransition, countFields, unansweredInc } from './run-increments.js';
import { countRunMemories } from './run-memory-counts.js';
import type {
  DiscardedCount,
  MemoryCounts,
  MemoryEndCounts,
  RunBatches,
  RunCounts,
  RunError,
  RunRecord,
  RunState,
  RunTrigger,
} from './run-record.js';
import { spendsOf, UserCosts } from './user-costs.js';

const ERRORS_SHOWN = 100;
/** Runs remembered by addBatchCounts at most (a process sees a few a night). */
const FIRST_RESULT_RUNS = 1_000;

/**
 * Compression run records, stored: every update is one atomic write, so many workers can report
 * at once. What the counts mean and when a run is finished is the run tracker's (queue package).
 */
export class RunRepository {
  /** Runs whose `batches.firstResultAt` is known to be set: it never changes once it is. */
  private readonly firstResultSet = new Set<string>();

  /** The run's tokens and cost by user, written with the run's own (user-costs.ts). */
  readonly userCosts: UserCosts;
  constructor(private readonly models: Models) {
    this.userCosts = new UserCosts(models);
  }

  /** Idempotent: a second start of the same run id changes nothing. */
  async start(run: {
    runId: string;
    trigger: RunTrigger;
    asOf: Date;
    startedAt?: Date;
  }): Promise<{ created: boolean }> {
    const initial: Omit<RunRecord, 'runId' | 'errors'> = {
      trigger: run.trigger,
      asOf: run.asOf,
      startedAt: new Date(),
      users: 0,
      counts: {
        selected: 0,
        enqueued: 0,
        processed: 0,
        v1: 0,
        v2: 0,
        skipped: 0,
        noop: 0,
        failed: 0,
        deferred: 0,
        heldBack: 0,
      },
      tokens: { v1: ZERO_USAGE, v2: ZERO_USAGE },
      cost: { v1: 0, v2: 0 },
      ratioSums: { v1: { sum: 0, n: 0 }, v2: { sum: 0, n: 0 } },
    };
    const result = await this.models.runs.updateOne(
      { runId: run.runId },
      { $setOnInsert: { runId: run.runId, ...initial } },
      { upsert: true },
    );
    return { created: result.upsertedCount === 1 };
  }

  async producerDone(
    runId: string,
    totals: {
      selected: number;
      enqueued: number;
      users: number;
      deferred?: number;
      heldBack?: number;
      inOtherRuns?: number;
    },
  ): Promise<void> {
    await this.models.runs.updateOne(
      { runId, producerDoneAt: { $exists: false } },
      {
        $set: {
          'counts.selected': totals.selected,
          'counts.enqueued': totals.enqueued,
          'counts.deferred': totals.deferred ?? 0,
          'counts.heldBack': totals.heldBack ?? 0,
          'counts.inOtherRuns': totals.inOtherRuns ?? 0,
          users: totals.users,
          producerDoneAt: new Date(),
        },
      },
    );
  }

  /**
   * Adds ended memories' counts (their transitions, their outcomes) in one atomic write, unless the
   * run has finished. Returns the run's state after it, or null when the run is finished or unknown.
   * One write per memory's end, or per group of ends (a chunk of a batch's results, ends arriving
   * together), instead of one per transition plus a read: the run document is every worker's hot spot.
   */
  async addMemoryEnds(runId: string, ends: MemoryEndCounts[]): Promise<RunState | null> {
    const inc: Record<string, number> = {};
    const spent: Record<string, number> = {};
    for (const end of ends) {
      add(inc, 'counts.processed', 1);
      if (end.outcome !== 'completed') add(inc, `counts.${end.outcome}`, 1);
      if (end.retentionRefused) add(inc, 'counts.retentionRefused', 1);
      for (const t of end.transitions ?? []) addTransition(inc, t);
      for (const d of end.discarded ?? []) addSpending(inc, d);
      for (const paid of [...(end.transitions ?? []), ...(end.discarded ?? [])]) addSpending(spent, paid);
    }
    // Through the driver: mongoose's casting has nothing to do on a plain $inc.
    const run = await this.models.runs.collection.findOneAndUpdate(
      { runId, finishedAt: { $exists: false } },
      { $inc: inc },
      {
        returnDocument: 'after',
        projection: { counts: 1, producerDoneAt: 1, finishedAt: 1, startedAt: 1 },
      },
    );
    // A finished run's counts are settled from its memories, but money is counted whatever: a
    // batch line applied after the run finished was billed (`simulate --seed 122`: 23,455 tokens
    // billed, none counted on the run, all on its ledger).
    if (!run && Object.keys(spent).length)
      await this.models.runs.collection.updateOne({ runId }, { $inc: spent });
    // The ledger counts what the run counts, of a finished run too (addSpending's reason).
    await this.userCosts.add(runId, ends.flatMap(spendsOf));
    return (run as unknown as RunState | null) ?? null;
  }

  /**
   * Adds what the run paid for without a memory's end (each sync call as its reply arrives, the
   * earlier rounds of batch requests it gave up): tokens and cost only, its stage counts come from
   * the memories when it finishes. Also to a finished run: a call a job made after its run was
   * finished (a stalled job still running beside its second run) was billed all the same
   * (docs/design.md invariant 9). `unanswered`: the signed change to the run's calls without a
   * counted reply (calls about to be sent, calls answered), in the same write.
   */
  async addSpending(
    runId: string,
    spent: (DiscardedCount & { memoryId?: string })[],
    unanswered?: { calls: number; tokens: number; usd: number },
  ): Promise<void> {
    const inc: Record<string, number> = {};
    for (const item of spent) addSpending(inc, item);
    // A reply counted here is no longer unanswered: one write for both, not two per call.
    if (unanswered) Object.assign(inc, unansweredInc(unanswered));
    if (Object.keys(inc).length === 0) return;
    await this.models.runs.collection.updateOne({ runId }, { $inc: inc });
    await this.userCosts.add(runId, spent);
  }

  /**
   * Lists an error under the run (one entry per memory and stage: a retried job that fails again
   * updates it). Nothing is recorded for a run that does not exist.
   */
  async recordError(
    runId: string,
    error: { memoryId: string; stage: string; message: string },
  ): Promise<boolean> {
    const run = await this.models.runs.findOne({ runId }, { _id: 1 }).lean().exec();
    if (!run) return false;
    await this.models.runErrors.updateOne(
      { runId, memoryId: error.memoryId, stage: error.stage },
      { $set: { message: error.message, at: new Date() } },
      { upsert: true },
    );
    return true;
  }

  /** Marks the run finished with its settled counts, once; true only for the call that did it. */
  async markFinished(
    runId: string,
    counts: Partial<RunCounts>,
    options: { startedAt: Date; interrupted: boolean; producerDied?: string },
  ): Promise<boolean> {
    // Durations are wall-clock time, whatever logical "now" (asOf) the run was computed for.
    const now = new Date();
    // The memories the per-user cap left due, as the users' documents count them: a worker killed
    // between writing a user's count and the run's left the two apart (simulate --seed 1232); the
    // run's figure is their sum (docs/design.md invariant 15). Written first: a finish cut short
    // after it is finished again, with it.
    const capLeft = await this.userCosts.leftByCap(runId);
    if (capLeft.memories > 0)
      await this.models.runs.collection.updateOne(
        { runId, finishedAt: { $exists: false } },
        { $set: { 'userBudget.overBudget': capLeft.memories, 'userBudget.users': capLeft.users } },
      );
    const result = await this.models.runs.updateOne(
      { runId, finishedAt: { $exists: false } },
      {
        $set: {
          ...countFields(counts),
          finishedAt: now,
          durationMs: Math.max(0, now.getTime() - options.startedAt.getTime()),
          ...(options.interrupted && { interrupted: true }),
          ...(options.producerDied && { producerDied: options.producerDied }),
        },
      },
    );
    return result.modifiedCount === 1;
  }

  /** Records how the run calls the model (its mode, and why). */
  async setBatchMode(runId: string, batches: Pick<RunBatches, 'mode' | 'reason'>): Promise<void> {
    const set: Record<string, unknown> = { 'batches.mode': batches.mode };
    if (batches.reason) set['batches.reason'] = batches.reason;
    await this.models.runs.collection.updateOne({ runId }, { $set: set });
  }

  /**
   * Adds to the run's batch counters (submitted, ended, requests.<outcome>) and notes the time of
   * a result: one atomic write, like addMemoryEnds.
   */
  async addBatchCounts(
    runId: string,
    counts: Record<string, number>,
    options: { resultAt?: Date; afterDeadline?: RunBatches['afterDeadline'] } = {},
  ): Promise<void> {
    const update: Record<string, Record<string, unknown>> = {};
    const inc = Object.fromEntries(
      Object.entries(counts)
        .filter(([, n]) => n !== 0)
        .map(([key, n]) => [`batches.${key}`, n]),
    );
    if (Object.keys(inc).length) update.$inc = inc;
    const set: Record<string, unknown> = {};
    // Results are read as they come: the latest read is the last result so far.
    if (options.resultAt) set['batches.lastResultAt'] = options.resultAt;
    if (options.afterDeadline) set['batches.afterDeadline'] = options.afterDeadline;
    if (Object.keys(set).length) update.$set = set;
    if (Object.keys(update).length) await this.models.runs.collection.updateOne({ runId }, update);
    // ($min would do both in one write; the MongoDB-wire server of the tests does not have it.)
    // Once this process has written it, or found it written, the field is set for good: the
    // run's later results skip the write (one command per chunk of results).
    if (options.resultAt && !this.firstResultSet.has(runId)) {
      await this.models.runs.collection.updateOne(
        { runId, 'batches.firstResultAt': { $exists: false } },
        { $set: { 'batches.firstResultAt': options.resultAt } },
      );
      if (this.firstResultSet.size >= FIRST_RESULT_RUNS) this.firstResultSet.clear();
      this.firstResultSet.add(runId);
    }
  }

  /**
   * Notes that the run's batch jobs are started again with `live` requests left (batch-recovery.ts):
   * returns this resume's number and how many resumes in a row, this one included, followed one
   * that settled no request (a resume after progress starts the count again at 0).
   */
  async noteBatchResume(runId: string, live: number): Promise<{ resume: number; stuck: number }> {
    const before = (await this.models.runs.collection.findOneAndUpdate(
      { runId },
      { $inc: { 'batches.resumes': 1 }, $set: { 'batches.liveAtResume': live } },
      { returnDocument: 'before', projection: { batches: 1 } },
    )) as { batches?: { resumes?: number; liveAtResume?: number; stuck?: number } } | null;
    const previous = before?.batches;
    const resume = (previous?.resumes ?? 0) + 1;
    const noProgress = previous?.liveAtResume !== undefined && live >= previous.liveAtResume;
    const stuck = noProgress ? (previous?.stuck ?? 0) + 1 : 0;
    await this.models.runs.collection.updateOne({ runId }, { $set: { 'batches.stuck': stuck } });
    return { resume, stuck };
  }

  /** Replaces a finished run's counts (memories of it ended late, e.g. their failed jobs retried). */
  async updateCounts(runId: string, counts: Partial<RunCounts>): Promise<void> {
    await this.models.runs.updateOne({ runId }, { $set: countFields(counts) });
  }

  /** What deciding and finishing need, without the error list get() also reads. */
  state(runId: string): Promise<RunState | null> {
    return this.models.runs
      .findOne(
        { runId },
        { _id: 0, counts: 1, producerDoneAt: 1, finishedAt: 1, startedAt: 1, interrupted: 1 },
      )
      .lean<RunState>()
      .exec();
  }

  /** What the run did, as its memories and error records tell it (run-memory-counts.ts). */
  countsFromMemories(runId: string): Promise<MemoryCounts> {
    return countRunMemories(this.models, runId);
  }

  async get(runId: string): Promise<RunRecord | null> {
    const run = await this.models.runs
      .findOne({ runId }, { _id: 0 })
      .lean<Omit<RunRecord, 'errors'>>()
      .exec();
    return run && { ...run, errors: await this.errors(runId, ERRORS_SHOWN) };
  }

  /** Newest first, without their errors (see get()). */
  async list(options: { limit: number }): Promise<Omit<RunRecord, 'errors'>[]> {
    return this.models.runs
      .find({}, { _id: 0 })
      .sort({ startedAt: -1 })
      .limit(options.limit)
      .lean<Omit<RunRecord, 'errors'>[]>()
      .exec();
  }

  /**
   * When the last run of each trigger finished: a nightly run that stops finishing shows as a
   * `schedule` time growing old (the metric a missed-night alert watches), whatever manual runs do.
   */
  async lastFinished(): Promise<{ trigger: RunTrigger; finishedAt: Date }[]> {
    // One query per trigger rather than a $group with $max, which the MongoDB-wire test server lacks.
    const finished = { finishedAt: { $exists: true } };
    const triggers = (await this.models.runs.distinct('trigger', finished).exec()) as RunTrigger[];
    return Promise.all(
      triggers.map(async (trigger) => {
        const run = await this.models.runs
          .findOne({ ...finished, trigger }, { _id: 0, finishedAt: 1 })
          .sort({ finishedAt: -1 })
          .lean<{ finishedAt: Date }>()
          .exec();
        return { trigger, finishedAt: run!.finishedAt };
      }),
    );
  }

  /** Whether any run of this trigger was ever started on this database. */
  async hasRun(trigger: RunTrigger): Promise<boolean> {
    return (await this.models.runs.collection.findOne({ trigger }, { projection: { _id: 1 } })) !== null;
  }

  /** Unfinished runs whose producer is at work, waiting for a retry, or dead (the tracker asks which). */
  async listProducing(): Promise<Pick<RunRecord, 'runId'>[]> {
    const producing = { producerDoneAt: { $exists: false }, finishedAt: { $exists: false } };
    return this.models.runs.find(producing, { _id: 0, runId: 1 }).lean<Pick<RunRecord, 'runId'>[]>().exec();
  }

  async listUnfinished(): Promise<Omit<RunRecord, 'errors'>[]> {
    return this.models.runs
      .find({ producerDoneAt: { $exists: true }, finishedAt: { $exists: false } }, { _id: 0 })
      .lean<Omit<RunRecord, 'errors'>[]>()
      .exec();
  }

  async errors(runId: string, limit: number): Promise<RunError[]> {
    const newest = await this.models.runErrors
      .find({ runId }, { _id: 0, runId: 0 })
      .sort({ at: -1, _id: -1 })
      .limit(limit)
      .lean<RunError[]>()
      .exec();
    return newest.reverse();
  }
}
