import {
  BadInputError,
  BudgetReachedError,
  InvalidModelOutputError,
  PermanentModelError,
  RateLimitedError,
} from '@memfade/core';
import { UnrecoverableError } from 'bullmq';

/**
 * What kind of failure ended a job's attempt, the one answer every queue acts on (docs/design.md §2,
 * "How a job is dispatched"):
 * - `bad-input`: the job's payload or its memory cannot be processed as they stand; retrying cannot
 *   fix it, so it fails for good with its reason recorded (invariant 5).
 * - `permanent`: the model's reply cannot be kept, the provider refuses for good, or the job was
 *   already failed as unrecoverable; retrying would cost money for nothing.
 * - `rate-limited`: the provider asked us to slow down; the job goes back without spending an attempt.
 * - `budget`: the night's budget is reached (invariant 14); the memory stays due, the job ends well.
 * - `lost-lock`: BullMQ could not renew the job's lock in time; the job runs again, harmlessly, as
 *   its stage write is conditional (invariant 2).
 * - `stalled`: the job's workers died holding it past BullMQ's limit: the workers' death, not the
 *   memory's failure (invariants 3 and 12).
 * - `unrecorded`: the job's last attempt failed and MongoDB was away as it recorded the failure: the
 *   outage's, not the memory's failure, counted and replaced as a stalled job is.
 * - `retryable`: anything else (a network error, MongoDB away, a timeout, a memory edited meanwhile):
 *   BullMQ tries again while attempts remain.
 */
export type Failure =
  | { kind: 'bad-input' }
  | { kind: 'permanent' }
  | { kind: 'rate-limited'; retryAfterMs?: number }
  | { kind: 'budget' }
  | { kind: 'lost-lock' }
  | { kind: 'stalled' }
  | { kind: 'mongo-away' }
  | { kind: 'retryable' };

export type FailureKind = Failure['kind'];

/** A job whose payload its schema refused (jobs.ts): failed for good, as retrying cannot fix it (bad-input). */
export class InvalidPayloadError extends UnrecoverableError {
  override name = 'InvalidPayloadError';
}

/** BullMQ's reason for a job whose worker died holding it more often than maxStalledCount allows. */
const STALLED_REASON = /stalled more than allowable limit/;
/**
 * BullMQ's errors when a job's lock renewal came too late, and when its end then finds the lock gone or
 * another worker's ("Lock mismatch": taken back as stalled meanwhile, on a busy host).
 */
const LOST_LOCK = /^(could not renew lock for job |Missing lock for job |Lock mismatch for job )/;

/** What a compress job's last attempt fails with when MongoDB was away (compress/compress.ts). */
export const MONGO_AWAY_FAILURE = 'MongoDB was away at the last attempt: ';

/** Failed, but not the memory's failure: its workers died, or MongoDB was away at its last attempt. */
export const notTheMemorysFailure = (failedReason: string | undefined): boolean =>
  ['stalled', 'mongo-away'].includes(classifyFailure(failedReason ?? '').kind);

/**
 * Classifies a failure: an error a processor threw or BullMQ reported, or a failed job's stored
 * reason (BullMQ keeps only the message, so a reason tells apart BullMQ's own failures, stalled
 * and lost lock, and reads as `retryable` otherwise). An UnrecoverableError is classified by the
 * error it wraps (its `cause`), and is at least `permanent`: BullMQ will not retry it.
 */
export function classifyFailure(failure: unknown): Failure {
  if (typeof failure === 'string') return byMessage(failure);
  if (failure instanceof InvalidPayloadError) return { kind: 'bad-input' };
  if (failure instanceof UnrecoverableError) {
    const cause = failure.cause === undefined ? undefined : classifyFailure(failure.cause);
    return cause?.kind === 'bad-input' ? cause : { kind: 'permanent' };
  }
  if (failure instanceof BadInputError) return { kind: 'bad-input' };
  if (failure instanceof InvalidModelOutputError || failure instanceof PermanentModelError)
    return { kind: 'permanent' };
  if (failure instanceof RateLimitedError)
    return { kind: 'rate-limited', retryAfterMs: failure.retryAfterMs };
  // BullMQ's own: thrown (Worker.RateLimitError) to put a job back while the worker pauses.
  if (failure instanceof Error && failure.name === 'RateLimitError') return { kind: 'rate-limited' };
  if (failure instanceof BudgetReachedError) return { kind: 'budget' };
  return failure instanceof Error ? byMessage(failure.message) : { kind: 'retryable' };
}

function byMessage(message: string): Failure {
  if (STALLED_REASON.test(message)) return { kind: 'stalled' };
  if (message.startsWith(MONGO_AWAY_FAILURE)) return { kind: 'mongo-away' };
  if (LOST_LOCK.test(message)) return { kind: 'lost-lock' };
  return { kind: 'retryable' };
}

/** Retrying cannot fix it: the job fails for good at once. */
export const failsForGood = (failure: Failure): boolean =>
  failure.kind === 'bad-input' || failure.kind === 'permanent';

/**
 * What becomes of a job after a failed attempt, decided from its failure alone, the same on every
 * queue (docs/design.md §2, "How a job is dispatched"): `delay`, back to the wait list after the
 * provider's retry-after without spending an attempt; `fail`, failed for good now; `retry`, BullMQ
 * tries again after its backoff. `final`: no attempt of the job follows this one, so a handler
 * records the memory's failure now (compress/compress.ts) and the metrics count the attempt final.
 */
export type AttemptEnd =
  | { action: 'delay'; delayMs: number; final: false }
  | { action: 'fail'; final: true }
  | { action: 'retry'; final: boolean };

/**
 * `attempt`: which attempt failed, from 1 (a processor's `job.attemptsMade + 1`: BullMQ counts
 * the attempt after its processor; a 'failed' listener's `job.attemptsMade`); `attempts`: the
 * job's allowed attempts (`job.opts.attempts`).
 */
export function attemptEnd(failure: Failure, attempt: number, attempts = 1): AttemptEnd {
  if (failure.kind === 'rate-limited' && failure.retryAfterMs !== undefined)
    return { action: 'delay', delayMs: failure.retryAfterMs, final: false };
  if (failsForGood(failure)) return { action: 'fail', final: true };
  return { action: 'retry', final: attempt >= attempts };
}
