import {
  BadInputError,
  BudgetReachedError,
  InvalidModelOutputError,
  JobTimeoutError,
  PermanentModelError,
  RateLimitedError,
} from '@memfade/core';
import { UnrecoverableError, Worker } from 'bullmq';
import { describe, expect, it } from 'vitest';
import { classifyFailure, type FailureKind, failsForGood, InvalidPayloadError } from './failures.js';

const wrapped = (cause: Error) => Object.assign(new UnrecoverableError(cause.message), { cause });

/** Every failure a job meets, as a processor throws it or BullMQ reports it, and its kind. */
const FAILURES: [string, unknown, FailureKind][] = [
  ['a bad memory', new BadInputError('m1', 'content.raw', 'empty'), 'bad-input'],
  ['a bad payload', new InvalidPayloadError('memory m1: invalid compress payload: target: v3'), 'bad-input'],
  [
    'a bad memory failed for good',
    wrapped(new BadInputError('m1', 'meta.createdAt', 'missing')),
    'bad-input',
  ],
  ['a reply that cannot be kept', new InvalidModelOutputError('schema', undefined, 'invalid'), 'permanent'],
  [
    'a reply failed for good',
    wrapped(new InvalidModelOutputError('cut off', undefined, 'truncated')),
    'permanent',
  ],
  ['a provider refusing for good', new PermanentModelError('anthropic: bad request (400)'), 'permanent'],
  [
    'any job failed as unrecoverable',
    new UnrecoverableError('batch-poll: run r1 does not exist'),
    'permanent',
  ],
  [
    'a provider asking to slow down',
    new RateLimitedError('anthropic: rate limited (429)', 30_000),
    'rate-limited',
  ],
  ["BullMQ's rate limit", Worker.RateLimitError(), 'rate-limited'],
  ["the night's budget", new BudgetReachedError('r1'), 'budget'],
  ['a lock renewed too late', new Error('could not renew lock for job m1.v1'), 'lost-lock'],
  ['a lock found gone at the end', new Error('Missing lock for job m1.v1. moveToFinished'), 'lost-lock'],
  [
    'a lock found taken by another worker at the end',
    new Error('Lock mismatch for job m1.v2. Cmd moveToFinished from active'),
    'lost-lock',
  ],
  ["a job's stored reason after its workers died", 'job stalled more than allowable limit', 'stalled'],
  ['a job its workers died holding', new Error('job stalled more than allowable limit'), 'stalled'],
  ['a timeout', new JobTimeoutError('memory m1: the v1 job timed out after 300 ms'), 'retryable'],
  [
    'a network error',
    Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }),
    'retryable',
  ],
  [
    "a failed job's stored reason of any other kind",
    'memory m1: invalid compress payload: target: v3',
    'retryable',
  ],
  ['something thrown that is not an Error', { reason: 'odd' }, 'retryable'],
];

describe('classifyFailure', () => {
  it.each(FAILURES)('%s: %s', (_, failure, kind) => {
    expect(classifyFailure(failure).kind).toBe(kind);
  });

  it("carries the provider's retry-after with a rate limit", () => {
    expect(classifyFailure(new RateLimitedError('slow down', 12_000))).toEqual({
      kind: 'rate-limited',
      retryAfterMs: 12_000,
    });
  });

  it('fails for good only what retrying cannot fix', () => {
    const forGood = FAILURES.filter(([, failure]) => failsForGood(classifyFailure(failure))).map(
      ([, , k]) => k,
    );
    expect(new Set(forGood)).toEqual(new Set(['bad-input', 'permanent']));
  });
});
