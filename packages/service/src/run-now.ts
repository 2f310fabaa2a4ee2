import type { RunRecord } from '@memfade/db';
import { enqueueNightlyRun, type Selection, type Trigger } from '@memfade/queue';
import type { Operations, Services } from './services.js';

export interface RunRequest {
  runId?: string;
  trigger: Trigger;
  asOf?: Date;
  selection?: Selection;
}

/** Enqueues a run through the same path as the schedule; returns its id. */
export async function enqueueRun(services: Operations, request: RunRequest): Promise<string> {
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

/**
 * Waits until the run has finished (every job it enqueued completed or failed for good),
 * calling onProgress with the run record as it goes; then flushes the vector outbox.
 */
export async function waitForRun(
  services: Services,
  runId: string,
  options: { timeoutMs?: number; pollMs?: number; onProgress?: (run: RunRecord) => void } = {},
): Promise<RunRecord> {
  const deadline = Date.now() + (options.timeoutMs ?? 10 * 60_000);
  for (;;) {
    const run = await services.runs.get(runId);
    if (run) options.onProgress?.(run);
    if (run?.producerDoneAt && !run.finishedAt) await services.tracker.sweep();
    if (run?.finishedAt) {
      await services.vectorSync.drain();
      return run;
    }
    if (Date.now() > deadline) throw new Error(`run ${runId} did not finish within ${options.timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, options.pollMs ?? 200));
  }
}
