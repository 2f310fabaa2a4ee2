import type { Operations, RunRecord } from '@memfade/app';
import { RunNeverStarted, RunWaitTimeout, waitForRun } from '@memfade/app';
import { progressBar } from './progress-bar.js';
import { printRunSummary } from './run-output.js';

/** The progress line of a nightly run or backfill, from its run record. */
export function progressReporter(stream: NodeJS.WriteStream = process.stderr): {
  update(run: RunRecord): void;
  done(): void;
} {
  const bar = progressBar(stream);
  return {
    update: (run) =>
      bar.update({
        done: run.counts.processed,
        total: run.counts.enqueued,
        failed: run.counts.failed,
        finished: Boolean(run.producerDoneAt),
      }),
    done: bar.done,
  };
}

/** A warning for the operator, on stderr so piped output stays clean. */
export function warn(message: string): void {
  process.stderr.write(`memfade: warning: ${message}\n`);
}

/**
 * Warns when no worker consumes the queues: the run would wait, silently, until one starts.
 * BullMQ's workers name their Redis connections after their queue, which getWorkersCount reads.
 */
export async function warnWithoutWorkers(operations: Operations): Promise<void> {
  const counts = await Promise.all([
    operations.queues.nightly.getWorkersCount(),
    operations.queues.compress.getWorkersCount(),
  ]).catch(() => undefined); // a Redis that forbids CLIENT LIST (some managed ones): no warning, no failure
  if (!counts) return;
  const [nightly, compress] = counts;
  if (nightly === 0 || compress === 0)
    warn(
      `no worker is connected to the ${nightly === 0 ? 'nightly' : 'compress'} queue (prefix ` +
        `${operations.config.queuePrefix}): the run waits until a worker (memfade-worker) starts`,
    );
}

/** Exit code of a waited run that processed none of the memories that were due (README "Exit codes"). */
export const EXIT_NOTHING_PROCESSED = 5;

/**
 * Why a finished run processed nothing while memories were due, from its record; undefined when
 * it processed something or nothing was due. Every due memory went elsewhere: held back by a failed
 * job still kept, left to another run holding it, in another run's job, past RUN_MAX_MEMORIES, or
 * left due by the night's budget or their users' cap (its jobs ended without a model call).
 */
export function nothingProcessed(run: RunRecord): string | undefined {
  const c = run.counts;
  const overBudget = run.budget?.overBudget ?? 0;
  const overUserBudget = run.userBudget?.overBudget ?? 0;
  // Jobs the budget (or their user's cap) ended before their model call count as processed, but nothing ran in them.
  if (c.selected === 0 || c.processed > overBudget + overUserBudget || c.v1 + c.v2 > 0) return undefined;
  const heldBack = c.heldBack ?? 0;
  const inOtherRuns = c.inOtherRuns ?? 0;
  const deferred = c.deferred ?? 0;
  // Due memories whose job another run had added (waiting, running or ended): BullMQ keeps one.
  const otherJobs = Math.max(0, c.selected - c.enqueued - heldBack - inOtherRuns - deferred);
  const reasons = [
    heldBack && `${heldBack} held back by failed jobs still kept (memfade retry-failed puts them back)`,
    inOtherRuns && `${inOtherRuns} held by another open run with requests in flight`,
    otherJobs && `${otherJobs} already in another run's jobs`,
    deferred && `${deferred} left for the next run (RUN_MAX_MEMORIES)`,
    overBudget && `${overBudget} left due: the night's budget was reached (NIGHT_BUDGET_*)`,
    overUserBudget && `${overUserBudget} left due: their users' cap was reached (USER_NIGHT_BUDGET_USD)`,
  ].filter(Boolean);
  return (
    `run ${run.runId} processed nothing: ${c.selected} memories were due, none ran in it` +
    (reasons.length ? `: ${reasons.join(', ')}` : '')
  );
}

/**
 * `--wait` of run-now and backfill: progress on stderr until the run has finished, then its
 * summary (or JSON) on stdout. Exit code: 0; 1 if any memory failed; 3 if timeoutMs passed first;
 * 4 if the run was interrupted or never started (its job lost with Redis's data); 5 if memories were due and the run processed none of them (a cron
 * wrapper must not read a night that did nothing as a success).
 */
export async function waitWithProgress(
  operations: Operations,
  runId: string,
  options: { json: boolean; timeoutMs?: number },
): Promise<number> {
  await warnWithoutWorkers(operations);
  const progress = progressReporter();
  let run: RunRecord;
  try {
    run = await waitForRun(operations, runId, { timeoutMs: options.timeoutMs, onProgress: progress.update });
  } catch (error) {
    progress.done();
    // Nothing of it was done and its memories are due again: as an interrupted run, 4.
    if (error instanceof RunNeverStarted) {
      console.error(`memfade: ${error.message}`);
      return 4;
    }
    if (!(error instanceof RunWaitTimeout)) throw error;
    console.error(`memfade: ${error.message} (memfade status shows it)`);
    return 3;
  }
  progress.done();
  if (options.json) console.log(JSON.stringify(run));
  else printRunSummary(run);
  // 4: memories of the run got no outcome (README "Exit codes"); 1: some failed.
  if (run.interrupted) return 4;
  if (run.counts.failed > 0) return 1;
  const idle = nothingProcessed(run);
  if (idle) {
    console.error(`memfade: ${idle}`);
    return EXIT_NOTHING_PROCESSED;
  }
  return 0;
}
