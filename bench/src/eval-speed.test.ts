import { fileURLToPath } from 'node:url';
import { loadDataset, parseJsonl } from '@memfade/eval';
import { describe, expect, it } from 'vitest';
import { benchmarkEvalSpeed, evalSpeedTable, jsonlLine, SHARED_SETS } from './eval-speed.js';

const SCHOOL = fileURLToPath(new URL('../../packages/ai/fixtures/school-zh.jsonl', import.meta.url));

/** `pnpm bench:eval` on a small set (measures nothing: docs/eval/README.md has the real runs). */
describe('eval speed benchmark (smoke, no thresholds)', () => {
  it('evaluates a set repeated up to the asked number of conversations, in the built CLI', async () => {
    const [result] = await benchmarkEvalSpeed([{ format: 'jsonl', file: SCHOOL, label: 'school zh' }], {
      conversations: 25,
      runs: 1,
    });
    expect(result!.setConversations).toBe(10);
    expect(result!.conversations).toBe(25);
    expect(result!.runs[0]!.cpuS).toBeGreaterThan(0);
    expect(result!.runs[0]!.peakRssMb).toBeGreaterThan(10);
    expect(result!.cpuSPer1000).toBeCloseTo((result!.runs[0]!.cpuS * 1000) / 25, 6);
    expect(evalSpeedTable([result!])).toContain('| school-zh.jsonl (jsonl) | 10 | 25 |');
  });

  it('writes each shared set as JSONL that loads back as the same conversations', async () => {
    for (const set of SHARED_SETS) {
      const conversations = await loadDataset(set.file, set.format);
      const again = parseJsonl(conversations.map((c) => jsonlLine(c, c.id)).join('\n'));
      // Gold facts keep their text; where they came from (a KdConv triple) only labels examples.
      const comparable = conversations.map((c) => ({ ...c, facts: c.facts.map(({ text }) => ({ text })) }));
      expect(again, set.file).toEqual(comparable);
    }
  });
});
