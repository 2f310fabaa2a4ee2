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
import { type Job, UnrecoverableError, Worker } from 'bullmq';
import { withJobTimeout } from '../job-timeout.js';
import { type CompressPayload, QUEUES } from '../registry.js';
import type { JobEnd, RunTracker } from '../run-tracker.js';

export interface CompressDeps {
  store: MemoryStore;
  compressor: Compressor;
  /** Counts each job in its run once, and finishes the run after its last job. */
  tracker: RunTracker;
  policy: StagePolicy;
  now: () => Date;
  /** Turns recorded token usage into cost (US dollars per million tokens, per model). */
  prices?: PriceTable;
  /** Called after a transition was written, so the vector outbox is flushed soon. */
  onTransition?: () => void;
  /** Wall-clock limit of one job (JOB_TIMEOUT_MS); 0 or absent = none. */
  jobTimeoutMs?: number;
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
  const { runId, memoryId, target, carried } = parsed.data;
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
      await jobEnded(
        job,
        runId,
        { ...carried, outcome: 'failed', error: { memoryId, stage, message } },
        deps,
      );
    }
    throw permanent ? new UnrecoverableError(errorMessage(error)) : error;
  }
  if (outcome.kind === 'advanced') deps.onTransition?.();
  const transitions = [
    ...(carried?.transitions ?? []),
    ...(outcome.kind === 'advanced' ? outcome.transitions : []).map((t) => ({
      stage: t.stage,
      skipped: t.skipped,
      usage: t.usage,
      ratio: t.ratio,
      cost: costOf(t.usage, deps.prices?.[t.model]),
    })),
  ];
  await jobEnded(
    job,
    runId,
    {
      outcome: transitions.length ? 'completed' : 'noop',
      transitions,
      discarded: [
        ...(carried?.discarded ?? []),
        ...(outcome.discarded ?? []).map((d) => ({
          stage: d.stage,
          usage: d.usage,
          cost: costOf(d.usage, deps.prices?.[d.model]),
        })),
      ],
    },
    deps,
  );
  return outcome;
}

const jobEnded = (job: Job, runId: string, end: JobEnd, deps: CompressDeps) =>
  deps.tracker.jobEnded(runId, job.id ?? '', end);

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
      await deps.tracker.recordError(runId, {
        memoryId: memoryId ?? `(job ${job.id})`,
        stage: 'input',
        message,
      });
  } catch {
    // Recording is a courtesy: whatever happens to it, the job fails for good, with the reason.
  }
  return new UnrecoverableError(message);
}
