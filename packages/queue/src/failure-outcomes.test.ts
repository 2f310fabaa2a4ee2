import {
  BadInputError,
  BudgetReachedError,
  InvalidModelOutputError,
  JobTimeoutError,
  PermanentModelError,
  RateLimitedError,
} from '@memfade/core';
import { uniqueName } from '@memfade/testing';
import { type Job, Queue, Worker } from 'bullmq';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { producerConnection } from './connection.js';
import { type JobHandlers, jobProcessor } from './jobs.js';
import { QUEUES, type QueueKey } from './registry.js';

/**
 * One table of failures, each the class a handler's error falls in (failures.ts) and what every
 * queue does with it: how many attempts the job gets and how it ends (docs/design.md §2, "How a
 * job is dispatched"). `all`: the queue's attempts from the registry (nightly 8, compress 5,
 * batch 8). A rate limit is thrown on the first attempt only: it must not spend that attempt.
 */
type Row = [kind: string, error: () => Error, attempts: number | 'all', state: 'failed' | 'completed'];

const TABLE: Row[] = [
  ['bad-input', () => new BadInputError('m1', 'content.raw', 'empty'), 1, 'failed'],
  [
    'permanent: a provider refusing',
    () => new PermanentModelError('anthropic: bad request (400)'),
    1,
    'failed',
  ],
  [
    'permanent: a reply that cannot be kept',
    () => new InvalidModelOutputError('schema', undefined, 'invalid'),
    1,
    'failed',
  ],
  [
    'rate-limited with a retry-after',
    () => new RateLimitedError('anthropic: rate limited (429)', 50),
    1,
    'completed',
  ],
  ['retryable: a network error', () => new Error('connect ECONNREFUSED'), 'all', 'failed'],
  [
    'retryable: a timeout',
    () => new JobTimeoutError('memory m1: the v1 job timed out after 300 ms'),
    'all',
    'failed',
  ],
  ['lost-lock', () => new Error('could not renew lock for job m1.v1'), 'all', 'failed'],
  ['budget, left to its handler', () => new BudgetReachedError('r1'), 'all', 'failed'],
];

/** A valid payload of each queue's first job: the wrapper reaches the handler. */
const JOBS: Record<QueueKey, { name: string; data: Record<string, unknown> }> = {
  nightly: {
    name: 'nightly-run',
    data: { runId: 'r1', trigger: 'manual', asOf: '2026-11-28T03:00:00.000Z', selection: {} },
  },
  compress: { name: 'compress-v1', data: { runId: 'r1', memoryId: 'm1', target: 'v1' } },
  batch: { name: 'batch-poll', data: { runId: 'r1', round: 0, poll: 0 } },
};

const CASES = (Object.keys(QUEUES) as QueueKey[]).flatMap((queue) =>
  TABLE.map(([kind, error, attempts, state]) => ({
    queue,
    kind,
    error,
    attempts: attempts === 'all' ? QUEUES[queue].defaults.attempts : attempts,
    state,
  })),
);

describe('every queue acts on a failure by its class, from one table', () => {
  const connection = producerConnection(inject('redisUrl'));
  const closing: { close(): Promise<void> }[] = [];

  afterAll(async () => {
    for (const c of closing.reverse()) await c.close();
    await connection.quit();
  });

  /** The job's end: its state once it settled (failed or completed) and the attempts it spent. */
  async function run<Q extends QueueKey>(queue: Q, fail: () => Error) {
    const prefix = uniqueName('fo');
    const { name, jobs } = QUEUES[queue];
    const bull = new Queue(name, { connection, prefix });
    closing.push(bull);
    let thrown = 0;
    const handler = async (_job: Job) => {
      // A rate limit once, then the job goes through; any other failure every time.
      if (fail() instanceof RateLimitedError && thrown++ > 0) return 'done';
      throw fail();
    };
    const handlers = Object.fromEntries(Object.keys(jobs).map((n) => [n, handler])) as JobHandlers<Q>;
    const record = async () => {};
    const worker: Worker = new Worker(
      name,
      jobProcessor(queue, handlers, { record, rateLimit: (ms) => worker.rateLimit(ms) }),
      { connection: { url: inject('redisUrl') }, prefix },
    );
    closing.push(worker);
    const { name: jobName, data } = JOBS[queue];
    const job = await bull.add(jobName, data, {
      attempts: QUEUES[queue].defaults.attempts,
      backoff: { type: 'fixed', delay: 10 },
    });
    for (const end = Date.now() + 20_000; Date.now() < end; ) {
      const state = await bull.getJobState(job.id ?? '');
      if (state === 'failed' || state === 'completed') {
        const settled = await bull.getJob(job.id ?? '');
        return { state, attempts: settled?.attemptsMade };
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return { state: 'unsettled', attempts: undefined };
  }

  it.each(CASES)(
    '$queue, $kind: $attempts attempts, then $state',
    async ({ queue, error, attempts, state }) => {
      expect(await run(queue, error)).toEqual({ state, attempts });
    },
  );
});
