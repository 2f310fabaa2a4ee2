import {
  type AppliedTransition,
  type ModelFailureReason,
  RETENTION_REASON,
  type TargetStage,
  type Usage,
} from '@memfade/core';
import type { DiscardedCount, PaidItem, RunOutcome, TransitionCount } from '@memfade/db';
import { compressJobId } from '@memfade/queue';

/**
 * The outcome of a memory's work in a run, one module for the sync path (compress/compress.ts)
 * and batch mode (batch/): what the run tracker counts when a memory's work ends (docs/design.md
 * §3 and §6), how a written stage is counted, and the end of a memory whose work stops with
 * nothing more written.
 */

/** How a memory's work towards its target stage ended in a run, as the run counts it. */
export interface MemoryEnd {
  /** The target stage the run took the memory to. */
  target: TargetStage;
  /** The memory: its owner's ledger counts the end's amounts (docs/design.md §3). */
  memoryId: string;
  outcome: RunOutcome;
  /** The night's budget stopped the work before its model call (budget.ts): a no-op, or a V1 kept. */
  overBudget?: boolean;
  /** Why the model's reply failed the memory (refused, truncated, invalid), for a failed end. */
  reason?: ModelFailureReason;
  transitions?: TransitionCount[];
  discarded?: DiscardedCount[];
  error?: { memoryId: string; stage: string; message: string };
  /** The retention gate refused the memory's stage (counted on the run). */
  retentionRefused?: boolean;
}

/**
 * What a memory's end is counted under in its run, once whoever ends it: its memory and target,
 * the id its sync compress job has (a batch request handed to the sync path ends under it too).
 */
export const memoryKey = (end: Pick<MemoryEnd, 'memoryId' | 'target'>): string =>
  compressJobId(end.memoryId, end.target);

/** A written stage as its run counts it: `usage` and `cost` are what is counted with it here. */
export function countedTransition(t: AppliedTransition, usage: Usage, cost: number): TransitionCount {
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

/**
 * The end of a memory whose work stops here with nothing more written: `completed` with the stages
 * earlier attempts or rounds wrote (`carried`), `noop` without any.
 */
export const carriedEnd = (
  carried: TransitionCount[] | undefined,
): Pick<MemoryEnd, 'outcome' | 'transitions'> => ({
  outcome: carried?.length ? 'completed' : 'noop',
  transitions: carried,
});

/**
 * What a memory's work paid for in earlier rounds (its V1 applied, replies thrown away), by its
 * memory: counted on the run when the work gets no end (a batch request given up or erased), as
 * every paid line is (docs/design.md invariant 9).
 */
export const paidOf = (work: {
  memoryId: string;
  carried?: TransitionCount[];
  discarded?: DiscardedCount[];
}): PaidItem[] =>
  [...(work.carried ?? []), ...(work.discarded ?? [])].map((t) => ({ ...t, memoryId: work.memoryId }));
