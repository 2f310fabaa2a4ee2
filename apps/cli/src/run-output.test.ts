import type { RunRecord } from '@memfade/db';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { nothingProcessed } from './progress.js';
import { printRunSummary } from './run-output.js';

const run = (counts: Partial<RunRecord['counts']>): RunRecord => ({
  runId: 'nightly-2026-11-22',
  trigger: 'schedule',
  asOf: new Date('2026-11-22T03:00:00Z'),
  startedAt: new Date('2026-11-22T03:00:00Z'),
  finishedAt: new Date('2026-11-22T03:01:00Z'),
  durationMs: 60_000,
  users: 1,
  counts: { selected: 5, enqueued: 3, processed: 3, v1: 3, v2: 0, skipped: 0, noop: 0, failed: 0, ...counts },
  tokens: {
    v1: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 },
    v2: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 },
  },
  cost: { v1: 0, v2: 0 },
  ratioSums: { v1: { sum: 0, n: 0 }, v2: { sum: 0, n: 0 } },
  errors: [],
});

function printed(record: RunRecord): string {
  const log = vi.spyOn(console, 'log').mockImplementation(() => undefined);
  printRunSummary(record);
  return log.mock.calls.map((call) => call.join(' ')).join('\n');
}

afterEach(() => vi.restoreAllMocks());

describe('run summary', () => {
  // The operator running `memfade run-now --wait` must see that the cap left work for tomorrow.
  it('says how many due memories RUN_MAX_MEMORIES left for the next run, and only when it did', () => {
    expect(printed(run({ deferred: 2 }))).toContain(
      '2 due memories left for the next run (RUN_MAX_MEMORIES)',
    );
    expect(printed(run({ deferred: 0 }))).not.toContain('left for the next run');
    expect(printed(run({}))).not.toContain('left for the next run');
  });

  it('says the night budget was reached, with the amounts, and how many memories it left due', () => {
    const reached = {
      ...run({}),
      budget: { usd: 0.91, tokens: 0, limitUsd: 1, limitTokens: 0, reachedAt: new Date(), overBudget: 7 },
    };
    expect(printed(reached)).toContain(
      'budget reached: $1 (reserved $0.9100); 7 due memories left for the next night (NIGHT_BUDGET_*)',
    );
    expect(printed(run({}))).not.toContain('budget reached');
  });
  it('says how many calls got no reply and what the provider may have billed for them, and only when some did', () => {
    const unanswered = { ...run({}), unanswered: { calls: 2, tokens: 9_000, usd: 0.05 } };
    expect(printed(unanswered)).toContain(
      '2 model calls got no reply (timed out or cut off): the provider may have billed them, up to 9000 tokens ($0.0500)',
    );
    expect(printed(run({}))).not.toContain('got no reply');
  });

  it('says how many users reached USER_NIGHT_BUDGET_USD and how many memories it left due', () => {
    const capped = { ...run({}), userBudget: { limitUsd: 0.15, overBudget: 9, users: 3 } };
    expect(printed(capped)).toContain(
      '3 users reached USER_NIGHT_BUDGET_USD ($0.15); 9 of their due memories left for the next night',
    );
    expect(printed(run({}))).not.toContain('USER_NIGHT_BUDGET_USD');
  });

  it('says which memories went to another run holding them', () => {
    expect(printed(run({ inOtherRuns: 4 }))).toContain(
      '4 due memories left to another run still holding them with requests in flight',
    );
  });

  it('a run the night budget stopped before any model call processed nothing (exit 5), with why', () => {
    const budget = { usd: 0, tokens: 10, limitTokens: 10, reachedAt: new Date(), overBudget: 3 };
    const stopped = { ...run({ selected: 3, enqueued: 3, processed: 3, v1: 0, noop: 3 }), budget };
    expect(nothingProcessed(stopped)).toMatch(
      /processed nothing: 3 memories were due.*3 left due: the night's budget/,
    );
    expect(nothingProcessed({ ...stopped, counts: { ...stopped.counts, v1: 1 } })).toBeUndefined();
  });
});
