import { errorMessage } from '@memfade/core';
import { type Job, UnrecoverableError, Worker } from 'bullmq';
import type { z } from 'zod';
import { attemptEnd, classifyFailure, InvalidPayloadError } from './failures.js';
import { type JobName, type JobPayload, QUEUES, type QueueKey, type QueuePayload } from './registry.js';

/**
 * A queue's handlers, one per job name of the catalog (registry.ts): a mapped type over it, so a job
 * the catalog lists without a handler does not compile. A handler gets its job with the payload
 * already parsed by its schema (defaults applied): it never parses it again.
 */
export type JobHandlers<Q extends QueueKey> = {
  [N in JobName<Q>]: (job: Job<JobPayload<Q, N>>) => Promise<unknown>;
};

/** A payload its schema refused: what it names (where the reason is recorded) and the reason. */
export interface RejectedPayload {
  queue: QueueKey;
  jobId?: string;
  /** The run and the memory the payload names, when it names them as strings. */
  runId?: string;
  memoryId?: string;
  /** Names the memory (or the job) and the field: `memory m1: invalid compress payload: target: ...`. */
  message: string;
}

/** What the wrapper needs of the worker running it. */
export interface ProcessorControls {
  /** Records a refused payload's reason where the operator looks (app/src/setup/workers.ts). */
  record(rejected: RejectedPayload): Promise<void>;
  /** Pauses the whole worker (every job of its queue) for ms: the provider said to slow down. */
  rateLimit(ms: number): Promise<void>;
}

/**
 * The one wrapper every queue's worker runs (docs/design.md §2, "How a job is dispatched"): the
 * job's name picks its schema and handler in the catalog; the payload is parsed, and the handler
 * gets the job with the parsed payload. A payload its schema refuses never reaches a handler: its
 * reason is recorded (`record`) and the job fails for good, never retried (docs/design.md
 * invariant 5), the same way on every queue. A handler's failure is acted on here, the same way on
 * every queue (`actOn`).
 */
export function jobProcessor<Q extends QueueKey>(
  queue: Q,
  handlers: JobHandlers<Q>,
  { record, rateLimit }: ProcessorControls,
): (job: Job<QueuePayload<Q>>) => Promise<unknown> {
  return async (job) => {
    const read = readPayload(queue, job);
    if ('message' in read) {
      try {
        await record(read);
      } catch {
        // Recording is a courtesy: whatever happens to it, the job fails for good, with the reason.
      }
      throw new InvalidPayloadError(read.message);
    }
    job.data = read.payload;
    // The name and the payload come from the same catalog entry: this handler takes that payload.
    const handle = handlers[read.name] as unknown as (job: Job<QueuePayload<Q>>) => Promise<unknown>;
    try {
      return await handle(job);
    } catch (error) {
      throw await actOn(error, job, rateLimit);
    }
  };
}

/**
 * What BullMQ is given for a handler's failure, by its class (failures.ts attemptEnd): a rate
 * limit with the provider's retry-after pauses the worker and puts the job back without spending an
 * attempt; what retrying cannot fix fails for good at once, the error going along as the cause (the
 * worker's 'failed' listener and the log read its class); anything else is BullMQ's to retry.
 */
async function actOn(error: unknown, job: Job, rateLimit: (ms: number) => Promise<void>): Promise<unknown> {
  const end = attemptEnd(classifyFailure(error), job.attemptsMade + 1, job.opts.attempts);
  if (end.action === 'delay') {
    await rateLimit(end.delayMs);
    return Worker.RateLimitError();
  }
  if (end.action === 'fail' && !(error instanceof UnrecoverableError))
    return Object.assign(new UnrecoverableError(errorMessage(error)), { cause: error });
  return error;
}

/**
 * The job's catalog entry and its parsed payload, or why the payload was refused. A name the
 * catalog does not list (a job added by hand around the typed enqueue) is tried against each of
 * the queue's schemas in turn: the payload, not the name, is what a handler trusts.
 */
function readPayload<Q extends QueueKey>(
  queue: Q,
  job: Job,
): { name: JobName<Q>; payload: QueuePayload<Q> } | RejectedPayload {
  const jobs: Record<string, z.ZodType> = QUEUES[queue].jobs;
  const names = Object.hasOwn(jobs, job.name) ? [job.name] : Object.keys(jobs);
  let issue: { path: PropertyKey[]; message: string } | undefined;
  for (const name of names) {
    const parsed = jobs[name]?.safeParse(job.data);
    if (parsed?.success) return { name: name as JobName<Q>, payload: parsed.data as QueuePayload<Q> };
    issue ??= parsed?.error.issues[0];
  }
  return rejection(queue, job, issue);
}

function rejection(
  queue: QueueKey,
  job: Job,
  issue: { path: PropertyKey[]; message: string } | undefined,
): RejectedPayload {
  const data = (job.data ?? {}) as Record<string, unknown>;
  const named = (key: string) => (typeof data[key] === 'string' && data[key] ? data[key] : undefined);
  const memoryId = named('memoryId');
  const runId = named('runId');
  const field = issue?.path.map(String).join('.') || '(payload)';
  const subject = memoryId ? `memory ${memoryId}` : `job ${job.id}`;
  return {
    queue,
    ...(job.id && { jobId: job.id }),
    ...(runId && { runId }),
    ...(memoryId && { memoryId }),
    message: `${subject}: invalid ${queue} payload: ${field}: ${issue?.message ?? 'invalid'}`,
  };
}
