import type { RunRepository } from '@memfade/db';
import type { Logger } from 'pino';
import type { AccountingClaims } from './accounting-claims.js';
import type { MemfadeQueues } from './queues.js';

/**
 * The line an on-call engineer looks for the morning after: which run finished, with its settled
 * counts and duration. Called by whoever finished the run (its last job, its producer, or the idle
 * check), once, since finishing succeeds once.
 */
export async function logRunFinished(runs: RunRepository, runId: string, logger?: Logger): Promise<void> {
  if (!logger) return;
  const run = await runs.get(runId);
  if (!run) return;
  const { counts, durationMs, trigger } = run;
  logger.info(
    { runId, trigger, counts, durationMs, errors: run.errors.length },
    `run ${runId} finished: ${counts.processed} of ${counts.enqueued} jobs, ${counts.failed} failed`,
  );
}

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
  logger?: Logger,
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
    await logRunFinished(runs, run.runId, logger);
    finished.push(run.runId);
  }
  return finished;
}
