import type { Trigger } from '@memfade/core';
import type { RunRecord, RunRepository } from '@memfade/db';
import type { Selection } from '@memfade/queue';
import { enqueueNightlyRun, type MemfadeQueues } from '@memfade/queue';
import type { RunTracker } from '../runs/run-tracker.js';

/** What starting a run and waiting for it need: the queues and the runs' records and tracker. */
export interface RunControl {
  queues: MemfadeQueues;
  runs: RunRepository;
  tracker: RunTracker;
  now: () => Date;
}

export interface RunRequest {
  runId?: string;
  trigger: Trigger;
  asOf?: Date;
  selection?: Selection;
}

/** Enqueues a run through the same path as the schedule; returns its id. */
export async function enqueueRun(services: RunControl, request: RunRequest): Promise<string> {
  const asOf = request.asOf ?? services.now();
  const runId = request.runId ?? `${request.trigger}-${asOf.toISOString().replace(/[:.]/g, '-')}`;
  await enqueueNightlyRun(services.queues, {
    runId,
    trigger: request.trigger,
    asOf: asOf.toISOString(),
    selection: request.selection ?? {},
  });
  return runId;
}

/** waitForRun's timeout passed before the run finished; the run itself goes on. */
export class RunWaitTimeout extends Error {
  constructor(
    readonly runId: string,
    readonly timeoutMs: number,
  ) {
    super(`run ${runId} has not finished after ${timeoutMs} ms; it goes on in the workers`);
  }
}

/**
 * The run has no record and never will: its nightly job is gone from the queue (Redis lost its data
 * before a producer took it), or it failed for good before it could write the record (`reason`:
 * MongoDB away through every attempt). Nothing of it was done; its memories are due again at the
 * next run.
 */
export class RunNeverStarted extends Error {
  constructor(
    readonly runId: string,
    readonly reason?: string,
  ) {
    const why = reason
      ? `its producer failed for good (${reason})`
      : 'its job is gone from the queue (Redis lost its data?)';
    super(`run ${runId} never started: ${why}; its memories are due again at the next run`);
  }
}

/**
 * Waits until the run has finished (every job it enqueued completed or failed for good), calling
 * onProgress with the run record as it goes. No time limit unless timeoutMs is given: a real night
 * can take hours. It reads and writes only MongoDB and the queues; the workers' vector sync writes
 * what the run changed.
 */
export async function waitForRun(
  services: RunControl,
  runId: string,
  options: { timeoutMs?: number; pollMs?: number; onProgress?: (run: RunRecord) => void } = {},
): Promise<RunRecord> {
  const deadline =
    options.timeoutMs === undefined ? Number.POSITIVE_INFINITY : Date.now() + options.timeoutMs;
  for (;;) {
    const run = await services.runs.get(runId);
    if (!run) {
      const start = await runStart(services, runId);
      if (start.kind === 'never-started') throw new RunNeverStarted(runId, start.reason);
    }
    if (run) options.onProgress?.(run);
    // Also for a run whose producer has not said it is done: the sweep finishes it if its producer died.
    if (run && !run.finishedAt) await services.tracker.sweep();
    if (run?.finishedAt) return run;
    if (Date.now() > deadline) throw new RunWaitTimeout(runId, options.timeoutMs!);
    await new Promise((resolve) => setTimeout(resolve, options.pollMs ?? 200));
  }
}

/**
 * Where a run stands before its record: `waiting` while its nightly job waits in the queue, a
 * producer has it or it waits to be retried; `never-started` once the job is gone or failed for good
 * (`reason`) and still no record exists (read again after the job: a producer creates the record
 * before its job ends); `started` once the record exists.
 */
export async function runStart(
  services: Pick<RunControl, 'queues' | 'runs'>,
  runId: string,
): Promise<{ kind: 'started' | 'waiting' } | { kind: 'never-started'; reason?: string }> {
  const job = await services.queues.nightly.getJob(runId);
  const failed = job && (await job.isFailed());
  if (await services.runs.get(runId)) return { kind: 'started' };
  if (job && !failed) return { kind: 'waiting' };
  return { kind: 'never-started', ...(job?.failedReason && { reason: job.failedReason }) };
}
