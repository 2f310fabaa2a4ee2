import { type BatchEraser, errorMessage } from '@memfade/core';
import type { BatchRecord, BatchRepository } from '@memfade/db';
import { paidOf } from '../runs/outcome.js';
import type { RunTracker } from '../runs/run-tracker.js';
import { BATCH_PLACES, type ReceiptEntry } from './receipt.js';

/**
 * Batch mode's share of `memfade forget` (docs/design.md invariant 8): the memories' requests still in
 * flight are erased (a poll never applies their results; their lines are counted as paid and read
 * no further), and the provider's copies of every batch that held one of them are deleted: at once
 * when the batch's results are applied, else when they are (the poll deletes a batch marked
 * `eraseFiles`); a batch left with nothing but erased requests is canceled first.
 */
export interface BatchErasureDeps {
  batches: BatchRepository;
  /** Counts what erased requests' earlier rounds spent, when no line of theirs will come. */
  tracker: Pick<RunTracker, 'spent'>;
  /**
   * The provider's batch API (look, cancel, delete), asked for only when a batch at the provider
   * holds the memories: so forget needs the provider's key only then. Undefined for a provider
   * without batches (offline): earlier batches are then not reached, and the receipt says so.
   */
  model: () => BatchEraser | undefined;
}

export async function eraseFromBatches(memoryIds: string[], deps: BatchErasureDeps): Promise<ReceiptEntry[]> {
  const { erased, unsubmitted } = await deps.batches.eraseRequests(memoryIds);
  // A V1 a batch round applied before the memory's V2 request was erased was paid for: counted.
  for (const record of unsubmitted) await deps.tracker.spent(record.runId, paidOf(record));
  const requests: ReceiptEntry = {
    place: BATCH_PLACES.requests,
    status: 'clean',
    detail: erased
      ? `${erased} erased: their results are never applied (a line already paid for is counted, not read)`
      : 'none in flight',
  };
  const holding = (await deps.batches.batchesHolding(memoryIds)).filter(
    (b) => !b.filesDeletedAt && (b.batchId || b.state === 'submitting'),
  );
  const runs = await deps.batches.runsRequesting(memoryIds);
  if (!holding.length && !runs.length)
    return [requests, { place: BATCH_PLACES.files, status: 'clean', detail: 'none held at the provider' }];
  let model: BatchEraser | undefined;
  try {
    model = deps.model();
  } catch (error) {
    // A batch holds the memories and the provider's key is not set here: said, not hidden.
    return [
      requests,
      { place: BATCH_PLACES.files, status: 'failed', detail: `not checked: ${errorMessage(error)}` },
    ];
  }
  if (!model)
    return [
      requests,
      {
        place: BATCH_PLACES.files,
        status: 'left',
        detail: `${holding.length} batches at the provider may still hold the memories' text, and batch mode is off here: run forget where MODEL_MODE=batch`,
      },
    ];
  const outcomes = await Promise.all(
    holding.map((batch) =>
      batch.batchId ? eraseBatch(batch, model, deps.batches) : eraseSubmitting(batch, model, deps.batches),
    ),
  );
  // Uploads of a submit that died before its batch was created: no batch record names them.
  if (runs.length) outcomes.push(await eraseOrphans(runs, model));
  const count = (kind: BatchOutcome['kind']) => outcomes.filter((o) => o.kind === kind);
  const failed = count('failed');
  const pending = count('pending');
  const removed = count('removed').flatMap((o) => o.what);
  const parts = [
    ...(removed.length ? [`removed ${removed.join(', ')}`] : []),
    ...(pending.length ? [`${pending.length} batches still open: ${pending[0]!.what[0]}`] : []),
    ...(failed.length ? [`${failed.length} could not be deleted: ${failed[0]!.what[0]}`] : []),
  ];
  return [
    requests,
    {
      place: BATCH_PLACES.files,
      status: failed.length ? 'failed' : pending.length ? 'pending' : 'clean',
      detail: parts.join('; ') || 'none held at the provider',
      ...(removed.length && {
        kept: 'what the provider keeps of deleted files and batches is its own (its data retention policy)',
      }),
    },
  ];
}

type BatchOutcome = { kind: 'removed' | 'pending' | 'failed' | 'none'; what: string[] };

/**
 * A batch recorded as being submitted, without a provider id: its create call is in flight, or
 * died with its worker. Whether the provider holds it is unknown, so it is never reported clean
 * (docs/design.md invariant 8): it is marked, and whoever records its id (the submit when the call
 * returns, or the next attempt that finds it) deletes or cancels it as below; a later forget finds
 * it by its requests. If the id was recorded before the mark, it is erased here at once.
 */
async function eraseSubmitting(
  batch: BatchRecord,
  model: BatchEraser,
  batches: BatchRepository,
): Promise<BatchOutcome> {
  try {
    const marked = await batches.markForErasure(batch);
    if (marked?.batchId) return eraseBatch(marked, model, batches);
    return {
      kind: 'pending',
      what: [
        `batch ${batch.index} of run ${batch.runId} round ${batch.round} is being submitted (unknown whether the provider holds it); it is deleted or canceled once its id is recorded`,
      ],
    };
  } catch (error) {
    return { kind: 'failed', what: [`the batch being submitted: ${errorMessage(error)}`] };
  }
}

async function eraseOrphans(runIds: string[], model: BatchEraser): Promise<BatchOutcome> {
  try {
    const removed = await model.deleteOrphanFiles(runIds);
    return { kind: removed.length ? 'removed' : 'none', what: removed };
  } catch (error) {
    return { kind: 'failed', what: [`the runs' uploads: ${errorMessage(error)}`] };
  }
}

/** Deletes a batch's copies at the provider, cancels it, or marks it for the poll to delete (above). */
export async function eraseBatch(
  batch: BatchRecord,
  model: BatchEraser,
  batches: BatchRepository,
): Promise<BatchOutcome> {
  const batchId = batch.batchId!;
  try {
    if (batch.state !== 'applied') {
      // Results other memories still wait for: the files go once the poll has applied them.
      if ((await batches.waitingIn(batchId)) > 0) {
        await batches.updateBatch(batch, { eraseFiles: true });
        return {
          kind: 'pending',
          what: [`${batchId} in progress; its files are deleted once its results are applied`],
        };
      }
      // Nothing but erased requests left in it: not worth finishing.
      if (!(await model.status(batchId)).ended) {
        await batches.updateBatch(batch, { eraseFiles: true });
        await model.cancel(batchId);
        return { kind: 'pending', what: [`${batchId} canceled; its files are deleted once it has ended`] };
      }
    }
    const deletion = await model.deleteBatch(batchId);
    if (deletion.pending) return { kind: 'pending', what: [`${batchId}: ${deletion.pending}`] };
    await batches.updateBatch(batch, { filesDeletedAt: new Date(), filesDeleted: deletion.removed });
    return { kind: 'removed', what: deletion.removed.length ? deletion.removed : [`batch ${batchId}`] };
  } catch (error) {
    return { kind: 'failed', what: [`${batchId}: ${errorMessage(error)}`] };
  }
}
