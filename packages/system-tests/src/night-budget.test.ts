import { enqueueRun, startWorkerRole, waitForRun } from '@memfade/app';
import { costOf } from '@memfade/core';
import type { RunRecord } from '@memfade/db';
import { type Fault, type LlmEmulator, until, WORKER_WAIT_MS } from '@memfade/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { closeBatchMode, emulator, PRICE, setUp } from './batch-mode-harness.js';

/**
 * The night's budget is a ceiling on what can be billed (docs/design.md invariants 10 and 14), and
 * every billed call is counted on the run (invariant 9), through the real SDKs against the
 * emulator, which says what it billed: with no fault, with every memory's first reply cut off at
 * max_tokens (a retry with twice the budget follows) and with every first reply too long (a repair
 * turn follows), in sync and batch mode, on both providers; and a sync night whose retry or repair
 * call gets an HTTP 500 once, its job retried.
 */

const MEMORIES = 24;
/** Enough for a few stages at their ceiling, far from all of them: the budget is reached mid-night. */
const BUDGET = { tokens: 20_000, usd: 0.16 };

/** Each memory's calls in order, told apart by the day its text names (batch-mode-harness turns()). */
function perMemory(decide: (call: number) => Fault | undefined) {
  const calls = new Map<string, number>();
  return ({ api, body }: { api: string; body: unknown }) => {
    if (api === 'embeddings') return undefined;
    const day = /Day (\d+):/.exec(JSON.stringify(body))?.[1];
    if (!day) return undefined;
    const n = (calls.get(day) ?? 0) + 1;
    calls.set(day, n);
    return decide(n);
  };
}

/** What the emulator billed, in tokens and in dollars (batch lines at batch prices). */
function spent(llm: LlmEmulator) {
  const { sync, batch } = llm.billed();
  const usd = costOf(sync.usage, PRICE) + costOf(batch.usage, PRICE, { batch: true });
  return { tokens: sync.tokens + batch.tokens, usd };
}

/** The tokens the run counted, every kind. */
const counted = (run: RunRecord) =>
  [run.tokens.v1, run.tokens.v2].reduce(
    (n, u) => n + u.inputTokens + u.outputTokens + u.cacheReadTokens + u.cacheWriteTokens,
    0,
  );

const memories = Array.from({ length: MEMORIES }, (_, i) => ({
  id: `n${String(i).padStart(2, '0')}`,
  ageDays: i % 4 === 0 ? 9 : 4,
}));

const FAULTS = {
  'no fault': () => undefined,
  'first replies cut off at max_tokens': (n: number): Fault | undefined =>
    n === 1 ? { kind: 'truncate' } : undefined,
  'first replies too long (a repair turn)': (n: number): Fault | undefined =>
    n === 1 ? { kind: 'too-long' } : undefined,
};

describe('the night budget is a ceiling on what can be billed', () => {
  afterEach(closeBatchMode);

  for (const provider of ['anthropic', 'openai'] as const)
    for (const mode of ['sync', 'batch'] as const)
      for (const [name, fault] of Object.entries(FAULTS))
        it(
          `${provider}, ${mode}, ${name}: billed <= budget, billed = counted`,
          async () => {
            const services = await setUp(
              provider,
              memories,
              { mode },
              { nightBudget: { usd: BUDGET.usd, tokens: BUDGET.tokens } },
            );
            emulator!.setRule(perMemory(fault));
            const worker = startWorkerRole(services);
            try {
              const runId = await enqueueRun(services, { trigger: 'manual' });
              const run = await waitForRun(services, runId, { timeoutMs: WORKER_WAIT_MS, pollMs: 50 });
              expect(run.batches?.mode).toBe(mode);
              const bill = spent(emulator!);
              // The budget was reached with work done and work left: the ceiling is what was tested.
              expect(run.counts.v1).toBeGreaterThan(0);
              expect(run.budget?.overBudget ?? 0).toBeGreaterThan(0);
              expect(bill.tokens).toBeLessThanOrEqual(BUDGET.tokens);
              expect(bill.usd).toBeLessThanOrEqual(BUDGET.usd);
              expect(counted(run)).toBe(bill.tokens);
              // Settled: what the run holds on its budget is what was billed, nothing left reserved.
              expect(run.budget?.tokens).toBe(bill.tokens);
            } finally {
              await worker.close();
            }
          },
          2 * WORKER_WAIT_MS,
        );
});

describe('every billed call is counted, whatever happens after it', () => {
  afterEach(closeBatchMode);

  const FOLLOW_UP_FAILS = {
    'cut off, its retry gets HTTP 500': (n: number): Fault | undefined =>
      n === 1 ? { kind: 'truncate' } : n === 2 ? { kind: 'status', status: 500 } : undefined,
    'too long, its repair turn gets HTTP 500': (n: number): Fault | undefined =>
      n === 1 ? { kind: 'too-long' } : n === 2 ? { kind: 'status', status: 500 } : undefined,
  };

  for (const provider of ['anthropic', 'openai'] as const)
    for (const [name, fault] of Object.entries(FOLLOW_UP_FAILS))
      it(
        `${provider}, sync: each first reply ${name}, the job retried: billed = counted`,
        async () => {
          const services = await setUp(provider, memories, { mode: 'sync' });
          emulator!.setRule(perMemory(fault));
          const worker = startWorkerRole(services);
          try {
            const runId = await enqueueRun(services, { trigger: 'manual' });
            const run = await waitForRun(services, runId, { timeoutMs: WORKER_WAIT_MS, pollMs: 50 });
            // Every memory got there, each after one failed follow-up and a retried job.
            expect(run.counts).toMatchObject({ processed: MEMORIES, v1: MEMORIES, failed: 0 });
            const failed = emulator!.requests.filter((r) => r.fault?.kind === 'status');
            expect(failed).toHaveLength(MEMORIES);
            expect(counted(run)).toBe(spent(emulator!).tokens);
          } finally {
            await worker.close();
          }
        },
        2 * WORKER_WAIT_MS,
      );
});

describe('a call whose reply never came is counted apart, at its ceiling, and kept on the budget', () => {
  afterEach(closeBatchMode);

  for (const provider of ['anthropic', 'openai'] as const)
    it(
      `${provider}, sync: each first call answered after the client gave up, the job retried`,
      async () => {
        const services = await setUp(
          provider,
          memories,
          { mode: 'sync' },
          { nightBudget: { usd: BUDGET.usd, tokens: BUDGET.tokens } },
          // A timeout a loaded machine's prompt replies stay under (a reply after it would be unanswered
          // too), the slow calls' delay well past it.
          { modelTimeoutMs: 3_000 },
        );
        emulator!.setRule(perMemory((n) => (n === 1 ? { kind: 'slow', delayMs: 5_000 } : undefined)));
        const worker = startWorkerRole(services);
        try {
          const runId = await enqueueRun(services, { trigger: 'manual' });
          const run = await waitForRun(services, runId, { timeoutMs: WORKER_WAIT_MS, pollMs: 50 });
          // The provider answers the abandoned calls after the client gave up, and bills them.
          const abandoned = () => emulator!.requests.filter((r) => r.fault?.kind === 'slow');
          await until(async () => abandoned().every((r) => r.billed !== undefined), WORKER_WAIT_MS);
          const bill = spent(emulator!);
          expect(run.counts.v1).toBeGreaterThan(0);
          expect(run.unanswered?.calls).toBe(
            emulator!.requests.filter((r) => r.fault?.kind === 'slow').length,
          );
          // What the books say is a bound that holds: counted <= billed <= counted + unanswered.
          expect(bill.tokens).toBeGreaterThan(counted(run));
          expect(bill.tokens).toBeLessThanOrEqual(counted(run) + run.unanswered!.tokens);
          // The budget kept each unanswered call at its ceiling: still a ceiling on what was billed.
          expect(bill.tokens).toBeLessThanOrEqual(BUDGET.tokens);
          expect(run.budget!.tokens).toBeGreaterThanOrEqual(bill.tokens);
        } finally {
          await worker.close();
        }
      },
      2 * WORKER_WAIT_MS,
    );
});
