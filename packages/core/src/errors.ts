import type { Usage } from './memory.js';

/**
 * A memory that cannot be processed as it stands (missing field, invalid date, huge or binary
 * content...). Retrying cannot help, so the queue treats it as unrecoverable.
 */
export class BadInputError extends Error {
  override readonly name = 'BadInputError';
  constructor(
    readonly memoryId: string,
    readonly field: string,
    readonly reason: string,
  ) {
    super(`memory ${memoryId}: ${field}: ${reason}`);
  }
}

/**
 * The error with its field under the product's own name (`fieldName`: MemoryStore.fieldName, the
 * mapping's path), so bad input sends the operator to the field in their documents; any other
 * error as it is.
 */
export function productNamed(error: unknown, fieldName: (field: string) => string): unknown {
  if (!(error instanceof BadInputError)) return error;
  return new BadInputError(error.memoryId, fieldName(error.field), error.reason);
}

/**
 * Why a model's reply was not kept (docs/design.md §6): the model declined (`refused`), its reply
 * was cut off at max_tokens even after one retry with a larger budget (`truncated`), or it broke
 * the schema, the language or the length gate even after the repair call (`invalid`).
 */
export type ModelFailureReason = 'refused' | 'truncated' | 'invalid';

/**
 * A model reply that cannot be kept: refused, truncated or invalid (`reason`), after the one retry
 * or repair call it was worth. Retrying would cost money for nothing. `spent` is what the calls
 * behind it used: paid for, not kept.
 */
export class InvalidModelOutputError extends Error {
  override readonly name = 'InvalidModelOutputError';
  constructor(
    message: string,
    readonly spent?: { usage: Usage; model: string },
    readonly reason: ModelFailureReason = 'invalid',
  ) {
    super(message);
  }
}

/**
 * The reason a model's reply failed a memory, from the error itself or the error it caused (the
 * queue wraps it in an UnrecoverableError whose `cause` it is); undefined for any other failure.
 */
export function failureReason(error: unknown): ModelFailureReason | undefined {
  for (let e = error, depth = 0; e instanceof Error && depth < 3; e = e.cause, depth++)
    if (e instanceof InvalidModelOutputError) return e.reason;
  return undefined;
}

/**
 * The product kept editing a memory while its job compressed it (docs/design.md invariant 7). Retryable:
 * by the next attempt the edits will have settled, and nothing stale was written.
 */
export class ContentChangedError extends Error {
  override readonly name = 'ContentChangedError';
}

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * The model provider asked us to slow down (HTTP 429, or Anthropic's 529 overloaded). The queue
 * pauses the whole worker for retryAfterMs and puts the job back without spending an attempt.
 */
export class RateLimitedError extends Error {
  override readonly name = 'RateLimitedError';
  constructor(
    message: string,
    readonly retryAfterMs: number,
  ) {
    super(message);
  }
}

/**
 * One memory's job ran longer than JOB_TIMEOUT_MS. Retryable: a slow provider may be faster on
 * the next attempt, and nothing was written after the deadline.
 */
export class JobTimeoutError extends Error {
  override readonly name = 'JobTimeoutError';
}

/** A provider error no retry can fix (bad request, bad key, unknown model). */
export class PermanentModelError extends Error {
  override readonly name = 'PermanentModelError';
}

/**
 * The request would pass the run's budget (docs/design.md invariant 14): not made, the memory stays
 * due. Not a failure of the memory: its job ends well.
 */
export class BudgetReachedError extends Error {
  override readonly name = 'BudgetReachedError';
  constructor(readonly runId: string) {
    super(
      `run ${runId}: the night's budget (or its user's) is reached; the memory stays due for the next night`,
    );
  }
}
