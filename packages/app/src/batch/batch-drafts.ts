import { type AppliedTransition, type PendingStage, writeBatchStages } from '@memfade/core';
import type { BatchRequestRecord, TransitionCount } from '@memfade/db';
import { countedTransition } from '../runs/outcome.js';
import { type BatchDeps, type Outcomes, toSync } from './batch-requests.js';

/**
 * V2 from the V2 draft in batch mode (V2_DRAFT=with-v1, docs/design.md §4): a draft becomes V2
 * without a model call, so it is written from the read that already has the memory in hand: the
 * submit of the round that finds it due for V2 (a memory due for both stages gets V1 in one round
 * and V2 from its draft in the next round's submit), never handed to a compress job that would
 * read the memory once more.
 */

/** A V2 from its draft: its tokens were paid for with V1's call. */
const fromDraft = (t: AppliedTransition) => countedTransition(t, t.usage, 0);

/**
 * The V2 written from a V1's draft, counted with V1: written by the submit, or found written by
 * this run with V1 (a poll again after the next round's submit wrote it).
 */
export function withDraft(v2: AppliedTransition | undefined, deps: BatchDeps): TransitionCount[] {
  if (!v2) return [];
  deps.onTransition?.();
  return [fromDraft(v2)];
}

/**
 * The submit's drafts (prepareBatchStage: a memory at V1 whose draft can be V2), written together;
 * each record settled as applied, or, when its write was refused, handed to the sync path, which
 * does what is due from the memory as it then is.
 */
export async function writeDrafts(
  drafts: { record: BatchRequestRecord; pending: PendingStage }[],
  deps: BatchDeps,
  out: Outcomes,
): Promise<void> {
  if (drafts.length === 0) return;
  const runId = drafts[0]!.record.runId;
  const outcomes = await writeBatchStages(
    drafts.map((d) => d.pending),
    runId,
    deps,
  );
  for (const [i, { record }] of drafts.entries()) {
    const written = outcomes[i];
    const v2 = withDraft(written?.kind === 'applied' ? written.transition : undefined, deps);
    if (v2.length === 0) await toSync(record, deps, out);
    else
      out.end(record, 'applied', { outcome: 'completed', transitions: [...(record.carried ?? []), ...v2] });
  }
}
