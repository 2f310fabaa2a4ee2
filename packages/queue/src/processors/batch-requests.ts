import { createHash } from 'node:crypto';
import type { BatchCompressor, MemoryStore, PriceTable, StagePolicy, TargetStage } from '@memfade/core';
import type { BatchRepository, BatchRequestRecord, BatchRequestState, RunRepository } from '@memfade/db';
import type { Logger } from 'pino';
import { enqueueCompress, type MemfadeQueues } from '../queues.js';
import { compressJobId } from '../registry.js';
import type { JobEnd, RunTracker } from '../run-tracker.js';

/**
 * Batch mode (README "Batch mode", DESIGN section 6): a run's due memories as requests of the
 * provider's batch API, in rounds. The producer writes one `pending` request record per memory
 * before anything is submitted; the submit job builds each request (the sync path's own prompt),
 * records what it stands for, records each batch before submitting it and its provider id once
 * accepted; poll jobs stream ended batches' results and apply each reply with the sync path's
 * validation and conditional write. Every step can run again: the records say what is done.
 */

export interface BatchSettings {
  /** Requests per batch at most; 0 = the provider's limit. */
  maxRequests: number;
  pollMs: number;
  /** Counted from the run's start: batches still open then are canceled. */
  deadlineMs: number;
  afterDeadline: 'sync' | 'next-night';
  maxRounds: number;
}

export interface BatchDeps {
  store: MemoryStore;
  batches: BatchRepository;
  runs: RunRepository;
  tracker: RunTracker;
  queues: MemfadeQueues;
  model: BatchCompressor;
  policy: StagePolicy;
  now: () => Date;
  settings: BatchSettings;
  prices?: PriceTable;
  onTransition?: () => void;
  logger?: Logger;
}

/** A memory id as a custom id key: fixed length, [0-9a-f], whatever the product's ids hold. */
export function requestKey(memoryId: string): string {
  return createHash('sha256').update(memoryId).digest('hex').slice(0, 24);
}

/** The custom id of a memory's request in one round of a run: deterministic, so written once. */
export const requestId = (model: BatchCompressor, runId: string, round: number, memoryId: string) =>
  model.customId({ runId, round }, requestKey(memoryId));

/** A memory is counted in its run once, under the id its sync compress job would have. */
export const trackerId = (record: Pick<BatchRequestRecord, 'memoryId' | 'target'>) =>
  compressJobId(record.memoryId, record.target);

/**
 * Batches live in the provider's time, and the deadline and result times are durations since the
 * run's start (itself wall-clock): never the logical `now` a run is computed for (asOf, tests).
 */
export const wallClock = () => new Date();

/**
 * Hands the memory to a compress job of the same run, which counts it when it ends, with the stages
 * batch rounds already applied to it (and replies thrown away) carried in its payload. True for the
 * one caller that settled the request.
 */
export async function toSync(record: BatchRequestRecord, deps: BatchDeps): Promise<boolean> {
  const { runId, memoryId, target } = record;
  const carried = {
    ...(record.carried?.length && { transitions: record.carried }),
    ...(record.discarded?.length && { discarded: record.discarded }),
  };
  const added = await enqueueCompress(deps.queues, [
    { runId, memoryId, target, ...(Object.keys(carried).length && { carried }) },
  ]);
  // A job of this memory was already there (another run's, or a failed one still kept): this
  // run will not hear of it, so the memory is counted here.
  if (added.enqueued === 0)
    return end(
      record,
      'noop',
      { outcome: record.carried?.length ? 'completed' : 'noop', transitions: record.carried },
      deps,
    );
  return deps.batches.transition(record.customId, ['pending', 'prepared', 'submitted'], { state: 'sync' });
}

export async function fail(
  record: BatchRequestRecord,
  stage: TargetStage | 'input',
  message: string,
  deps: BatchDeps,
): Promise<boolean> {
  await deps.store.recordError(record.memoryId, {
    stage,
    message,
    at: deps.now(),
    attempts: record.attempts + 1,
  });
  return end(
    record,
    'failed',
    { outcome: 'failed', transitions: record.carried, error: { memoryId: record.memoryId, stage, message } },
    deps,
  );
}

/**
 * Counts the memory in its run (once: the tracker claims its id), then settles the record. Counted
 * first, so a crash in between leaves a record that is settled again and counted by nobody twice.
 * True for the one caller that settled the record (another poller of the same batch gets false).
 */
export async function end(
  record: BatchRequestRecord,
  state: BatchRequestState,
  jobEnd: JobEnd,
  deps: BatchDeps,
): Promise<boolean> {
  const discarded = [...(jobEnd.discarded ?? []), ...(record.discarded ?? [])];
  await deps.tracker.jobEnded(record.runId, trackerId(record), {
    ...jobEnd,
    ...(discarded.length && { discarded }),
  });
  return deps.batches.transition(record.customId, ['pending', 'prepared', 'submitted'], { state });
}
