import { type Job, UnrecoverableError } from 'bullmq';
import type { z } from 'zod';
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

/** A job whose payload its schema refused: failed for good, as retrying cannot fix it (failures.ts: bad-input). */
export class InvalidPayloadError extends UnrecoverableError {
  override name = 'InvalidPayloadError';
}

/**
 * The one wrapper every queue's worker runs (docs/design.md §2, "How a job is dispatched"): the
 * job's name picks its schema and handler in the catalog; the payload is parsed, and the handler
 * gets the job with the parsed payload. A payload its schema refuses never reaches a handler: its
 * reason is recorded (`record`) and the job fails for good, never retried (docs/design.md
 * invariant 5), the same way on every queue.
 */
export function jobProcessor<Q extends QueueKey>(
  queue: Q,
  handlers: JobHandlers<Q>,
  record: (rejected: RejectedPayload) => Promise<void>,
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
    return handle(job);
  };
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
