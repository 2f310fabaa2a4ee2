import {
  type Compressor,
  compressMemory,
  errorMessage,
  failureReason,
  type JobProgress,
  type MemoryStore,
  type ModelPrice,
  type PipelineOutcome,
  type PriceTable,
  progressOf,
  RetentionGateError,
  type StagePolicy,
  ZERO_USAGE,
} from '@memfade/core';
import { isMongoUnreachable } from '@memfade/db';
import {
  attemptEnd,
  type CompressPayload,
  classifyFailure,
  MONGO_AWAY_FAILURE,
  withJobTimeout,
} from '@memfade/queue';
import type { Job } from 'bullmq';
import { type BudgetKeeper, runBooks, runCompressor } from '../runs/budget.js';
import { carriedEnd, countedTransition, type MemoryEnd } from '../runs/outcome.js';
import type { RunTracker } from '../runs/run-tracker.js';

export interface CompressDeps {
  store: MemoryStore;
  compressor: Compressor;
  /** Counts each job in its run once, and finishes the run after its last job. */
  tracker: RunTracker;
  policy: StagePolicy;
  now: () => Date;
  /** Turns recorded token usage into cost (US dollars per million tokens, per model). */
  prices?: PriceTable;
  /** Called after a transition was written, so the vector outbox is flushed soon. */
  onTransition?: () => void;
  /** Wall-clock limit of one job (JOB_TIMEOUT_MS); 0 or absent = none. */
  jobTimeoutMs?: number;
  /** The night's budget, when one is set: every model call is reserved on it first (budget.ts). */
  budget?: { keeper: BudgetKeeper; price?: ModelPrice };
}

/**
 * One memory: the pipeline, then the run's accounting. A failure is thrown on to the wrapper
 * (queue/jobs.ts), which fails for good what retrying cannot fix.
 */
export async function processCompress(
  job: Job<CompressPayload>,
  deps: CompressDeps,
): Promise<PipelineOutcome> {
  // Parsed by the job table's wrapper before this runs (queue/jobs.ts): a bad payload never gets here.
  const { runId, memoryId, target, carried } = job.data;
  // Every paid call is counted on the run as its reply arrives (docs/design.md invariant 9), so
  // the job's end counts only its stages and outcome, never their tokens again.
  const books = runBooks(runId, memoryId, deps.tracker, deps.prices);
  const compressor = runCompressor(deps.compressor, runId, books, deps.budget);
  let outcome: PipelineOutcome;
  try {
    outcome = await withJobTimeout(
      deps.jobTimeoutMs ?? 0,
      `memory ${memoryId}: the ${target} job`,
      deps.store,
      (deadline) => compressMemory(memoryId, target, runId, { ...deps, compressor, ...deadline }),
    );
  } catch (error) {
    // Stages this attempt wrote before failing, and calls it paid for: counted with the job's end.
    const sofar = withCarried(carried, counted(progressOf(error)));
    const failure = classifyFailure(error);
    if (failure.kind === 'budget') {
      // Nothing more is asked of the model tonight for this memory: it stays due (a V1 written
      // before the budget was reached stays), and the job ends well.
      await endedWell(job, { ...sofar, ...carriedEnd(sofar?.transitions), overBudget: true }, deps);
      return { kind: 'noop', reason: 'over_budget' };
    }
    if (sofar !== carried) await job.updateData({ ...job.data, carried: sofar });
    // What becomes of the job is decided by the wrapper every queue runs (queue/jobs.ts), from the
    // same verdict: on the job's last attempt its memory's failure is recorded and counted here.
    const attempts = job.attemptsMade + 1;
    if (attemptEnd(failure, attempts, job.opts.attempts).final) {
      // MongoDB away at the last attempt is the outage's failure, not the memory's: said so, so the
      // next run replaces the job (docs/design.md invariant 3) instead of it holding the memory back.
      const away = isMongoUnreachable(error);
      const message = `${away ? MONGO_AWAY_FAILURE : ''}${errorMessage(error)}`;
      const stage = failure.kind === 'bad-input' ? 'input' : target;
      // A stage the retention gate refused is counted as such on the run (docs/design.md §11).
      const refused = error instanceof RetentionGateError && { retentionRefused: true };
      const reason = failureReason(error);
      const end = {
        ...sofar,
        outcome: 'failed' as const,
        error: { memoryId, stage, message },
        ...refused,
        ...(reason && { reason }),
      };
      await recordFailure(() =>
        deps.store.recordError(memoryId, { stage, message, at: deps.now(), attempts }),
      );
      await recordFailure(() => ended(job, end, deps));
      if (away) throw new Error(message, { cause: error });
    }
    throw error;
  }
  if (outcome.kind === 'advanced') deps.onTransition?.();
  const done = withCarried(
    carried,
    counted({ transitions: outcome.kind === 'advanced' ? outcome.transitions : [], discarded: [] }),
  );
  await endedWell(job, { ...done, ...carriedEnd(done?.transitions) }, deps);
  return outcome;
}

/**
 * Counts the end of an attempt that ended well (its stages written, a no-op, the budget reached).
 * At the job's last attempt no retry will count it, so MongoDB away as it is counted fails the job
 * saying so (recordFailure), as when the attempt itself failed: the run tracker counts it failed,
 * with that reason, once MongoDB answers (a stage it wrote stays, counted from the memory), and the
 * next run replaces the job (docs/design.md invariant 3). Before, BullMQ failed it for good with the
 * driver's message, which the sweep does not count (not MongoDB's, not stalled): its reason
 * nowhere, and the run said one failed job fewer than BullMQ held (invariant 15).
 */
async function endedWell(
  job: Job<CompressPayload>,
  end: Omit<MemoryEnd, 'target' | 'memoryId'>,
  deps: CompressDeps,
): Promise<void> {
  if (job.attemptsMade + 1 < (job.opts.attempts ?? 1)) return ended(job, end, deps);
  await recordFailure(() => ended(job, end, deps));
}

type Carried = CompressPayload['carried'];

/**
 * Records a last attempt's failure, or counts its end; MongoDB away meanwhile fails the job saying
 * so (MONGO_AWAY_FAILURE): the run tracker counts it once MongoDB is back and the next run replaces
 * the job (docs/design.md invariant 3), where it held its memory back with no reason recorded anywhere.
 */
async function recordFailure(record: () => Promise<unknown>): Promise<void> {
  try {
    await record();
  } catch (error) {
    if (!isMongoUnreachable(error)) throw error;
    throw new Error(`${MONGO_AWAY_FAILURE}${errorMessage(error)}`, { cause: error });
  }
}

/**
 * A job's transitions as the run counts them: their tokens and cost were counted call by call as
 * they were billed (runCompressor), so none here; calls whose result was thrown away likewise.
 */
const counted = (progress: JobProgress): NonNullable<Carried> => ({
  transitions: progress.transitions.map((t) => countedTransition(t, ZERO_USAGE, 0)),
});

/**
 * What earlier attempts (or batch rounds) carried, with this attempt's added; the very same
 * object when this attempt adds nothing, so the job's data is rewritten only when it must be.
 */
function withCarried(carried: Carried, added: NonNullable<Carried>): Carried {
  if (!added.transitions?.length && !added.discarded?.length) return carried;
  return {
    transitions: [...(carried?.transitions ?? []), ...(added.transitions ?? [])],
    discarded: [...(carried?.discarded ?? []), ...(added.discarded ?? [])],
  };
}

/** The memory's work in the run ended: counted once on its run (outcome.ts). */
const ended = (job: Job<CompressPayload>, end: Omit<MemoryEnd, 'target' | 'memoryId'>, deps: CompressDeps) =>
  deps.tracker.memoryEnded(job.data.runId, { ...end, target: job.data.target, memoryId: job.data.memoryId });
