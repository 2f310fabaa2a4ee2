import {
  BadInputError,
  type BatchItem,
  errorMessage,
  type PendingStage,
  prepareBatchStage,
} from '@memfade/core';
import type { BatchRecord, BatchRequestRecord } from '@memfade/db';
import { type BatchSubmitPayload, enqueueBatchPoll } from '@memfade/queue';
import type { Job } from 'bullmq';
import { eraseBatch } from '../erasure/batch-erasure.js';
import { reservationOf } from '../runs/budget.js';
import { writeDrafts } from './batch-drafts.js';

import {
  type BatchDeps,
  fail,
  inChunks,
  Outcomes,
  toSync,
  wallClock,
  withPreloaded,
} from './batch-requests.js';

/** The batch-submit job: builds a round's requests and submits them, recording each batch first. */

/** Clock skew allowed between this worker and the provider when looking for a batch after a crash. */
const FIND_MARGIN_MS = 5 * 60_000;

export async function processBatchSubmit(
  job: Job<BatchSubmitPayload>,
  deps: BatchDeps,
): Promise<{ submitted: number; sync: number }> {
  // Parsed by the job table's wrapper before this runs (queue/jobs.ts): a bad payload never gets here.
  const { runId, round, resume } = job.data;
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
      if (
        await submitBatch(
          { runId, round, index: next++, customIds: group.map((i) => i.customId) },
          group,
          deps,
        )
      )
        submitted++;
    }
  };
  const pending = deps.batches.requests(runId, round, ['pending', 'prepared']);
  for await (const records of inChunks(pending, deps.settings.chunk)) {
    // A chunk's requests are built and recorded (what each stands for) before any is submitted.
    const store = await withPreloaded(
      deps.store,
      records.map((record) => record.memoryId),
    );
    const out = new Outcomes(runId, deps);
    const built: { record: BatchRequestRecord; item: BatchItem }[] = [];
    const drafts: { record: BatchRequestRecord; pending: PendingStage }[] = [];
    for (const record of records) {
      const item = await prepare(record, { ...deps, store }, out);
      if (item === 'sync') sync++;
      else if (typeof item === 'string') continue;
      else if ('kind' in item) drafts.push({ record, pending: item });
      else built.push({ record, item });
    }
    await writeDrafts(drafts, { ...deps, store }, out);
    await out.write();
    for (const { record, item } of built) {
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
  }
  await submitFull(true);
  for (const [index, group] of resubmit) {
    const batch = existing.find((b) => b.index === index)!;
    if (group.length === 0) {
      await deps.batches.updateBatch({ runId, round, index }, { state: 'applied' });
      continue;
    }
    if (await submitBatch(batch, group, deps)) submitted++;
  }
  deps.logger?.info(
    { runId, round, batches: submitted, sync },
    `run ${runId} round ${round}: ${submitted} batches submitted, ${sync} memories sent the sync way`,
  );
  await enqueueBatchPoll(deps.queues, { runId, round, poll: 0, resume }, deps.settings.pollMs);
  return { submitted, sync };
}

/** Requests per batch: BATCH_MAX_REQUESTS under the provider's limit (0 = the provider's). */
function batchSize(deps: BatchDeps): number {
  const { maxRequests } = deps.settings;
  return maxRequests > 0 ? Math.min(maxRequests, deps.model.maxRequests) : deps.model.maxRequests;
}

/**
 * Records the batch before calling the provider, then its id once accepted. A crash between the
 * two leaves a record without an id, which the next attempt resolves (processBatchSubmit). Between
 * the two, requests `memfade forget` erased are left out: nothing of a forgotten memory is sent
 * after the forget (docs/design.md invariant 8); one erased after this look is in the record's
 * custom ids, where forget finds the batch.
 */
async function submitBatch(
  key: Pick<BatchRecord, 'runId' | 'round' | 'index' | 'customIds'>,
  items: BatchItem[],
  deps: BatchDeps,
): Promise<boolean> {
  const record = await deps.batches.openBatch(key, wallClock());
  if (record.batchId) return true;
  const erased = await deps.batches.erasedAmong(items.map((i) => i.customId));
  const sent = items.filter((i) => !erased.has(i.customId));
  if (sent.length === 0) {
    await deps.batches.updateBatch(key, { state: 'applied', customIds: [] });
    return false;
  }
  const { batchId } = await deps.model.submit(sent, { runId: key.runId, round: key.round });
  await accepted({ ...record, customIds: sent.map((i) => i.customId) }, batchId, deps);
  return true;
}

async function accepted(batch: BatchRecord, batchId: string, deps: BatchDeps): Promise<void> {
  const { runId } = batch;
  const stored = await deps.batches.accepted(batch, {
    batchId,
    submittedAt: wallClock(),
    customIds: batch.customIds,
  });
  await deps.batches.markSubmitted(batch.customIds, batchId);
  await deps.tracker.batchCounted(runId, { submitted: 1 });
  // `memfade forget` came while the create call was in flight and marked the batch: its erased
  // requests' text is at the provider now, so the batch goes the way forget sends any batch.
  if (stored?.eraseFiles && (await deps.batches.erasedAmong(batch.customIds)).size > 0) {
    const outcome = await eraseBatch({ ...stored, batchId }, deps.model, deps.batches);
    deps.logger?.info(
      { runId, batchId, outcome: outcome.kind },
      `batch ${batchId}: forgotten while it was submitted: ${outcome.what.join('; ')}`,
    );
  }
}

/**
 * Builds one record's request (its record's update in `out`), or settles the record when its memory
 * goes another way, or gives V2 from its draft, to write with the chunk's (batch-drafts.ts).
 */
async function prepare(
  record: BatchRequestRecord,
  deps: BatchDeps,
  out: Outcomes,
): Promise<BatchItem | PendingStage | 'sync' | 'settled'> {
  let prepared: Awaited<ReturnType<typeof prepareBatchStage>>;
  try {
    prepared = await prepareBatchStage(record.memoryId, record.target, deps);
  } catch (error) {
    if (!(error instanceof BadInputError)) throw error;
    await fail(record, 'input', errorMessage(error), deps, out);
    return 'settled';
  }
  if (prepared.kind === 'noop') {
    const carried = record.carried ?? [];
    out.end(record, 'noop', { outcome: carried.length ? 'completed' : 'noop', transitions: carried });
    return 'settled';
  }
  if (prepared.kind === 'sync') {
    await toSync(record, deps, out);
    return 'sync';
  }
  if (prepared.kind === 'write') return prepared;
  const { request, stage, expectedStage, expectedRev, inputHash } = prepared;
  // Past the night's budget no request is added: the memory stays due for the next night. Its
  // line is reserved at batch prices, the retry and repair it may need at sync prices.
  const { budget } = deps;
  const reserved =
    budget && reservationOf(deps.model.ceilings(stage, request), budget.price, { batchLine: true });
  if (budget && reserved && !(await budget.keeper.reserve(record.runId, reserved, record.memoryId))) {
    const carried = record.carried ?? [];
    out.end(record, 'deferred', { outcome: carried.length ? 'completed' : 'noop', transitions: carried });
    return 'settled';
  }
  out.move(record, ['pending', 'prepared'], {
    state: 'prepared',
    stage,
    expectedStage,
    expectedRev,
    inputHash,
    ...(reserved && { reserved }),
  });
  return { customId: record.customId, stage, request };
}
