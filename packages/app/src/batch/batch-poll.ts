import {
  BadInputError,
  type BatchApplyOutcome,
  type BatchItemResult,
  type CallMeter,
  checkBatchReply,
  costOf,
  errorMessage,
  failureReason,
  InvalidModelOutputError,
  type PendingStage,
  RetentionGateError,
  type TargetStage,
  type Usage,
  writeBatchStages,
} from '@memfade/core';
import type { BatchRecord, BatchRequestRecord, BatchRequestState, TransitionCount } from '@memfade/db';
import { type BatchPollPayload, enqueueBatchPoll, enqueueBatchSubmit } from '@memfade/queue';
import { type Job, UnrecoverableError } from 'bullmq';
import { type Amount, billedAmount, runBooks, stageMeter } from '../runs/budget.js';
import { carriedEnd, countedTransition } from '../runs/outcome.js';
import { withDraft } from './batch-drafts.js';
import { perMemory } from './batch-groups.js';
import {
  type BatchDeps,
  fail,
  inChunks,
  Outcomes,
  type ResultCount,
  requestId,
  toSync,
  wallClock,
  withPreloaded,
} from './batch-requests.js';

/** The batch-poll job: applies the results of ended batches and starts the next round. */

export async function processBatchPoll(
  job: Job<BatchPollPayload>,
  deps: BatchDeps,
): Promise<{ open: number }> {
  // Parsed by the job table's wrapper before this runs (queue/jobs.ts): a bad payload never gets here.
  const { runId, round, poll, resume } = job.data;
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
    let status: Awaited<ReturnType<typeof deps.model.status>>;
    try {
      status = await deps.model.status(batch.batchId);
    } catch (error) {
      // Another poller applied it and deleted its files meanwhile (BATCH_DELETE_FILES): done.
      if (await appliedMeanwhile(batch, deps)) continue;
      throw error;
    }
    if (!status.ended) {
      if (pastDeadline && !batch.canceledAt) {
        await deps.model.cancel(batch.batchId);
        await deps.batches.updateBatch(batch, { canceledAt: wallClock() });
        await deps.tracker.batchCounted(runId, {}, { afterDeadline: deps.settings.afterDeadline });
        deps.logger?.warn(
          { runId, round, batchId: batch.batchId },
          `run ${runId}: batch ${batch.batchId} not ended by BATCH_DEADLINE_MS, canceled; what it leaves goes ${deps.settings.afterDeadline}`,
        );
      }
      open++;
      continue;
    }
    // Counted as ended before its results are applied: the run can finish with its last result.
    if (await deps.batches.markEnded(batch, wallClock()))
      await deps.tracker.batchCounted(runId, { ended: 1 });
    try {
      await applyResults({ ...batch, batchId: batch.batchId }, status.failure, pastDeadline, deps);
    } catch (error) {
      if (await appliedMeanwhile(batch, deps)) continue;
      throw error;
    }
    await deps.batches.updateBatch(batch, { state: 'applied' });
    if (deps.settings.deleteFiles || batch.eraseFiles) await deleteFiles(batch.batchId, batch, deps);
  }
  if (open > 0) {
    await enqueueBatchPoll(deps.queues, { runId, round, poll: poll + 1, resume }, deps.settings.pollMs);
    return { open };
  }
  // The round is over: the next one holds retries, requests of edited memories, and V2 after V1.
  if (await deps.batches.hasPending(runId, round + 1)) {
    if (pastDeadline) {
      for await (const chunk of inChunks(
        deps.batches.requests(runId, round + 1, ['pending']),
        deps.settings.chunk,
      )) {
        const out = new Outcomes(runId, deps);
        for (const record of chunk) await afterDeadline(record, deps, out);
        await out.write();
      }
    } else await enqueueBatchSubmit(deps.queues, { runId, round: round + 1, resume });
  }
  return { open: 0 };
}

/** Whether another poller has applied the batch since this one listed it (and may have deleted its files). */
async function appliedMeanwhile(batch: BatchRecord, deps: BatchDeps): Promise<boolean> {
  const now = (await deps.batches.batches(batch.runId, batch.round)).find((b) => b.index === batch.index);
  return now?.state === 'applied';
}

/**
 * Deletes the provider's copies of a batch whose results are applied (BATCH_DELETE_FILES, or a
 * batch `memfade forget` erased requests of): the memories' text does not wait out the provider's
 * retention there. A failure is logged, not retried here: the results are applied, and `memfade
 * forget` or the next night's poll of this run cannot bring them back.
 */
async function deleteFiles(
  batchId: string,
  key: Pick<BatchRecord, 'runId' | 'round' | 'index'>,
  deps: BatchDeps,
): Promise<void> {
  try {
    const deletion = await deps.model.deleteBatch(batchId);
    if (!deletion.pending)
      await deps.batches.updateBatch(key, { filesDeletedAt: wallClock(), filesDeleted: deletion.removed });
  } catch (error) {
    deps.logger?.warn(
      { runId: key.runId, batchId, reason: errorMessage(error) },
      `batch ${batchId}: its files at the provider could not be deleted; memfade forget deletes them`,
    );
  }
}

/**
 * Streams an ended batch's results and gives each request its outcome, a chunk of result lines at
 * a time (their records and memories read in one query each, their outcomes written together). A
 * request already settled (a results file read before, halfway) is skipped, so reading again
 * resumes. Requests with no result line (a batch that failed as a whole) are errored.
 */
async function applyResults(
  batch: BatchRecord & { batchId: string },
  failure: string | undefined,
  pastDeadline: boolean,
  deps: BatchDeps,
): Promise<void> {
  const late = pastDeadline || Boolean(batch.canceledAt);
  const { runId } = batch;
  if (!failure) {
    for await (const chunk of inChunks(deps.model.results(batch.batchId), deps.settings.chunk)) {
      const { lines, records } = await perMemory(chunk, deps);
      const open = lines.flatMap((result) => {
        const record = records.get(result.customId);
        return record?.state === 'submitted' && record.runId === runId ? [{ record, result }] : [];
      });
      // Requests `memfade forget` erased: their lines are paid for and counted, never read further.
      const erased = lines.flatMap((result) => {
        const record = records.get(result.customId);
        return record?.state === 'erased' && record.runId === runId ? [{ record, result }] : [];
      });
      if (erased.length) await forgotten(runId, erased, deps);
      const store = await withPreloaded(
        deps.store,
        open.map(({ record }) => record.memoryId),
      );
      await settleAll(runId, open, late, { ...deps, store });
    }
  }
  const unresolved = await deps.batches.unresolved(runId, batch.round, batch.batchId);
  const message = failure ? `the batch failed: ${failure}` : 'the batch returned no result for it';
  const errored = unresolved.map((record) => ({
    record,
    result: { customId: record.customId, outcome: 'errored' as const, retryable: !failure, message },
  }));
  await settleAll(runId, errored, late, deps);
}

type ResultLine = { record: BatchRequestRecord; result: BatchItemResult };

const stageOf = (record: BatchRequestRecord): TargetStage => record.stage ?? (record.target as TargetStage);

/** The result lines of erased requests: the run counts each memory once, with what its line cost. */
async function forgotten(runId: string, lines: ResultLine[], deps: BatchDeps): Promise<void> {
  const out = new Outcomes(runId, deps);
  const price = deps.prices?.[deps.model.model];
  for (const { record, result } of lines) {
    const stage = stageOf(record);
    // A succeeded line's usage, or a group member's share of its paid line.
    const usage = result.usage;
    const paid = usage ? [{ stage, usage, cost: costOf(usage, price, { batch: true }) }] : [];
    // Erased before its batch was accepted: forget counted its earlier rounds, so only the line counts.
    const counted = record.erasedUnsubmitted;
    const carried = counted ? [] : (record.carried ?? []);
    const settled = counted ? { ...record, discarded: [] } : record;
    const end = { ...carriedEnd(carried), discarded: paid };
    out.end(settled, 'forgotten', end, [result.outcome], ['erased']);
    out.settle(record, paidCalls(record, result, deps).billed);
  }
  await out.write(wallClock());
}

/**
 * Gives a chunk of requests the outcomes of their result lines: each reply checked, the chunk's
 * stages written together (writeBatchStages), then every outcome written together (Outcomes).
 */
async function settleAll(runId: string, lines: ResultLine[], late: boolean, deps: BatchDeps): Promise<void> {
  const out = new Outcomes(runId, deps);
  const checked: { record: BatchRequestRecord; lineUsage: Usage; pending: PendingStage }[] = [];
  for (const { record, result } of lines) {
    const calls = paidCalls(record, result, deps);
    const pending = await settle(record, result, late, { ...deps, meter: calls.meter }, out);
    out.settle(record, calls.billed);
    if (pending && result.outcome === 'succeeded') checked.push({ record, lineUsage: result.usage, pending });
  }
  const written = await writeBatchStages(
    checked.map((c) => c.pending),
    runId,
    deps,
  );
  // V2 from a V1's draft is written by the next round's submit, which reads the memory anyway
  // (batch-drafts.ts writeDrafts), not here: written here by the poller that wrote V1, another
  // poller of the same results could still send V2 to the next round, and a race between the two
  // counted a V1 twice (fault suite, "two replicas polling", about 1 run in 5).
  for (const [i, { record, lineUsage }] of checked.entries())
    settleChecked(record, lineUsage, written[i]!, late, deps, out);
  await out.write(wallClock());
}

/**
 * What a request's calls were billed: its line, at batch prices, and the sync calls its reply
 * needed (a truncation retry, a repair turn), each counted on the run as its reply arrives
 * (docs/design.md invariant 9), whatever happens to the poll after it.
 */
function paidCalls(
  record: BatchRequestRecord,
  result: BatchItemResult,
  deps: BatchDeps,
): { meter: CallMeter; billed: Amount } {
  const stage = stageOf(record);
  const price = deps.budget?.price ?? deps.prices?.[deps.model.model];
  const usage = result.usage;
  const billed = usage ? billedAmount(usage, price, { batch: true }) : none();
  const books = runBooks(record.runId, record.memoryId, deps.tracker, deps.prices);
  const meter = stageMeter(stage, books, billed, price);
  return { meter, billed };
}

const none = (): Amount => ({ usd: 0, tokens: 0 });

/** Gives one request the outcome of its result line in `out`, or the stage its reply makes, to write. */
async function settle(
  request: BatchRequestRecord,
  result: BatchItemResult,
  late: boolean,
  deps: BatchDeps & { meter: CallMeter },
  out: Outcomes,
): Promise<PendingStage | undefined> {
  let record = request;
  const stage = stageOf(record);
  if (result.outcome !== 'succeeded') {
    const counts: ResultCount[] = [result.outcome];
    // A group line paid for that did not answer this memory: its share is counted with the memory.
    if (result.usage) {
      const cost = costOf(result.usage, deps.prices?.[deps.model.model], { batch: true });
      record = { ...record, discarded: [...(record.discarded ?? []), { stage, usage: result.usage, cost }] };
    }
    if (late) await afterDeadline(record, deps, out, counts);
    else if (result.retryable && record.attempts + 1 < deps.settings.maxRounds)
      nextRound(record, { attempts: record.attempts + 1, error: result.message }, out, deps, counts);
    else await fail(record, stage, `batch request ${result.outcome}: ${result.message}`, deps, out, counts);
    return undefined;
  }
  const expected = {
    memoryId: record.memoryId,
    stage,
    expectedStage: record.expectedStage ?? 'raw',
    expectedRev: record.expectedRev ?? 0,
    inputHash: record.inputHash ?? '',
  };
  const price = deps.prices?.[deps.model.model];
  let checked: Awaited<ReturnType<typeof checkBatchReply>>;
  try {
    checked = await checkBatchReply(
      expected,
      record.runId,
      (request) => deps.model.accept(stage, { ...request, meter: deps.meter }, result.turn),
      deps,
    );
  } catch (error) {
    // What retrying cannot fix fails the memory, as in a compress job; anything else retries the poll.
    const bad = error instanceof BadInputError;
    if (!bad && !(error instanceof InvalidModelOutputError)) throw error;
    // The line was paid for: the run counts it either way (its retry and repair were counted as
    // they were billed).
    const discarded = { stage, usage: result.usage, cost: costOf(result.usage, price, { batch: true }) };
    record = { ...record, discarded: [...(record.discarded ?? []), discarded] };
    const why = { retentionRefused: error instanceof RetentionGateError, reason: failureReason(error) };
    await fail(record, bad ? 'input' : stage, errorMessage(error), deps, out, ['succeeded'], why);
    return undefined;
  }
  if (checked.kind === 'write') return checked;
  settleChecked(record, result.usage, checked, late, deps, out);
  return undefined;
}

/**
 * Gives a request whose reply was checked (and its stage written, or not) its outcome, in `out`;
 */
function settleChecked(
  request: BatchRequestRecord,
  lineUsage: Usage,
  outcome: BatchApplyOutcome,
  late: boolean,
  deps: BatchDeps,
  out: Outcomes,
): void {
  let record = request;
  const stage = stageOf(record);
  const price = deps.prices?.[deps.model.model];
  const carried = record.carried ?? [];
  if (outcome.kind === 'applied') {
    deps.onTransition?.();
    const { transition: t } = outcome;
    // The stage's usage holds the batch line's and, when it needed them, its sync retry's and
    // repair's; those were counted as they were billed (paidCalls): the line here, at batch prices.
    const done = countedTransition(
      { ...t, skipped: false },
      lineUsage,
      costOf(lineUsage, price, { batch: true }),
    );
    const counts: ResultCount[] = ['succeeded', 'applied'];
    const v2 = withDraft(outcome.draft, deps);
    // A raw memory due for V2 whose V2 did not come from its draft: V2 goes into the next round.
    if (t.stage === 'v1' && record.target === 'v2' && v2.length === 0)
      nextRound(record, { attempts: 0, carried: [...carried, done] }, out, deps, counts, 'applied');
    else out.end(record, 'applied', { outcome: 'completed', transitions: [...carried, done, ...v2] }, counts);
    return;
  }
  // A reply thrown away was paid for all the same: the run counts its line whatever the reason
  // (docs/design.md invariant 9), as the sync path counts a discarded call.
  const cost = costOf(lineUsage, price, { batch: true });
  record = { ...record, discarded: [...(record.discarded ?? []), { stage, usage: lineUsage, cost }] };
  // The product edited the memory after its request was built: compressed again from the new text.
  if (outcome.reason === 'edited') {
    if (record.attempts + 1 < deps.settings.maxRounds && !late) {
      const retry = { attempts: record.attempts + 1, error: 'edited meanwhile' };
      nextRound(record, retry, out, deps, ['succeeded']);
      return;
    }
  }
  out.end(record, 'noop', carriedEnd(carried), ['succeeded']);
}

/** The memory's request for the next round, then this one settled as `state`. */
function nextRound(
  record: BatchRequestRecord,
  next: { attempts: number; error?: string; carried?: TransitionCount[] },
  out: Outcomes,
  deps: BatchDeps,
  counts: ResultCount[],
  state: BatchRequestState = 'retried',
): void {
  const round = record.round + 1;
  const carried = next.carried ?? record.carried;
  // A retry of a memory whose group line did not answer it goes alone (docs/batch-mode.md).
  const retry = next.attempts > record.attempts;
  out.nextRound({
    runId: record.runId,
    round,
    customId: requestId(deps.model, record.runId, round, record.memoryId),
    memoryId: record.memoryId,
    ...(record.userId && { userId: record.userId }),
    target: record.target,
    ...(record.userId && { userId: record.userId }),
    ...(retry && (record.line || record.alone) && { alone: true }),
    state: 'pending',
    attempts: next.attempts,
    ...(carried && { carried }),
    ...(record.discarded && { discarded: record.discarded }),
  });
  out.move(record, ['submitted'], { state, ...(next.error && { error: next.error }) }, counts);
}

/** Past the deadline: the sync path now, or the next night, by BATCH_AFTER_DEADLINE. */
async function afterDeadline(
  record: BatchRequestRecord,
  deps: BatchDeps,
  out: Outcomes,
  counts: ResultCount[] = [],
): Promise<void> {
  if (deps.settings.afterDeadline === 'sync') return toSync(record, deps, out, counts);
  out.end(record, 'deferred', carriedEnd(record.carried ?? []), counts);
}
