import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import {
  createMetricsExposition,
  enqueueRun,
  type MemfadeConfig,
  startWorkerRole,
  waitForRun,
} from '@memfade/app';
import { costOf, type Usage } from '@memfade/core';
import type { RunRecord, UserCost } from '@memfade/db';
import { childEnv, type Fault, type LlmEmulator, until, WORKER_WAIT_MS } from '@memfade/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { closeBatchMode, emulator, harness, PRICE, setUp } from './batch-mode-harness.js';

const cli = fileURLToPath(new URL('../../../apps/cli/dist/main.js', import.meta.url));

/** `memfade status ...args` through the built CLI, on the test's database and Redis. */
async function memfade(config: MemfadeConfig, ...args: string[]): Promise<string> {
  const env = childEnv({
    REDIS_URL: config.redisUrl!,
    MONGODB_URI: config.mongodbUri!,
    MONGODB_DB: config.mongodbDb,
    MEMFADE_QUEUE_PREFIX: config.queuePrefix,
    LOG_LEVEL: 'warn',
  });
  return (await promisify(execFile)(process.execPath, [cli, ...args], { env, timeout: WORKER_WAIT_MS }))
    .stdout;
}

/**
 * What each user costs (docs/design.md §3, docs/operations.md "Per-user cost"): the ledger
 * (`compression_user_costs`) is written where the run counts its tokens and cost, so over a night it
 * sums to the run's tokens exactly and to its cost (the same amounts added in another order), in
 * batch and sync mode, with calls billed whose later step failed; the run's record carries its
 * dearest users. USER_NIGHT_BUDGET_USD is a ceiling per user: what the emulator billed for each
 * user's memories never passes it, and a memory whose calls would pass it is left due and counted.
 */

const MEMORIES = 24;

const memories = Array.from({ length: MEMORIES }, (_, i) => ({
  id: `c${String(i).padStart(2, '0')}`,
  ageDays: i % 4 === 0 ? 9 : 4,
}));

/** The batch-mode harness gives memory i to user u(i % 4), its text naming "Day i". */
const ownerOfDay = (day: number) => `u${day % 4}`;

/** Each memory's calls in order (told apart by the day its text names): `decide` picks a fault by call number. */
function perMemory(decide: (call: number, day: number) => Fault | undefined) {
  const calls = new Map<number, number>();
  return ({ api, body }: { api: string; body: unknown }) => {
    if (api === 'embeddings') return undefined;
    const match = /Day (\d+):/.exec(JSON.stringify(body));
    if (!match) return undefined;
    const day = Number(match[1]);
    const n = (calls.get(day) ?? 0) + 1;
    calls.set(day, n);
    return decide(n, day);
  };
}

const total = (u: Usage) => u.inputTokens + u.outputTokens + u.cacheReadTokens + u.cacheWriteTokens;
const runTokens = (run: RunRecord) => total(run.tokens.v1) + total(run.tokens.v2);
const runCost = (run: RunRecord) => run.cost.v1 + run.cost.v2;

function expectLedgerIsTheRun(ledger: UserCost[], run: RunRecord) {
  expect(ledger.reduce((n, u) => n + total(u.tokens), 0)).toBe(runTokens(run));
  expect(runTokens(run)).toBeGreaterThan(0);
  const cost = ledger.reduce((n, u) => n + u.cost, 0);
  expect(Math.abs(cost - runCost(run))).toBeLessThan(1e-9 * Math.max(1, runCost(run)));
  // Each user's memories are theirs: 4 users, no spend left without its owner.
  expect(ledger.map((u) => u.userId).sort()).toEqual(['u0', 'u1', 'u2', 'u3']);
  expect(ledger.every((u) => u.night === '2026-11-22' && u.runId === run.runId)).toBe(true);
  // The record's top users are the ledger's, dearest first.
  expect(run.topUsers?.map((t) => t.userId)).toEqual(ledger.map((u) => u.userId));
  const costs = run.topUsers?.map((t) => t.cost) ?? [];
  expect(costs).toEqual([...costs].sort((a, b) => b - a));
}

/** What the emulator billed in tokens, per user, from each request's memory (the day its text names). */
function billedByUser(llm: LlmEmulator): Map<string, number> {
  const byUser = new Map<string, number>();
  for (const r of llm.requests) {
    const day = /Day (\d+):/.exec(JSON.stringify(r.body))?.[1];
    if (day === undefined || !r.billed) continue;
    const user = ownerOfDay(Number(day));
    byUser.set(user, (byUser.get(user) ?? 0) + costOf(r.billed, PRICE, { batch: Boolean(r.batchId) }));
  }
  return byUser;
}

describe('the per-user ledger sums to the run', () => {
  afterEach(closeBatchMode);

  it(
    'batch night: first replies cut off (a sync retry), some too long (a repair turn)',
    async () => {
      const services = await setUp('anthropic', memories, { mode: 'batch' });
      emulator!.setRule(
        perMemory((n, day) =>
          n === 1 && day % 3 === 0
            ? { kind: 'truncate' }
            : n === 1 && day % 3 === 1
              ? { kind: 'too-long' }
              : undefined,
        ),
      );
      const worker = startWorkerRole(services);
      try {
        const runId = await enqueueRun(services, { trigger: 'manual' });
        const run = await waitForRun(services, runId, { timeoutMs: WORKER_WAIT_MS, pollMs: 50 });
        expect(run.batches?.mode).toBe('batch');
        expect(run.counts.v1).toBe(MEMORIES);
        const ledger = await services.runs.userCosts.ofRun(runId);
        expectLedgerIsTheRun(ledger, run);
        expect(ledger.reduce((n, u) => n + u.memories, 0)).toBe(MEMORIES);
        expect(runTokens(run)).toBe(emulator!.billed().sync.tokens + emulator!.billed().batch.tokens);
        // The night's spend per user in /metrics: one observation per user, no user id in a label.
        const exposition = createMetricsExposition({ ...services, queuePrefix: services.config.queuePrefix });
        const series = async () => {
          await services.metrics.flush();
          return (await exposition.metrics())
            .split('\n')
            .filter((l) => l.startsWith('memfade_user_night_cost_usd'));
        };
        await until(async () => (await series()).includes('memfade_user_night_cost_usd_count 4'), 5_000);
        const lines = await series();
        const sum = Number(lines.find((l) => l.startsWith('memfade_user_night_cost_usd_sum'))?.split(' ')[1]);
        expect(sum).toBeCloseTo(runCost(run), 9);
        expect(lines.filter((l) => /\bu\d\b/.test(l))).toEqual([]);
        expect(lines).toContain('memfade_user_night_cost_usd_bucket{le="+Inf"} 4');
      } finally {
        await worker.close();
      }
    },
    2 * WORKER_WAIT_MS,
  );

  it(
    'sync night: each first reply cut off, its retry gets HTTP 500 (billed, then failed), the job retried',
    async () => {
      const services = await setUp('openai', memories, { mode: 'sync' });
      emulator!.setRule(
        perMemory((n) =>
          n === 1 ? { kind: 'truncate' } : n === 2 ? { kind: 'status', status: 500 } : undefined,
        ),
      );
      const worker = startWorkerRole(services);
      try {
        const runId = await enqueueRun(services, { trigger: 'manual' });
        const run = await waitForRun(services, runId, { timeoutMs: WORKER_WAIT_MS, pollMs: 50 });
        expect(run.batches?.mode).toBe('sync');
        expect(run.counts).toMatchObject({ processed: MEMORIES, failed: 0 });
        expect(emulator!.requests.filter((r) => r.fault?.kind === 'status')).toHaveLength(MEMORIES);
        const ledger = await services.runs.userCosts.ofRun(runId);
        expectLedgerIsTheRun(ledger, run);
        expect(runTokens(run)).toBe(emulator!.billed().sync.tokens);
        // Each user's ledger is what the emulator billed for that user's memories.
        const billed = billedByUser(emulator!);
        for (const u of ledger) expect(u.cost).toBeCloseTo(billed.get(u.userId) ?? -1, 9);
        // `memfade status --user` reads the same ledger; `status` lists the run's dearest users.
        const mine = JSON.parse(await memfade(harness!.config, 'status', '--user', 'u1', '--json'));
        expect(mine.nights).toEqual([expect.objectContaining({ runId, night: '2026-11-22', userId: 'u1' })]);
        expect(mine.nights[0].cost).toBe(ledger.find((u) => u.userId === 'u1')!.cost);
        const text = await memfade(harness!.config, 'status', '--user', 'u1');
        expect(text).toContain(`user u1, last 1 runs: $${mine.nights[0].cost.toFixed(4)}`);
        expect(text).toMatch(/2026-11-22\s+\S+\s+6\s/);
        expect(await memfade(harness!.config, 'status')).toMatch(
          /its dearest users:\nuser\s+memories\s+tokens\s+cost\n-[- ]+\n(u\d\s+6\s.*\n){4}/,
        );
        expect(await memfade(harness!.config, 'status', '--user', 'nobody')).toContain(
          'no model cost recorded for user nobody',
        );
      } finally {
        await worker.close();
      }
    },
    2 * WORKER_WAIT_MS,
  );
});

/**
 * USER_NIGHT_BUDGET_USD: room for a stage at its ceiling (max_tokens 2,000, its retry and its repair
 * turn), below what a user's 16 memories (V1 and V2 each: 32 stages) are billed with every first
 * reply cut off at max_tokens: measured without the cap, $0.35 a user in sync mode and $0.19 in
 * batch mode (half price). Every user reaches it, whatever the order the workers take them in, and
 * without the cap each would pass it.
 */
const USER_CAP = 0.15;
const capped = Array.from({ length: 64 }, (_, i) => ({ id: `k${String(i).padStart(2, '0')}`, ageDays: 9 }));

describe('USER_NIGHT_BUDGET_USD is a ceiling on what each user can be billed', () => {
  afterEach(closeBatchMode);

  for (const mode of ['sync', 'batch'] as const)
    it(
      `${mode}: billed per user <= the cap, the memories over it left due and counted`,
      async () => {
        const services = await setUp(
          'anthropic',
          capped,
          { mode },
          {
            nightBudget: { usd: 0, tokens: 0, userUsd: USER_CAP },
          },
        );
        // Every first reply cut off: a retry follows, reserved with its stage before the first call.
        emulator!.setRule(perMemory((n) => (n === 1 ? { kind: 'truncate' } : undefined)));
        const worker = startWorkerRole(services);
        try {
          const runId = await enqueueRun(services, { trigger: 'manual' });
          const run = await waitForRun(services, runId, { timeoutMs: WORKER_WAIT_MS, pollMs: 50 });
          expect(run.batches?.mode).toBe(mode);
          const billed = billedByUser(emulator!);
          expect([...billed.keys()].sort()).toEqual(['u0', 'u1', 'u2', 'u3']);
          for (const [user, usd] of billed) {
            expect(usd, user).toBeGreaterThan(0);
            expect(usd, user).toBeLessThanOrEqual(USER_CAP);
          }
          // The cap was reached with work done and work left, for every user.
          const ledger = await services.runs.userCosts.ofRun(runId);
          expectLedgerIsTheRun(ledger, run);
          const left = ledger.reduce((n, u) => n + (u.overBudget ?? 0), 0);
          expect(left).toBeGreaterThan(0);
          expect(run.userBudget).toMatchObject({ limitUsd: USER_CAP, overBudget: left, users: 4 });
          for (const u of ledger) expect(u.overBudget ?? 0, u.userId).toBeGreaterThan(0);
          // Settled: what each user holds reserved is what they were billed.
          for (const u of ledger) expect(u.reservedUsd ?? 0).toBeCloseTo(billed.get(u.userId) ?? -1, 9);
          // Left due: each stage refused is a memory short of its target tonight (a V1 written before
          // its V2 was refused stays), still due tomorrow.
          const docs = await services.models.memories.collection.find({}).toArray();
          const short = docs.filter((d) => d.meta.compressionStage !== 'v2');
          expect(short).toHaveLength(left);
          expect(run.counts.v1 + run.counts.v2).toBeGreaterThan(0);
        } finally {
          await worker.close();
        }
      },
      2 * WORKER_WAIT_MS,
    );
});
