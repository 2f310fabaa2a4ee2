import { describe, expect, it } from 'vitest';
import { costOf, priceTableSchema } from './pricing.js';

const usage = {
  inputTokens: 1_000_000,
  outputTokens: 2_000_000,
  cacheReadTokens: 4_000_000,
  cacheWriteTokens: 1_000_000,
};

describe('costOf', () => {
  const table = priceTableSchema.parse({
    plain: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
    tenth: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75, batchFactor: 0.1 },
    explicit: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75, batch: { input: 1, output: 2 } },
  });
  const sync = 3 + 2 * 15 + 4 * 0.3 + 3.75;

  it('prices sync calls at the table prices', () => {
    expect(costOf(usage, table.plain)).toBeCloseTo(sync, 9);
    expect(costOf(usage, table.plain, { batch: false })).toBeCloseTo(sync, 9);
  });

  it('prices batch calls at half by default, at the batch factor when given, at explicit batch prices first', () => {
    expect(costOf(usage, table.plain, { batch: true })).toBeCloseTo(sync / 2, 9);
    expect(costOf(usage, table.tenth, { batch: true })).toBeCloseTo(sync / 10, 9);
    // Explicit batch prices: cache prices not given count as 0, like the sync table's defaults.
    expect(costOf(usage, table.explicit, { batch: true })).toBeCloseTo(1 + 2 * 2, 9);
    expect(costOf(usage, undefined, { batch: true })).toBe(0);
  });

  it('refuses a batch factor outside 0..1', () => {
    expect(() => priceTableSchema.parse({ m: { input: 1, output: 1, batchFactor: 2 } })).toThrow();
  });
});
