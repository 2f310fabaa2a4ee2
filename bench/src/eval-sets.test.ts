import { defaultConfig } from '@memfade/app';
import { describe, expect, it } from 'vitest';
import { ALL_SETS, evaluateSets, setDiff, setTables } from './eval-sets.js';

/** `pnpm bench:eval-sets` on this project's two small sets (docs/eval/README.md has every set's run). */
describe('the eval tables of every set', () => {
  it('prints each reading measure and what each stage keeps, and what moved since an earlier run', async () => {
    const small = ALL_SETS.filter((s) => s.format === 'jsonl');
    const results = await evaluateSets(small, defaultConfig().policy);
    const tables = setTables(results);
    expect(tables).toContain('| % failing | school zh 10 | health en 8 |');
    expect(tables).toMatch(/^\| labels \| 0 \/ 0 \| 0 \/ 0 \|$/m);
    expect(tables).toMatch(/^\| school zh \| \d+\.\d \/ \d+\.\d \(82\) \|/m);
    expect(setDiff(results, results)).toEqual([]);
    // One memory's V2 out of range more: the length row and the within-range count say so.
    const worse = structuredClone(results);
    const v2 = Object.values(worse[1]!.report.byLanguage)[0]!;
    v2.reader.length!.v2!.failing += 1;
    expect(setDiff(results, worse)).toEqual(['length, health en 8: 0 / 12.5 -> 0 / 25']);
  });
});
