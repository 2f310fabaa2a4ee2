import { errorMessage } from '@memfade/core';
import type { BatchRecord, BatchRequestRecord } from '@memfade/db';
import { type BatchPollPayload, enqueueBatchPoll, enqueueBatchSubmit } from '@memfade/queue';
import { type Job, UnrecoverableError } from 'bullmq';
import { perMemory } from './batch-groups.js';
import { type BatchDeps, inChunks, Outcomes, wallClock, withPreloaded } from './batch-requests.js';
import { afterDeadline, counted, forgotten, givenUp, settleAll } from './batch-results.js';
import { acceptedId } from './batch-submit.js';

/**
 * The batch-poll job: applies the results of ended batches and starts the next round. A drain
 * chain (`drain`: the run gave its requests up, batch-recovery.ts) only cancels the round's batches
 * still at the provider and counts the lines they bill all the same; it applies nothing and starts
 * no round.
 */

export async function processBatchPoll(
  job: Job<BatchPollPayload>,
  deps: BatchDeps,
): Promise<{ open: number }> {
  // Parsed by the job table's wrapper before this runs (queue/jobs.ts): a bad payload never gets here.
  const { runId, round, poll, resume, drain } = job.data;
  const run = await deps.runs.state(runId);
  if (!run) throw new UnrecoverableError(`batch-poll: run ${runId} does not exist`);
  const pastDeadline = wallClock().getTime() >= run.startedAt.getTime() + deps.settings.deadlineMs;
  let open = 0;
  const recorded = await deps.batches.batches(runId, round);
  for (let batch of recorded) {
    if (batch.state === 'applied') continue;
    // Still being submitted: the submit job (or its retry) records it; look again next time. A
    // drain has no submit job behind it: it looks the batch up at the provider as a retried
    // submit would (its create call may have been accepted), and leaves it if it is not there.
    if (!batch.batchId) {
      if (!drain) {
        open++;
        continue;
      }
      const known = recorded.flatMap((b) => (b.batchId ? [b.batchId] : []));
      const found = await acceptedId(batch, known, deps);
      if (!found) continue;
      await deps.batches.updateBatch(batch, { batchId: found, state: 'submitted', submittedAt: wallClock() });
      batch = { ...batch, batchId: found };
    }
    const { batchId } = batch;
    if (!batchId) continue;
    let status: Awaited<ReturnType<typeof deps.model.status>>;
    try {
      status = await deps.model.status(batchId);
    } catch (error) {
      // Another poller applied it and deleted its files meanwhile (BATCH_DELETE_FILES): done.
      if (await appliedMeanwhile(batch, deps)) continue;
      throw error;
    }
    if (!status.ended) {
      if ((pastDeadline || drain) && !batch.canceledAt) {
        await deps.model.cancel(batchId);
        await deps.batches.updateBatch(batch, { canceledAt: wallClock() });
        if (drain)
          deps.logger?.warn(
            { runId, round, batchId },
            `run ${runId}: batch ${batchId} of requests given up canceled; the lines it bills are counted as they come`,
          );
        else {
          await deps.tracker.batchCounted(runId, {}, { afterDeadline: deps.settings.afterDeadline });
          deps.logger?.warn(
            { runId, round, batchId },
            `run ${runId}: batch ${batchId} not ended by BATCH_DEADLINE_MS, canceled; what it leaves goes ${deps.settings.afterDeadline}`,
          );
        }
      }
      open++;
      continue;
    }
    // Counted as ended before its results are applied: the run can finish with its last result.
    if (await deps.batches.markEnded(batch, wallClock()))
      await deps.tracker.batchCounted(runId, { ended: 1 });
    try {
      await applyResults({ ...batch, batchId }, status.failure, pastDeadline, deps);
    } catch (error) {
      if (await appliedMeanwhile(batch, deps)) continue;
      throw error;
    }
    await deps.batches.updateBatch(batch, { state: 'applied' });
    if (deps.settings.deleteFiles || batch.eraseFiles) await deleteFiles(batchId, batch, deps);
  }
  if (open > 0) {
    const next = { runId, round, poll: poll + 1, resume, ...(drain && { drain }) };
    await enqueueBatchPoll(deps.queues, next, deps.settings.pollMs);
    return { open };
  }
  if (drain) return { open: 0 };
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
    // A line the provider repeats (one request, one bill) is settled once: its first.
    const seen = new Set<string>();
    const once = (line: { customId: string }) => !seen.has(line.customId) && Boolean(seen.add(line.customId));
    for await (const chunk of inChunks(deps.model.results(batch.batchId), deps.settings.chunk)) {
      const { lines, records } = await perMemory(chunk.filter(once), deps);
      const inState = (state: BatchRequestRecord['state']) =>
        lines.flatMap((result) => {
          const record = records.get(result.customId);
          return record?.state === state && record.runId === runId ? [counted(record, result)] : [];
        });
      const open = inState('submitted');
      // Requests `memfade forget` erased: their lines are paid for and counted, never read further.
      const erased = inState('erased');
      if (erased.length) await forgotten(runId, erased, deps);
      const interrupted = inState('interrupted');
      if (interrupted.length) await givenUp(runId, interrupted, deps);
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
