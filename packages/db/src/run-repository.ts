import { type TargetStage, type Trigger, type Usage, ZERO_USAGE } from '@memfade/core';
import { stageResultPath } from './mapping.js';
import type { Models } from './models.js';

/** What started the run (core's one list of triggers). */
export type RunTrigger = Trigger;
export type RunOutcome = 'completed' | 'noop' | 'failed';

export interface RunCounts {
  /** Memories the producer found due. */
  selected: number;
  /** Jobs it added (a memory whose job already existed, e.g. from another run, is not counted). */
  enqueued: number;
  /** Jobs of this run that ended: completed, no-op or failed for good. */
  processed: number;
  v1: number;
  v2: number;
  skipped: number;
  noop: number;
  failed: number;
  /**
   * Due memories the producer left for the next run because the run reached RUN_MAX_MEMORIES
   * (absent on runs recorded before the cap existed).
   */
  deferred?: number;
  /**
   * Due memories whose job was not added because a failed job of theirs is still kept in the
   * queue (BullMQ keeps job ids unique): `memfade retry-failed` puts them back.
   */
  heldBack?: number;
  /** Jobs of an interrupted run that never ended; their memories stay due for the next run. */
  unprocessed?: number;
  /** Due memories another open run held with requests in flight (docs/design.md invariant 9): left to it. */
  inOtherRuns?: number;
  /**
   * The retention gate (docs/design.md §11): stages written with a warning because they kept too
   * few of their input's facts, and stages refused for it (RETENTION_GATE=refuse).
   */
  retentionWarned?: number;
  retentionRefused?: number;
}

export interface RunError {
  memoryId: string;
  stage: string;
  message: string;
  at: Date;
}

export interface RunRecord {
  runId: string;
  trigger: RunTrigger;
  asOf: Date;
  startedAt: Date;
  producerDoneAt?: Date;
  finishedAt?: Date;
  durationMs?: number;
  /** Set when the run finished without every job it enqueued having ended (Redis lost them). */
  interrupted?: boolean;
  users: number;
  counts: RunCounts;
  tokens: { v1: Usage; v2: Usage };
  /** US dollars per stage, from the price table at the time each memory was compressed. */
  cost: { v1: number; v2: number };
  ratioSums: { v1: { sum: number; n: number }; v2: { sum: number; n: number } };
  /** The last errors of the run (up to 100), oldest first; stored in their own collection. */
  errors: RunError[];
  /** How the run called the model, and its batches (README "Batch mode"); absent on older runs. */
  batches?: RunBatches;
  /** Set when NIGHT_BUDGET_USD or NIGHT_BUDGET_TOKENS is: what its requests reserved, and whether it was reached. */
  budget?: RunBudget;
}

/** A run's model mode and, in batch mode, its batches and requests by outcome. */
export interface RunBatches {
  mode: 'batch' | 'sync';
  /** Why a run that could have used batches did not (below BATCH_MIN_CALLS, a backfill, ...). */
  reason?: string;
  submitted?: number;
  ended?: number;
  requests?: Partial<Record<'succeeded' | 'errored' | 'expired' | 'canceled' | 'applied', number>>;
  firstResultAt?: Date;
  lastResultAt?: Date;
  /** Set when the deadline canceled batches: what was left went `sync` or waits for `next-night`. */
  afterDeadline?: 'sync' | 'next-night';
  /** Times the run's batch jobs were started again with requests left (batch-recovery.ts). */
  resumes?: number;
  /** Requests left at the latest resume, and resumes in a row that settled none since. */
  liveAtResume?: number;
  stuck?: number;
  /** Requests the run gave up after BATCH_MAX_RESUMES resumes without progress. */
  givenUp?: number;
}

/** A run's night budget (queue/budget.ts): what its requests reserved, and whether it was reached. */
export interface RunBudget {
  /** Estimated cost and tokens of the model requests made so far. */
  usd: number;
  tokens: number;
  /** The limits (0 = none) as configured when it was reached. */
  limitUsd?: number;
  limitTokens?: number;
  reachedAt?: Date;
  /** Memories left due because their request would have passed the budget. */
  overBudget?: number;
}

const ERRORS_SHOWN = 100;

const countFields = (counts: Partial<RunCounts>) =>
  Object.fromEntries(Object.entries(counts).map(([key, value]) => [`counts.${key}`, value]));

/** One stage a job applied, as the run counts it. */
export interface TransitionCount {
  stage: TargetStage;
  skipped: boolean;
  usage: Usage;
  ratio: number;
  cost?: number;
  /** Written with a retention-gate warning. */
  retentionWarned?: boolean;
}

/** A model call the run paid for and did not keep (the product edited the memory meanwhile). */
export interface DiscardedCount {
  stage: TargetStage;
  usage: Usage;
  cost?: number;
}

/** How one ended job counts in its run. */
export interface JobCounts {
  outcome: RunOutcome;
  transitions?: TransitionCount[];
  discarded?: DiscardedCount[];
  /** Failed because the retention gate refused its stage. */
  retentionRefused?: boolean;
}

function add(inc: Record<string, number>, key: string, value: number): void {
  if (value) inc[key] = (inc[key] ?? 0) + value;
}

function addSpending(inc: Record<string, number>, t: DiscardedCount): void {
  add(inc, `cost.${t.stage}`, t.cost ?? 0);
  for (const [key, value] of Object.entries(t.usage)) add(inc, `tokens.${t.stage}.${key}`, value);
}

function addTransition(inc: Record<string, number>, t: TransitionCount): void {
  add(inc, `counts.${t.stage}`, 1);
  if (t.retentionWarned) add(inc, 'counts.retentionWarned', 1);
  addSpending(inc, t);
  // A skipped memory keeps its text (ratio 1): averaging it in would misstate the compression.
  if (t.skipped) add(inc, 'counts.skipped', 1);
  else {
    add(inc, `ratioSums.${t.stage}.sum`, t.ratio);
    add(inc, `ratioSums.${t.stage}.n`, 1);
  }
}

/** What deciding whether a run is complete needs. */
export type RunState = Pick<
  RunRecord,
  'counts' | 'producerDoneAt' | 'finishedAt' | 'startedAt' | 'interrupted'
>;

/** What a run's memories say it did: each history entry and each error names its run. */
export interface MemoryCounts {
  v1: number;
  v2: number;
  skipped: number;
  /** Memories with at least one stage applied by the run. */
  advanced: number;
  /** Memories listed in the run's errors that still carry their error (not compressed since). */
  failed: number;
  /** Of those, the ones the run also advanced (V1 applied, then V2 failed). */
  failedAndAdvanced: number;
}

/**
 * Compression run records, stored: every update is one atomic write, so many workers can report
 * at once. What the counts mean and when a run is finished is the run tracker's (queue package).
 */
export class RunRepository {
  constructor(private readonly models: Models) {}

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
   * Adds ended jobs' counts (their transitions, their outcomes) in one atomic write, unless the run
   * has finished. Returns the run's state after it, or null when the run is finished or unknown.
   * One write per job, or per chunk of a batch's results, instead of one per transition plus a
   * read: the run document is every worker's hot spot.
   */
  async addJobs(runId: string, jobs: JobCounts[]): Promise<RunState | null> {
    const inc: Record<string, number> = {};
    for (const job of jobs) {
      add(inc, 'counts.processed', 1);
      if (job.outcome !== 'completed') add(inc, `counts.${job.outcome}`, 1);
      if (job.retentionRefused) add(inc, 'counts.retentionRefused', 1);
      for (const t of job.transitions ?? []) addTransition(inc, t);
      for (const d of job.discarded ?? []) addSpending(inc, d);
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
    return (run as unknown as RunState | null) ?? null;
  }

  /**
   * Adds what the run paid for without a job ending (the earlier rounds of batch requests it gave
   * up): tokens and cost only, its stage counts come from the memories when it finishes.
   */
  async addSpending(runId: string, spent: DiscardedCount[]): Promise<void> {
    const inc: Record<string, number> = {};
    for (const item of spent) addSpending(inc, item);
    if (Object.keys(inc).length === 0) return;
    await this.models.runs.collection.updateOne({ runId, finishedAt: { $exists: false } }, { $inc: inc });
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
    options: { startedAt: Date; interrupted: boolean },
  ): Promise<boolean> {
    // Durations are wall-clock time, whatever logical "now" (asOf) the run was computed for.
    const now = new Date();
    const result = await this.models.runs.updateOne(
      { runId, finishedAt: { $exists: false } },
      {
        $set: {
          ...countFields(counts),
          finishedAt: now,
          durationMs: Math.max(0, now.getTime() - options.startedAt.getTime()),
          ...(options.interrupted && { interrupted: true }),
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
   * a result: one atomic write, like addJob.
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
    if (options.resultAt)
      await this.models.runs.collection.updateOne(
        { runId, 'batches.firstResultAt': { $exists: false } },
        { $set: { 'batches.firstResultAt': options.resultAt } },
      );
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

  /** Replaces a finished run's counts (its jobs were retried after it finished). */
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

  /** What the run did, as its memories and error records tell it. */
  async countsFromMemories(runId: string): Promise<MemoryCounts> {
    const { mapping } = this.models;
    const F = mapping.fields;
    const count = (filter: Record<string, unknown>) => this.models.mine.countDocuments(filter).exec();
    const applied = (stage: TargetStage) => ({ [F.history]: { $elemMatch: { runId, stage } } });
    const skipped = (stage: TargetStage) => ({
      ...applied(stage),
      [`${stageResultPath(mapping, stage)}.skipped`]: { $exists: true },
    });
    const byThisRun = { [`${F.history}.runId`]: runId };
    const listed = (await this.models.runErrors.distinct('memoryId', { runId }).exec()) as string[];
    // A memory compressed since its failure (a retried job) no longer carries its error.
    const stillFailing = {
      [mapping.mine.id]: { $in: listed },
      $or: [{ [F.lastError]: { $exists: true } }, { [F.fallbackLastError]: { $exists: true } }],
    };
    const [v1, v2, skippedV1, skippedV2, advanced, failed, failedAndAdvanced] = await Promise.all([
      count(applied('v1')),
      count(applied('v2')),
      count(skipped('v1')),
      count(skipped('v2')),
      count(byThisRun),
      listed.length ? count(stillFailing) : 0,
      // A raw memory can get V1 and then fail at V2: one job, both advanced and failed.
      listed.length ? count({ ...byThisRun, ...stillFailing }) : 0,
    ]);
    return { v1, v2, skipped: skippedV1 + skippedV2, advanced, failed, failedAndAdvanced };
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

  /**
   * Reserves a model request's estimated cost and tokens on the run, unless that would pass a limit
   * (0 = none): one conditional write, so workers reserving at once never pass it together.
   */
  async reserveBudget(
    runId: string,
    estimate: { usd: number; tokens: number },
    limits: { usd: number; tokens: number },
  ): Promise<boolean> {
    const within = (field: 'usd' | 'tokens') => {
      const limit = limits[field];
      if (limit <= 0) return [];
      return [
        {
          $or: [
            { [`budget.${field}`]: { $exists: false } },
            { [`budget.${field}`]: { $lte: limit - estimate[field] } },
          ],
        },
      ];
    };
    if (
      (limits.usd > 0 && estimate.usd > limits.usd) ||
      (limits.tokens > 0 && estimate.tokens > limits.tokens)
    )
      return false;
    const conditions = [...within('usd'), ...within('tokens')];
    const result = await this.models.runs.collection.updateOne(
      { runId, ...(conditions.length && { $and: conditions }) },
      { $inc: { 'budget.usd': estimate.usd, 'budget.tokens': estimate.tokens } },
    );
    return result.matchedCount === 1;
  }

  /** Counts a memory left due by the budget; true the first time (the run says so once). */
  async markBudgetReached(runId: string, limits: { usd: number; tokens: number }): Promise<boolean> {
    await this.models.runs.collection.updateOne({ runId }, { $inc: { 'budget.overBudget': 1 } });
    const first = await this.models.runs.collection.updateOne(
      { runId, 'budget.reachedAt': { $exists: false } },
      {
        $set: {
          'budget.reachedAt': new Date(),
          'budget.limitUsd': limits.usd,
          'budget.limitTokens': limits.tokens,
        },
      },
    );
    return first.modifiedCount === 1;
  }

  /** Whether any run of this trigger was ever started on this database. */
  async hasRun(trigger: RunTrigger): Promise<boolean> {
    return (await this.models.runs.collection.findOne({ trigger }, { projection: { _id: 1 } })) !== null;
  }

  /** Runs whose producer has finished but which have not been marked finished yet. */
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
