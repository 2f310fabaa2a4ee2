import { defaultConfig } from '@memfade/app';
import { describe, expect, it } from 'vitest';
import { ALL_SETS, evaluateSets, setDiff, setTables } from './eval-sets.js';

/** `pnpm bench:eval-sets` on this project's two small sets (docs/eval/README.md has every set's run). */
describe('the eval tables of every set', () => {
  it('prints each reading measure and what each stage keeps, and what moved since an earlier run', async () => {
    const small = ALL_SETS.filter((s) => s.format === 'jsonl');
    const results = await evaluateSets(small, defaultConfig().policy);
    const tables = setTables(results);
    // Each set is its tune and its check half (packages/eval split.ts pins them).
    expect(tables).toContain(
      '| % failing | school zh tune 6 | school zh check 4 | health en tune 4 | health en check 4 |',
    );
    expect(tables).toMatch(/^\| labels \| 0 \/ 0 \| 0 \/ 0 \| 0 \/ 0 \| 0 \/ 0 \|$/m);
    expect(tables).toMatch(/^\| school zh check \| \d+\.\d \/ \d+\.\d \(\d+\) \|/m);
    expect(setDiff(results, results)).toEqual([]);
    // One memory's V2 out of range more: the length row and the within-range count say so.
    const worse = structuredClone(results);
    const v2 = Object.values(worse[3]!.report.byLanguage)[0]!;
    const before = v2.reader.length!.v2!.failing;
    v2.reader.length!.v2!.failing += 1;
    expect(setDiff(results, worse)).toEqual([
      `length, health en check 4: 0 / ${(100 * before) / 4} -> 0 / ${(100 * (before + 1)) / 4}`,
    ]);
  });
});
