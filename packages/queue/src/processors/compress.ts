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
import type { Logger } from 'pino';
import type { AccountingClaims } from '../accounting-claims.js';
import { withJobTimeout } from '../job-timeout.js';
import { type CompressPayload, QUEUES } from '../registry.js';
import { logRunFinished } from '../run-completion.js';

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
  /** Counts each job in its run at most once; without it a job that runs again counts again. */
  claims?: AccountingClaims;
  /** Wall-clock limit of one job (JOB_TIMEOUT_MS); 0 or absent = none. */
  jobTimeoutMs?: number;
  /** Where the run's end is logged when this job was its last. */
  logger?: Logger;
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
  if (!parsed.success) throw await rejectPayload(job, parsed.error.issues[0], deps);
  const { runId, memoryId, target } = parsed.data;
  let outcome: PipelineOutcome;
  try {
    outcome = await withJobTimeout(
      deps.jobTimeoutMs ?? 0,
      `memory ${memoryId}: the ${target} job`,
      deps.store,
      (deadline) => compressMemory(memoryId, target, runId, { ...deps, ...deadline }),
    );
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
      if (await firstCount(job, runId, deps)) {
        await countJob(runId, { outcome: 'failed', error: { memoryId, stage, message } }, deps);
      }
    }
    throw permanent ? new UnrecoverableError(errorMessage(error)) : error;
  }
  if (outcome.kind === 'advanced') deps.onTransition?.();
  // A job that counted what it did and then ran again (its worker died before BullMQ heard) counts nothing.
  if (await firstCount(job, runId, deps)) {
    const transitions = outcome.kind === 'advanced' ? outcome.transitions : [];
    await countJob(
      runId,
      {
        outcome: outcome.kind === 'noop' ? 'noop' : 'completed',
        transitions: transitions.map((t) => ({
          stage: t.stage,
          skipped: t.skipped,
          usage: t.usage,
          ratio: t.ratio,
          cost: costOf(t.usage, deps.prices?.[t.model]),
        })),
      },
      deps,
    );
  }
  return outcome;
}

const firstCount = (job: Job, runId: string, deps: CompressDeps): Promise<boolean> =>
  deps.claims ? deps.claims.claim(runId, job.id ?? '') : Promise.resolve(true);

/** Counts the job in its run, and finishes the run when that was its last job. */
async function countJob(
  runId: string,
  job: Parameters<RunRepository['recordJob']>[1],
  deps: CompressDeps,
): Promise<void> {
  const { complete } = await deps.runs.recordJob(runId, job);
  if (complete && (await deps.runs.finish(runId))) {
    await deps.claims?.release(runId);
    await logRunFinished(deps.runs, runId, deps.logger);
  }
}

/**
 * A job whose payload breaks the schema was added around the typed enqueue (by hand, another
 * service, an old version). Retrying cannot fix it. The reason goes where an operator looks for
 * the memory and the run it names, when they exist: the memory's lastError (nothing else is
 * written on it) and the run's error list. It is not one of the jobs the run's producer counted,
 * so the run's counts stay as they are.
 */
async function rejectPayload(
  job: Job<CompressPayload>,
  issue: { path: PropertyKey[]; message: string } | undefined,
  deps: CompressDeps,
): Promise<UnrecoverableError> {
  const data = (job.data ?? {}) as Record<string, unknown>;
  const memoryId = typeof data.memoryId === 'string' && data.memoryId ? data.memoryId : undefined;
  const runId = typeof data.runId === 'string' && data.runId ? data.runId : undefined;
  const field = issue?.path.map(String).join('.') || '(payload)';
  const subject = memoryId ? `memory ${memoryId}` : `job ${job.id}`;
  const message = `${subject}: invalid compress payload: ${field}: ${issue?.message ?? 'invalid'}`;
  try {
    if (memoryId)
      await deps.store.recordError(memoryId, { stage: 'input', message, at: deps.now(), attempts: 1 });
    if (runId)
      await deps.runs.recordError(runId, {
        memoryId: memoryId ?? `(job ${job.id})`,
        stage: 'input',
        message,
      });
  } catch {
    // Recording is a courtesy: whatever happens to it, the job fails for good, with the reason.
  }
  return new UnrecoverableError(message);
}
