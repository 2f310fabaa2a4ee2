import { createHash } from 'node:crypto';
import {
  applyBatchReply,
  BadInputError,
  type BatchCompressor,
  type BatchItem,
  type BatchItemResult,
  costOf,
  errorMessage,
  InvalidModelOutputError,
  type MemoryStore,
  type PriceTable,
  prepareBatchStage,
  type StagePolicy,
  type TargetStage,
} from '@memfade/core';
import type {
  BatchRecord,
  BatchRepository,
  BatchRequestRecord,
  BatchRequestState,
  RunRepository,
  TransitionCount,
} from '@memfade/db';
import { type Job, UnrecoverableError } from 'bullmq';
import type { Logger } from 'pino';
import { enqueueBatchPoll, enqueueBatchSubmit, enqueueCompress, type MemfadeQueues } from '../queues.js';
import {
  type BatchPollPayload,
  type BatchSubmitPayload,
  batchPollPayload,
  batchSubmitPayload,
  compressJobId,
} from '../registry.js';
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
const trackerId = (record: Pick<BatchRequestRecord, 'memoryId' | 'target'>) =>
  compressJobId(record.memoryId, record.target);

/**
 * Batches live in the provider's time, and the deadline and result times are durations since the
 * run's start (itself wall-clock): never the logical `now` a run is computed for (asOf, tests).
 */
const wallClock = () => new Date();

/** Clock skew allowed between this worker and the provider when looking for a batch after a crash. */
const FIND_MARGIN_MS = 5 * 60_000;

export async function processBatchSubmit(
  job: Job<BatchSubmitPayload>,
  deps: BatchDeps,
): Promise<{ submitted: number; sync: number }> {
  const parsed = batchSubmitPayload.safeParse(job.data);
  if (!parsed.success) throw new UnrecoverableError(`invalid batch-submit payload: ${parsed.error.message}`);
  const { runId, round } = parsed.data;
  const label = { runId, round };
  const existing = await deps.batches.batches(runId, round);
  const known = existing.flatMap((b) => (b.batchId ? [b.batchId] : []));
  // A batch recorded without its provider id: an earlier attempt died around submit(). If the
  // provider accepted it, it is found again and kept; otherwise it is submitted now.
  const resubmit = new Map<number, BatchItem[]>();
  for (const batch of existing.filter((b) => !b.batchId)) {
    const since = new Date(batch.submittingAt.getTime() - FIND_MARGIN_MS);
    const found = await deps.model.findSubmitted(label, since, batch.customIds.length, known);
    if (found) {
      known.push(found);
      await accepted(batch, found, deps);
    } else resubmit.set(batch.index, []);
  }
  const owner = new Map<string, number>();
  for (const batch of existing) for (const id of batch.customIds) owner.set(id, batch.index);
  let next = existing.reduce((max, b) => Math.max(max, b.index + 1), 0);
  let submitted = 0;
  let sync = 0;
  let items: BatchItem[] = [];
  const submitFull = async (all: boolean) => {
    const groups = deps.model.split(items, deps.settings.maxRequests);
    // The last group may still grow, unless the scan is over.
    items = all ? [] : (groups.pop() ?? []);
    for (const group of groups) {
      await submitBatch(
        { runId, round, index: next++, customIds: group.map((i) => i.customId) },
        group,
        deps,
      );
      submitted++;
    }
  };
  for await (const record of deps.batches.requests(runId, round, ['pending', 'prepared'])) {
    const item = await prepare(record, deps);
    if (item === 'sync') sync++;
    if (typeof item === 'string') continue;
    const index = owner.get(record.customId);
    if (index === undefined) {
      items.push(item);
      // Past one batch's worth, the full batches go: at most one batch is held here at a time.
      if (items.length > batchSize(deps)) await submitFull(false);
    } else if (resubmit.has(index)) resubmit.get(index)!.push(item);
    else {
      // Its batch was accepted and recorded; only this record's update was lost.
      const batchId = existing.find((b) => b.index === index)?.batchId;
      if (batchId) await deps.batches.markSubmitted([record.customId], batchId);
    }
  }
  await submitFull(true);
  for (const [index, group] of resubmit) {
    const batch = existing.find((b) => b.index === index)!;
    if (group.length === 0) {
      await deps.batches.updateBatch({ runId, round, index }, { state: 'applied' });
      continue;
    }
    await submitBatch(batch, group, deps);
    submitted++;
  }
  deps.logger?.info(
    { runId, round, batches: submitted, sync },
    `run ${runId} round ${round}: ${submitted} batches submitted, ${sync} memories sent the sync way`,
  );
  await enqueueBatchPoll(deps.queues, { runId, round, poll: 0 }, deps.settings.pollMs);
  return { submitted, sync };
}

/** Requests per batch: BATCH_MAX_REQUESTS under the provider's limit (0 = the provider's). */
function batchSize(deps: BatchDeps): number {
  const { maxRequests } = deps.settings;
  return maxRequests > 0 ? Math.min(maxRequests, deps.model.maxRequests) : deps.model.maxRequests;
}

/**
 * Records the batch before calling the provider, then its id once accepted. A crash between the
 * two leaves a record without an id, which the next attempt resolves (processBatchSubmit).
 */
async function submitBatch(
  key: Pick<BatchRecord, 'runId' | 'round' | 'index' | 'customIds'>,
  items: BatchItem[],
  deps: BatchDeps,
): Promise<void> {
  const record = await deps.batches.openBatch(key, wallClock());
  if (record.batchId) return;
  const { batchId } = await deps.model.submit(items, { runId: key.runId, round: key.round });
  await accepted({ ...record, customIds: items.map((i) => i.customId) }, batchId, deps);
}

async function accepted(batch: BatchRecord, batchId: string, deps: BatchDeps): Promise<void> {
  const { runId, round, index } = batch;
  await deps.batches.updateBatch(
    { runId, round, index },
    { batchId, state: 'submitted', submittedAt: wallClock(), customIds: batch.customIds },
  );
  await deps.batches.markSubmitted(batch.customIds, batchId);
  await deps.runs.addBatchCounts(runId, { submitted: 1 });
}

/** Builds one record's request, or settles the record when its memory goes another way. */
async function prepare(record: BatchRequestRecord, deps: BatchDeps): Promise<BatchItem | 'sync' | 'settled'> {
  let prepared: Awaited<ReturnType<typeof prepareBatchStage>>;
  try {
    prepared = await prepareBatchStage(record.memoryId, record.target, deps);
  } catch (error) {
    if (!(error instanceof BadInputError)) throw error;
    await fail(record, 'input', errorMessage(error), deps);
    return 'settled';
  }
  if (prepared.kind === 'noop') {
    const carried = record.carried ?? [];
    await end(record, 'noop', { outcome: carried.length ? 'completed' : 'noop', transitions: carried }, deps);
    return 'settled';
  }
  if (prepared.kind === 'sync') {
    await toSync(record, deps);
    return 'sync';
  }
  const { request, stage, expectedStage, expectedRev, inputHash } = prepared;
  await deps.batches.transition(record.customId, ['pending', 'prepared'], {
    state: 'prepared',
    stage,
    expectedStage,
    expectedRev,
    inputHash,
  });
  return { customId: record.customId, stage, request };
}

export async function processBatchPoll(
  job: Job<BatchPollPayload>,
  deps: BatchDeps,
): Promise<{ open: number }> {
  const parsed = batchPollPayload.safeParse(job.data);
  if (!parsed.success) throw new UnrecoverableError(`invalid batch-poll payload: ${parsed.error.message}`);
  const { runId, round, poll } = parsed.data;
  const run = await deps.runs.state(runId);
  if (!run) throw new UnrecoverableError(`batch-poll: run ${runId} does not exist`);
  const pastDeadline = wallClock().getTime() >= run.startedAt.getTime() + deps.settings.deadlineMs;
  let open = 0;
  for (const batch of await deps.batches.batches(runId, round)) {
    if (batch.state === 'applied') continue;
    // Still being submitted: the submit job (or its retry) records it; look again next time.
    if (!batch.batchId) {
      open++;
      continue;
    }
    const status = await deps.model.status(batch.batchId);
    if (!status.ended) {
      if (pastDeadline && !batch.canceledAt) {
        await deps.model.cancel(batch.batchId);
        await deps.batches.updateBatch(batch, { canceledAt: wallClock() });
        await deps.runs.addBatchCounts(runId, {}, { afterDeadline: deps.settings.afterDeadline });
        deps.logger?.warn(
          { runId, round, batchId: batch.batchId },
          `run ${runId}: batch ${batch.batchId} not ended by BATCH_DEADLINE_MS, canceled; what it leaves goes ${deps.settings.afterDeadline}`,
        );
      }
      open++;
      continue;
    }
    // Counted as ended before its results are applied: the run can finish with its last result.
    if (await deps.batches.markEnded(batch, wallClock())) await deps.runs.addBatchCounts(runId, { ended: 1 });
    await applyResults({ ...batch, batchId: batch.batchId }, status.failure, pastDeadline, deps);
    await deps.batches.updateBatch(batch, { state: 'applied' });
  }
  if (open > 0) {
    await enqueueBatchPoll(deps.queues, { runId, round, poll: poll + 1 }, deps.settings.pollMs);
    return { open };
  }
  // The round is over: the next one holds retries, requests of edited memories, and V2 after V1.
  if (await deps.batches.hasPending(runId, round + 1)) {
    if (pastDeadline) {
      for await (const record of deps.batches.requests(runId, round + 1, ['pending']))
        await afterDeadline(record, deps);
    } else await enqueueBatchSubmit(deps.queues, { runId, round: round + 1 });
  }
  return { open: 0 };
}

/**
 * Streams an ended batch's results and gives each request its outcome. A request already settled
 * (a results file read before, halfway) is skipped, so reading again resumes. Requests with no
 * result line (a batch that failed as a whole) are errored.
 */
async function applyResults(
  batch: BatchRecord & { batchId: string },
  failure: string | undefined,
  pastDeadline: boolean,
  deps: BatchDeps,
): Promise<void> {
  const late = pastDeadline || Boolean(batch.canceledAt);
  if (!failure) {
    for await (const result of deps.model.results(batch.batchId)) {
      const record = await deps.batches.request(result.customId);
      if (record?.state !== 'submitted' || record.runId !== batch.runId) continue;
      await applyResult(record, result, late, deps);
    }
  }
  for (const record of await deps.batches.unresolved(batch.runId, batch.round, batch.batchId)) {
    const message = failure ? `the batch failed: ${failure}` : 'the batch returned no result for it';
    await applyResult(
      record,
      { customId: record.customId, outcome: 'errored', retryable: !failure, message },
      late,
      deps,
    );
  }
}

async function applyResult(
  request: BatchRequestRecord,
  result: BatchItemResult,
  late: boolean,
  deps: BatchDeps,
): Promise<void> {
  let record = request;
  const { runId } = record;
  const stage = record.stage ?? (record.target as TargetStage);
  const counted = async (key: string) =>
    deps.runs.addBatchCounts(runId, { [`requests.${key}`]: 1 }, { resultAt: wallClock() });
  if (result.outcome !== 'succeeded') {
    if (late) await afterDeadline(record, deps);
    else if (result.retryable && record.attempts + 1 < deps.settings.maxRounds)
      await nextRound(record, { attempts: record.attempts + 1, error: result.message }, deps);
    else await fail(record, stage, `batch request ${result.outcome}: ${result.message}`, deps);
    await counted(result.outcome);
    return;
  }
  const expected = {
    memoryId: record.memoryId,
    stage,
    expectedStage: record.expectedStage ?? 'raw',
    expectedRev: record.expectedRev ?? 0,
    inputHash: record.inputHash ?? '',
  };
  let outcome: Awaited<ReturnType<typeof applyBatchReply>>;
  try {
    outcome = await applyBatchReply(
      expected,
      runId,
      (request) => deps.model.accept(stage, request, result.turn),
      deps,
    );
  } catch (error) {
    // What retrying cannot fix fails the memory, as in a compress job; anything else retries the poll.
    const bad = error instanceof BadInputError;
    if (!bad && !(error instanceof InvalidModelOutputError)) throw error;
    await fail(record, bad ? 'input' : stage, errorMessage(error), deps);
    await counted('succeeded');
    return;
  }
  await counted('succeeded');
  const carried = record.carried ?? [];
  if (outcome.kind === 'applied') {
    deps.onTransition?.();
    const { transition: t } = outcome;
    const cost = costOf(t.usage, deps.prices?.[t.model], { batch: true });
    const done: TransitionCount = { stage: t.stage, skipped: false, usage: t.usage, ratio: t.ratio, cost };
    await counted('applied');
    // A raw memory due for V2: its V1 is written; V2 goes into the next round, the same night.
    if (t.stage === 'v1' && record.target === 'v2')
      await nextRound(record, { attempts: 0, carried: [...carried, done] }, deps, 'applied');
    else await end(record, 'applied', { outcome: 'completed', transitions: [...carried, done] }, deps);
    return;
  }
  // The product edited the memory after its request was built: compressed again from the new text,
  // and the reply thrown away still counts in the run's spending, as in the sync path.
  if (outcome.reason === 'edited') {
    const cost = costOf(result.usage, deps.prices?.[deps.model.model], { batch: true });
    record = { ...record, discarded: [...(record.discarded ?? []), { stage, usage: result.usage, cost }] };
    if (record.attempts + 1 < deps.settings.maxRounds && !late) {
      await nextRound(record, { attempts: record.attempts + 1, error: 'edited meanwhile' }, deps, 'noop');
      return;
    }
  }
  await end(record, 'noop', { outcome: carried.length ? 'completed' : 'noop', transitions: carried }, deps);
}

/** Writes the memory's request for the next round, then settles this one as `state`. */
async function nextRound(
  record: BatchRequestRecord,
  next: { attempts: number; error?: string; carried?: TransitionCount[] },
  deps: BatchDeps,
  state: BatchRequestState = 'retried',
): Promise<void> {
  const round = record.round + 1;
  await deps.batches.addRequests([
    {
      runId: record.runId,
      round,
      customId: requestId(deps.model, record.runId, round, record.memoryId),
      memoryId: record.memoryId,
      target: record.target,
      state: 'pending',
      attempts: next.attempts,
      ...((next.carried ?? record.carried) && { carried: next.carried ?? record.carried }),
      ...(record.discarded && { discarded: record.discarded }),
    },
  ]);
  await deps.batches.transition(record.customId, ['submitted'], {
    state: state === 'noop' ? 'retried' : state,
    ...(next.error && { error: next.error }),
  });
}

/** Past the deadline: the sync path now, or the next night, by BATCH_AFTER_DEADLINE. */
async function afterDeadline(record: BatchRequestRecord, deps: BatchDeps): Promise<void> {
  if (deps.settings.afterDeadline === 'sync') return toSync(record, deps);
  const carried = record.carried ?? [];
  await end(
    record,
    'deferred',
    { outcome: carried.length ? 'completed' : 'noop', transitions: carried },
    deps,
  );
}

/** Hands the memory to a compress job of the same run, which counts it when it ends. */
async function toSync(record: BatchRequestRecord, deps: BatchDeps): Promise<void> {
  const { runId, memoryId, target } = record;
  const added = await enqueueCompress(deps.queues, [{ runId, memoryId, target }]);
  // A job of this memory was already there (another run's, or a failed one still kept): this
  // run will not hear of it, so the memory is counted here.
  if (added.enqueued === 0) {
    await end(
      record,
      'noop',
      { outcome: record.carried?.length ? 'completed' : 'noop', transitions: record.carried },
      deps,
    );
    return;
  }
  await deps.batches.transition(record.customId, ['pending', 'prepared', 'submitted'], { state: 'sync' });
}

async function fail(
  record: BatchRequestRecord,
  stage: TargetStage | 'input',
  message: string,
  deps: BatchDeps,
): Promise<void> {
  await deps.store.recordError(record.memoryId, {
    stage,
    message,
    at: deps.now(),
    attempts: record.attempts + 1,
  });
  await end(
    record,
    'failed',
    { outcome: 'failed', transitions: record.carried, error: { memoryId: record.memoryId, stage, message } },
    deps,
  );
}

/**
 * Counts the memory in its run (once: the tracker claims its id), then settles the record. Counted
 * first, so a crash in between leaves a record that is settled again and counted by nobody twice.
 */
async function end(
  record: BatchRequestRecord,
  state: BatchRequestState,
  jobEnd: JobEnd,
  deps: BatchDeps,
): Promise<void> {
  const discarded = [...(jobEnd.discarded ?? []), ...(record.discarded ?? [])];
  await deps.tracker.jobEnded(record.runId, trackerId(record), {
    ...jobEnd,
    ...(discarded.length && { discarded }),
  });
  await deps.batches.transition(record.customId, ['pending', 'prepared', 'submitted'], { state });
}
