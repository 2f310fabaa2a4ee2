import type { RunRepository } from '@memfade/db';
import type { AccountingClaims } from './accounting-claims.js';
import type { MemfadeQueues } from './queues.js';

/**
 * Finishes every run whose producer is done once the compress queue has nothing waiting,
 * delayed or active. A run normally finishes by its own counts (processed = enqueued), but when
 * two runs race for the same memory only one owns the job, and a crash between a job's work and
 * its accounting can leave a count short; an idle queue proves nothing of theirs is left.
 */
export async function finishIdleRuns(
  queues: MemfadeQueues,
  runs: RunRepository,
  claims?: AccountingClaims,
): Promise<string[]> {
  const open = await runs.listUnfinished();
  if (open.length === 0) return [];
  const counts = await queues.compress.getJobCounts(
    'waiting',
    'active',
    'delayed',
    'prioritized',
    'waiting-children',
  );
  if (Object.values(counts).some((n) => n > 0)) return [];
  // The nightly (producer) queue may hold a run that is about to enqueue: those runs have no
  // producerDoneAt yet, so they are not in `open`.
  const finished: string[] = [];
  for (const run of open) {
    if (!(await runs.finish(run.runId))) continue;
    await claims?.release(run.runId);
    finished.push(run.runId);
  }
  return finished;
}
