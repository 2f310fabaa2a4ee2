import { type Usage, ZERO_USAGE } from '@memfade/core';
import { F, stageResultPath } from './mapping.js';
import type { Models } from './models.js';

export type RunTrigger = 'schedule' | 'manual' | 'backfill' | 'demo';
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
  users: number;
  counts: RunCounts;
  tokens: { v1: Usage; v2: Usage };
  /** US dollars per stage, from the price table at the time each memory was compressed. */
  cost: { v1: number; v2: number };
  ratioSums: { v1: { sum: number; n: number }; v2: { sum: number; n: number } };
  /** The last errors of the run (up to 100), oldest first; stored in their own collection. */
  errors: RunError[];
}

const ERRORS_SHOWN = 100;

/** One stage a job applied, as the run counts it. */
export interface TransitionCount {
  stage: 'v1' | 'v2';
  skipped: boolean;
  usage: Usage;
  ratio: number;
  cost?: number;
}

function addTransition(inc: Record<string, number>, t: TransitionCount): void {
  inc[`counts.${t.stage}`] = (inc[`counts.${t.stage}`] ?? 0) + 1;
  if (t.cost) inc[`cost.${t.stage}`] = t.cost;
  // A skipped memory keeps its text (ratio 1): averaging it in would misstate the compression.
  if (t.skipped) inc['counts.skipped'] = (inc['counts.skipped'] ?? 0) + 1;
  else {
    inc[`ratioSums.${t.stage}.sum`] = t.ratio;
    inc[`ratioSums.${t.stage}.n`] = 1;
  }
  for (const [key, value] of Object.entries(t.usage)) if (value) inc[`tokens.${t.stage}.${key}`] = value;
}

type RunState = Pick<RunRecord, 'counts' | 'producerDoneAt' | 'finishedAt'>;

/** Every job the producer enqueued has been counted, and nobody has finished the run yet. */
function isComplete(run: RunState): boolean {
  return Boolean(run.producerDoneAt) && !run.finishedAt && run.counts.processed >= run.counts.enqueued;
}

/** Compression run records: every update is one atomic write, so many workers can report at once. */
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
    totals: { selected: number; enqueued: number; users: number; deferred?: number },
  ): Promise<void> {
    await this.models.runs.updateOne(
      { runId, producerDoneAt: { $exists: false } },
      {
        $set: {
          'counts.selected': totals.selected,
          'counts.enqueued': totals.enqueued,
          'counts.deferred': totals.deferred ?? 0,
          users: totals.users,
          producerDoneAt: new Date(),
        },
      },
    );
  }

  /**
   * Counts one ended job (its transitions, its outcome, its error) in one atomic write, and says
   * whether that made the run's counts complete. One write per job instead of one per transition
   * plus a read: the run document is every worker's hot spot.
   */
  async recordJob(
    runId: string,
    job: {
      outcome: RunOutcome;
      transitions?: TransitionCount[];
      error?: { memoryId: string; stage: string; message: string };
    },
  ): Promise<{ complete: boolean }> {
    const inc: Record<string, number> = { 'counts.processed': 1 };
    if (job.outcome !== 'completed') inc[`counts.${job.outcome}`] = 1;
    for (const t of job.transitions ?? []) addTransition(inc, t);
    if (job.error) await this.models.runErrors.create({ runId, ...job.error, at: new Date() });
    // Through the driver: once per job, and mongoose's casting has nothing to do on a plain $inc.
    const run = await this.models.runs.collection.findOneAndUpdate(
      { runId },
      { $inc: inc },
      { returnDocument: 'after', projection: { counts: 1, producerDoneAt: 1, finishedAt: 1 } },
    );
    return { complete: Boolean(run && isComplete(run as unknown as RunState)) };
  }

  /**
   * Lists an error under the run without counting a job: for a job its producer did not enqueue
   * (e.g. a malformed payload added by hand). Nothing is recorded for a run that does not exist.
   */
  async recordError(
    runId: string,
    error: { memoryId: string; stage: string; message: string },
  ): Promise<boolean> {
    const run = await this.models.runs.findOne({ runId }, { _id: 1 }).lean().exec();
    if (!run) return false;
    await this.models.runErrors.create({ runId, ...error, at: new Date() });
    return true;
  }

  /** Marks the run finished once every job it enqueued has ended; true only for the call that did it. */
  async finishIfComplete(runId: string): Promise<boolean> {
    const run = await this.state(runId);
    return run !== null && isComplete(run) && this.finish(runId);
  }

  /**
   * Finishes the run (once), for a caller that knows every job it enqueued has ended. Its counts are
   * settled from the memories first: the live counters are bumped after each stage write, so a
   * worker that dies or loses MongoDB between the two leaves them short (the retried job finds the
   * stage written and counts a no-op), or counts a job twice. The histories record each
   * application once. Tokens and cost stay as counted: they can be short after such a crash.
   */
  async finish(runId: string): Promise<boolean> {
    // Durations are wall-clock time, whatever logical "now" (asOf) the run was computed for.
    const now = new Date();
    const run = await this.state(runId);
    if (!run || run.finishedAt) return false;
    const settled = await this.countsFromMemories(runId, run.counts.enqueued);
    const result = await this.models.runs.updateOne(
      { runId, finishedAt: { $exists: false } },
      {
        $set: {
          ...Object.fromEntries(Object.entries(settled).map(([key, value]) => [`counts.${key}`, value])),
          finishedAt: now,
          durationMs: Math.max(0, now.getTime() - run.startedAt.getTime()),
        },
      },
    );
    return result.modifiedCount === 1;
  }

  /** What deciding and finishing need, without the error list get() also reads. */
  private state(runId: string) {
    return this.models.runs
      .findOne({ runId }, { _id: 0, counts: 1, producerDoneAt: 1, finishedAt: 1, startedAt: 1 })
      .lean<Pick<RunRecord, 'counts' | 'producerDoneAt' | 'finishedAt' | 'startedAt'>>()
      .exec();
  }

  /** What the run did, as the memories and its error records tell it, for `enqueued` ended jobs. */
  private async countsFromMemories(
    runId: string,
    enqueued: number,
  ): Promise<Omit<RunCounts, 'selected' | 'enqueued'>> {
    const count = (filter: Record<string, unknown>) => this.models.memories.countDocuments(filter).exec();
    const applied = (stage: 'v1' | 'v2') => ({ [F.history]: { $elemMatch: { runId, stage } } });
    const skipped = (stage: 'v1' | 'v2') => ({
      ...applied(stage),
      [`${stageResultPath(stage)}.skipped`]: { $exists: true },
    });
    const byThisRun = { [`${F.history}.runId`]: runId };
    const failedIds = (await this.models.runErrors.distinct('memoryId', { runId }).exec()) as string[];
    const [v1, v2, skippedV1, skippedV2, advanced, failedButAdvanced] = await Promise.all([
      count(applied('v1')),
      count(applied('v2')),
      count(skipped('v1')),
      count(skipped('v2')),
      count(byThisRun),
      // A raw memory can get V1 and then fail at V2: one job, both advanced and failed.
      count({ ...byThisRun, [F.memoryId]: { $in: failedIds } }),
    ]);
    const failed = failedIds.length;
    const noop = Math.max(0, enqueued - advanced - (failed - failedButAdvanced));
    return { processed: enqueued, v1, v2, skipped: skippedV1 + skippedV2, noop, failed };
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
