import {
  BadInputError,
  type Compressor,
  compressMemory,
  costOf,
  errorMessage,
  InvalidModelOutputError,
  type MemoryStore,
  PermanentModelError,
  type PipelineOutcome,
  type PriceTable,
  RateLimitedError,
  type StagePolicy,
} from '@memfade/core';
import type { RunRepository } from '@memfade/db';
import { type Job, UnrecoverableError, Worker } from 'bullmq';
import { type CompressPayload, QUEUES } from '../registry.js';

export interface CompressDeps {
  store: MemoryStore;
  compressor: Compressor;
  runs: RunRepository;
  policy: StagePolicy;
  now: () => Date;
  /** Turns recorded token usage into cost (US dollars per million tokens, per model). */
  prices?: PriceTable;
  /** Called after a transition was written, so the vector outbox is flushed soon. */
  onTransition?: () => void;
}

/** What the processor may ask of the worker running it. */
export interface WorkerControls {
  /** Pauses the whole worker (every job of this queue) for ms: the provider said to slow down. */
  rateLimit(ms: number): Promise<void>;
}

/** One memory: the pipeline, then the run's accounting. Failures that retrying cannot fix are unrecoverable. */
export async function processCompress(
  job: Job<CompressPayload>,
  deps: CompressDeps,
  worker?: WorkerControls,
): Promise<PipelineOutcome> {
  const parsed = QUEUES.compress.payload.safeParse(job.data);
  if (!parsed.success)
    throw new UnrecoverableError(`invalid compress payload: ${parsed.error.issues[0]?.message}`);
  const { runId, memoryId, target } = parsed.data;
  let outcome: PipelineOutcome;
  try {
    outcome = await compressMemory(memoryId, target, runId, deps);
  } catch (error) {
    if (error instanceof RateLimitedError && worker) {
      // Back to the wait list without spending an attempt; the worker pauses as told (retry-after).
      await worker.rateLimit(error.retryAfterMs);
      throw Worker.RateLimitError();
    }
    const permanent =
      error instanceof BadInputError ||
      error instanceof InvalidModelOutputError ||
      error instanceof PermanentModelError;
    const attempts = job.attemptsMade + 1;
    const lastAttempt = permanent || attempts >= (job.opts.attempts ?? 1);
    if (lastAttempt) {
      const message = errorMessage(error);
      const stage = error instanceof BadInputError ? 'input' : target;
      await deps.store.recordError(memoryId, { stage, message, at: deps.now(), attempts });
      await deps.runs.recordMemoryDone(runId, 'failed', { memoryId, stage, message });
      await deps.runs.finishIfComplete(runId);
    }
    throw permanent ? new UnrecoverableError(errorMessage(error)) : error;
  }
  if (outcome.kind === 'advanced') {
    for (const t of outcome.transitions) {
      const cost = costOf(t.usage, deps.prices?.[t.model]);
      await deps.runs.recordTransition(runId, {
        stage: t.stage,
        skipped: t.skipped,
        usage: t.usage,
        ratio: t.ratio,
        cost,
      });
    }
    deps.onTransition?.();
  }
  await deps.runs.recordMemoryDone(runId, outcome.kind === 'noop' ? 'noop' : 'completed');
  await deps.runs.finishIfComplete(runId);
  return outcome;
}
