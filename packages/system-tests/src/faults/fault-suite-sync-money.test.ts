import { type Fault, until, WORKER_WAIT_MS } from '@memfade/testing';
import { describe, expect, it } from 'vitest';
import { DISTINCT } from './batch-rows.js';
import { billedAndCounted, budgetMoney } from './fault-checks.js';
import { faultTable, LATENCY, ROW_TIMEOUT_MS } from './fault-table.js';

/** The price the budget rows give the emulated model (MEMFADE_PRICES), in $ per million tokens. */
const PRICE = { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 };
/** A night budget a few stages at their ceiling fill, far below the night's 192 due memories. */
const BUDGET = { tokens: 60_000, usd: 0.4 };

/**
 * Faults by each stage's calls in order (the first, its retry or repair, a retried job's calls),
 * told apart by the memory the call sends (a DISTINCT seed makes each memory's text its own).
 */
function perStage(decide: (call: number) => Fault | undefined) {
  const calls = new Map<string, number>();
  return ({ api, body }: { api: string; body: { messages?: unknown[] } }) => {
    if (api === 'embeddings' || !body.messages) return undefined;
    const key = JSON.stringify(body.messages[api === 'chat' ? 1 : 0]);
    const n = (calls.get(key) ?? 0) + 1;
    calls.set(key, n);
    return decide(n);
  };
}

const TRUNCATE: Fault = { kind: 'truncate' };
const TOO_LONG: Fault = { kind: 'too-long' };
const FAILED: Fault = { kind: 'status', status: 500 };

/**
 * The money rows' workers: a call memfade gave up on (its client timed out, its job's lock lapsed
 * and the job ran again elsewhere) is billed with a reply nobody reads. On this shared machine a
 * worker's event loop can stall past the suite's 3 s model timeout and 2 s lock: these rows count
 * money, not stalls (the rows above inject those).
 */
const UNHURRIED = { MODEL_TIMEOUT_MS: '30000', JOB_LOCK_MS: '10000' };

/**
 * The sync fault suite's money rows (fault-suite-sync.test.ts has the rest; a file of their own so
 * that both halves run at once): a night budget under faults that cost money, and every call billed
 * counted whatever happens after it (docs/design.md invariants 9 and 14).
 */

// Slow scenarios: whole nights through worker processes; 12-55 s each (loaded machine), so 2 minutes.
describe('fault suite (compress jobs, money counted): within the budget, every billed call counted', {
  timeout: ROW_TIMEOUT_MS,
}, () => {
  const { record, rig } = faultTable('fault-suite-sync-money');

  it.each([
    ['no fault', () => undefined],
    ['first replies cut off at max_tokens', (n: number) => (n === 1 ? TRUNCATE : undefined)],
    ['first replies too long (repair turn)', (n: number) => (n === 1 ? TOO_LONG : undefined)],
  ] as const)(
    'a night budget, %s: what is billed stays within it, every call counted',
    async (name, fault) => {
      const r = await rig({}, DISTINCT);
      r.emulator.setRule(perStage(fault));
      const env = {
        ...UNHURRIED,
        NIGHT_BUDGET_TOKENS: String(BUDGET.tokens),
        NIGHT_BUDGET_USD: String(BUDGET.usd),
        MEMFADE_PRICES: JSON.stringify({ emulated: PRICE }),
      };
      r.startWorker(env);
      r.startWorker(env);
      const runId = await r.runNight();
      const runs = await r.settle([runId]);
      expect(runs[0]!.budget?.reachedAt).toBeInstanceOf(Date);
      expect(runs[0]!.counts.v1).toBeGreaterThan(0);
      const faults = r.emulator.requests.filter((q) => q.fault).length;
      const money = budgetMoney(r.emulator, runs, PRICE, BUDGET);
      record(`night budget (2 workers), ${name}`, await r.audit(runs), faults, money);
    },
  );

  it.each([
    ['cut off at max_tokens, its retry gets HTTP 500', TRUNCATE],
    ['too long, its repair turn gets HTTP 500', TOO_LONG],
  ] as const)('each first reply %s once, the job retried: every billed call counted', async (name, first) => {
    const r = await rig({}, DISTINCT);
    r.emulator.setRule(perStage((n) => (n === 1 ? first : n === 2 ? FAILED : undefined)));
    r.startWorker(UNHURRIED);
    r.startWorker(UNHURRIED);
    const runId = await r.runNight();
    const runs = await r.settle([runId]);
    const failed = r.emulator.requests.filter((q) => q.fault === FAILED).length;
    expect(failed).toBeGreaterThan(100);
    record(`first reply ${name}`, await r.audit(runs), failed, billedAndCounted(r.emulator, runs));
  });

  // docs/design.md invariants 9 and 14: a call is counted unanswered, at its ceiling, before it is
  // sent; a worker killed while its calls wait for their replies leaves them so, and the provider
  // bills them all the same (found by `simulate --seed 102`: 2,354 tokens billed, none counted).
  it('a worker killed -9 while its calls wait for replies: what was billed lies between counted and counted + unanswered', async () => {
    const r = await rig({}, DISTINCT);
    r.emulator.setRule(({ api }) => (api === 'embeddings' ? undefined : { kind: 'slow', delayMs: 1_500 }));
    const doomed = r.startWorker(UNHURRIED);
    const runId = await r.runNight();
    await until(
      async () => r.emulator.requests.filter((q) => q.api !== 'embeddings').length >= 4,
      WORKER_WAIT_MS,
    );
    doomed.child.kill('SIGKILL');
    await doomed.exited;
    r.emulator.setRule(() => LATENCY);
    r.startWorker(UNHURRIED);
    const runs = await r.settle([runId]);
    // The killed worker's calls are answered (and billed) after it died.
    const calls = () => r.emulator.requests.filter((q) => q.api !== 'embeddings');
    await until(async () => calls().every((q) => q.billed !== undefined), WORKER_WAIT_MS);
    const { billed, counted } = billedAndCounted(r.emulator, runs);
    const unanswered = runs.reduce((n, run) => n + (run.unanswered?.tokens ?? 0), 0);
    expect(billed).toBeGreaterThan(counted);
    expect(billed).toBeLessThanOrEqual(counted + unanswered);
    expect(runs[0]!.unanswered?.calls).toBeGreaterThanOrEqual(1);
    const audit = await r.audit(runs);
    expect(audit.lost).toBe(0);
    expect(audit.appliedTwice).toBe(0);
  });
});
