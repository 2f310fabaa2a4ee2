import type { MemoryCounts, RunCounts } from '@memfade/db';

/**
 * A run's final counts. The stage counts come from the memories (each history entry names its
 * run), so they are exact even after a crash between a stage write and its counting, or a memory
 * counted twice. `failed` is the memories that still carry the error this run recorded.
 * When Redis lost the run's jobs (`lostByRedis`), the memories whose jobs never ended are
 * `unprocessed`: processed is what the memories and the live no-op count account for, not `enqueued`.
 */
export function settle(
  live: RunCounts,
  memories: MemoryCounts,
  lost: { lostByRedis: boolean; givenUp: number },
): SettledCounts {
  const failedOnly = memories.failed - memories.failedAndAdvanced;
  const accounted = memories.advanced + failedOnly;
  const processed = lost.lostByRedis
    ? Math.min(live.enqueued, accounted + live.noop)
    : Math.max(0, live.enqueued - lost.givenUp);
  return {
    processed,
    v1: memories.v1,
    v2: memories.v2,
    skipped: memories.skipped,
    noop: Math.max(0, processed - accounted),
    failed: memories.failed,
    unprocessed: live.enqueued - processed,
  };
}

type SettledCounts = Pick<
  RunCounts,
  'processed' | 'v1' | 'v2' | 'skipped' | 'noop' | 'failed' | 'unprocessed'
>;

/**
 * An interrupted run's counts again after a memory of it ended late: its no-ops stay as settled
 * (an end counted after the finish is not added to them), its memories are read again, and
 * whatever is neither stays unprocessed.
 */
export function settleInterrupted(finished: RunCounts, memories: MemoryCounts): SettledCounts {
  const failedOnly = memories.failed - memories.failedAndAdvanced;
  const accounted = memories.advanced + failedOnly;
  const processed = Math.min(finished.enqueued, accounted + finished.noop);
  return {
    processed,
    v1: memories.v1,
    v2: memories.v2,
    skipped: memories.skipped,
    noop: finished.noop,
    failed: memories.failed,
    unprocessed: finished.enqueued - processed,
  };
}
