import type { MemoryHolds, RunCounts, RunRepository, RunState } from '@memfade/db';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { FleetMetrics } from './metrics.js';
import { settle, settleInterrupted } from './settle.js';

/**
 * A run's end, once the run tracker has decided it came (run-tracker.ts): its counts settled from
 * its memories, the record marked finished, its users' costs, its Redis keys dropped, its holds
 * released and the line the on-call engineer reads. Also a finished run settled again after a
 * memory of it ended late.
 */

/** What a run's end touches: the run tracker's dependencies (RunTrackerDeps) hold these. */
export interface RunBooks {
  runs: RunRepository;
  redis: Redis;
  prefix: string;
  /** Released when a run finishes: the memories its requests held (docs/design.md invariant 9). */
  holds?: Pick<MemoryHolds, 'release' | 'count' | 'releaseFinished'>;
  /** The fleet's counters: each memory's end and paid call is recorded there as the run counts it. */
  metrics?: Pick<FleetMetrics, 'memoryCounted' | 'spent' | 'usersCost'>;
  logger?: Logger;
}

/** Long enough for any run to finish; dropped when the run finishes. */
export const RUN_KEYS_TTL_S = 3 * 24 * 60 * 60;

/** One of the two Redis keys of an open run (RunTracker says what each holds). */
export const runKey = (prefix: string, kind: 'accounted' | 'open', runId: string): string =>
  `${prefix}:${kind}:${runId}`;

/** The fleet's counters are best effort (the run's books are the record): a failure is logged. */
export const metricsFailed =
  (logger: Logger | undefined) =>
  (err: unknown): void => {
    logger?.warn({ err }, 'metrics not recorded');
  };

/** Every memory the producer enqueued has its end counted, and nobody has finished the run yet. */
export function isComplete(run: RunState): boolean {
  return Boolean(run.producerDoneAt) && !run.finishedAt && run.counts.processed >= run.counts.enqueued;
}

/**
 * Settles the run's counts from its memories and marks it finished, once; `givenUp` batch
 * requests never got an outcome (their memories are unprocessed). Then the memories the run held
 * are released: every request of it has an outcome now.
 */
export async function finishRun(
  books: RunBooks,
  runId: string,
  by: 'counted' | 'idle',
  givenUp = 0,
): Promise<boolean> {
  const run = await books.runs.state(runId);
  if (!run || run.finishedAt) return false;
  const lostByRedis = by === 'idle' && (await books.redis.exists(runKey(books.prefix, 'open', runId))) === 0;
  const memories = await books.runs.countsFromMemories(runId);
  const counts = settle(run.counts, memories, { lostByRedis, givenUp });
  const interrupted = (counts.unprocessed ?? 0) > 0;
  const released = await close(books, runId, counts, { startedAt: run.startedAt, interrupted });
  if (released === undefined) return false;
  await logFinished(books, runId);
  return true;
}

/**
 * Finishes `interrupted` a run whose producer died (`death`: why) before it was done, once: every
 * memory the run took a hold on was its to process, so those without an outcome are unprocessed.
 * Its holds are released, so no memory waits on a dead run (docs/design.md invariant 12).
 */
export async function finishInterrupted(
  books: RunBooks,
  runId: string,
  run: RunState,
  death: string,
): Promise<boolean> {
  const held = (await books.holds?.count(runId)) ?? 0;
  const memories = await books.runs.countsFromMemories(runId);
  const counts = settleInterrupted(
    { ...run.counts, enqueued: Math.max(held, run.counts.enqueued) },
    memories,
  );
  const released = await close(
    books,
    runId,
    { ...counts, enqueued: Math.max(held, run.counts.enqueued) },
    { startedAt: run.startedAt, interrupted: true, producerDied: death },
  );
  if (released === undefined) return false;
  books.logger?.error(
    { runId, released, unprocessed: counts.unprocessed },
    `run ${runId} finished interrupted: its producer died (${death}); ${released} memories it held are released and due again at the next run`,
  );
  return true;
}

/**
 * A memory of a finished run ended late (retry-failed put its job back, or the job outlived a Redis
 * data loss). An interrupted run keeps the memories that got no outcome as unprocessed: only a
 * memory the late end advanced moves out of it, never a memory without an outcome into `noop`.
 */
export async function resettleRun(books: RunBooks, runId: string): Promise<void> {
  const run = await books.runs.state(runId);
  if (!run?.finishedAt) return;
  const memories = await books.runs.countsFromMemories(runId);
  const counts = run.interrupted
    ? settleInterrupted(run.counts, memories)
    : settle(run.counts, memories, { lostByRedis: false, givenUp: 0 });
  await books.runs.updateCounts(runId, counts);
  await books.runs.userCosts.recordTop(runId);
}

/**
 * Marks the run finished with its counts, once: then each user's cost goes in the fleet's
 * histogram (docs/design.md §3; the record has its topUsers), the run's keys are dropped and its
 * holds released. The number of memories released, or undefined when another call finished it.
 */
async function close(
  books: RunBooks,
  runId: string,
  counts: Partial<RunCounts>,
  finished: Parameters<RunRepository['markFinished']>[2],
): Promise<number | undefined> {
  const ledger = await books.runs.userCosts.recordTop(runId);
  const marked = await books.runs.markFinished(runId, counts, finished);
  if (!marked) return undefined;
  await books.metrics?.usersCost(ledger.map((u) => u.cost)).catch(metricsFailed(books.logger));
  await books.redis.del(runKey(books.prefix, 'accounted', runId), runKey(books.prefix, 'open', runId));
  return (await books.holds?.release(runId)) ?? 0;
}

/**
 * The line an on-call engineer looks for the morning after: which run finished, with its
 * settled counts and duration; a warning when it was interrupted.
 */
async function logFinished(books: RunBooks, runId: string): Promise<void> {
  const { logger } = books;
  const run = logger && (await books.runs.get(runId));
  if (!logger || !run) return;
  const { counts, durationMs, trigger } = run;
  const fields = { runId, trigger, counts, durationMs, errors: run.errors.length };
  if (run.interrupted)
    logger.warn(
      fields,
      `run ${runId} finished interrupted: ${counts.unprocessed} of ${counts.enqueued} memories got no outcome (Redis lost their jobs, or their batch requests were given up); they stay due for the next run`,
    );
  else
    logger.info(
      fields,
      `run ${runId} finished: ${counts.processed} of ${counts.enqueued} memories, ${counts.failed} failed`,
    );
}
