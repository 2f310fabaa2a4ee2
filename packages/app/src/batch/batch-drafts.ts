import {
  type AppliedTransition,
  type BatchApplyOutcome,
  draftAfterV1,
  draftOfWrittenV1,
  type PendingStage,
  RETENTION_REASON,
  type Usage,
  writeBatchStages,
} from '@memfade/core';
import type { BatchRequestRecord, TransitionCount } from '@memfade/db';
import { type BatchDeps, type Outcomes, toSync } from './batch-requests.js';

/**
 * V2 from the V2 draft in batch mode (V2_DRAFT=with-v1, docs/design.md §4): a draft becomes V2
 * without a model call, so it is written from the read that already has the memory in hand (the
 * round's apply for a memory due for both stages, the submit for one due for V2), never handed to
 * a compress job that would read the memory once more.
 */

/** A written stage as its run counts it: `usage` and `cost` are what its call was billed. */
export function transitionCount(t: AppliedTransition, usage: Usage, cost: number): TransitionCount {
  return {
    stage: t.stage,
    skipped: t.skipped,
    usage,
    ratio: t.ratio,
    cost,
    // Written with the retention gate's warning (RETENTION_GATE=warn): counted on the run.
    ...(t.warnings.some((w) => w.startsWith(RETENTION_REASON)) && { retentionWarned: true }),
  };
}

/** A V2 from its draft: its tokens were paid for with V1's call. */
const fromDraft = (t: AppliedTransition) => transitionCount(t, t.usage, 0);

/**
 * After a chunk's V1 writes: V2 from the draft of each V1 written for a memory due for V2 as well,
 * planned on the memory as V1's write left it and written together (each write as conditional as
 * any stage's). What each came to, by index in `v1s`; a memory absent has its V2 in the next round.
 */
export async function draftsAfterV1(
  v1s: { record: BatchRequestRecord; pending: PendingStage }[],
  written: BatchApplyOutcome[],
  runId: string,
  deps: BatchDeps,
): Promise<Map<number, BatchApplyOutcome>> {
  const drafts: { index: number; pending: PendingStage }[] = [];
  for (const [index, { record, pending }] of v1s.entries()) {
    if (record.target !== 'v2' || written[index]?.kind !== 'applied') continue;
    const v2 = await draftAfterV1(pending, runId, deps);
    if (v2) drafts.push({ index, pending: v2 });
  }
  const outcomes = await writeBatchStages(
    drafts.map((d) => d.pending),
    runId,
    deps,
  );
  const byIndex = new Map(drafts.map((d, k) => [d.index, outcomes[k]!]));
  // A V2 write refused because another poller of the same results moved the memory on: V2 as
  // that poller wrote it, so both settle the request alike (draftOfWrittenV1).
  for (const [index, outcome] of byIndex)
    if (outcome.kind !== 'applied') {
      const again = await draftOfWrittenV1(v1s[index]!.record.memoryId, runId, deps);
      if (again) byIndex.set(index, again);
    }
  return byIndex;
}

/**
 * The V2 written from V1's draft, to count with V1: written now (`after`, draftsAfterV1), or found
 * written by this run with V1 (`v1`: a poll again after a crash between the writes and the counts).
 */
export function withDraft(
  after: BatchApplyOutcome | undefined,
  deps: BatchDeps,
  v1?: BatchApplyOutcome,
): TransitionCount[] {
  const v2 = after?.kind === 'applied' ? after.transition : v1?.kind === 'applied' ? v1.draft : undefined;
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
    const v2 = withDraft(outcomes[i], deps);
    if (v2.length === 0) await toSync(record, deps, out);
    else
      out.end(record, 'applied', { outcome: 'completed', transitions: [...(record.carried ?? []), ...v2] });
  }
}
