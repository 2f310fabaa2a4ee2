import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { OfflineCompressor } from '@memfade/ai';
import { stagePolicy } from '@memfade/core';
import { describe, expect, it } from 'vitest';
import { type EvalReport, evaluate, type LanguageSummary } from './evaluate.js';
import { loadDataset } from './loaders.js';

const DATA = fileURLToPath(new URL('../../../../shared/data/', import.meta.url));
const policy = stagePolicy();

const run = async (file: string, format: 'locomo' | 'kdconv' | 'memorybank') =>
  evaluate(await loadDataset(`${DATA}${file}`, format), { compressor: new OfflineCompressor(), policy });

/**
 * What any honest report on real data must satisfy, whatever the offline compressor keeps: the
 * bounds follow from the definitions (raw holds every fact it is counted on, a stage keeps at
 * most those), the ratios from the length targets the pipeline enforces.
 */
function checkStructure(report: EvalReport, language: 'zh' | 'en'): LanguageSummary {
  const l = report.byLanguage[language]!;
  expect(l.conversations).toBe(report.conversations);
  expect(report.failures).toEqual([]);
  const { raw, v1, v2 } = l.stages;
  expect(raw!.conversations).toBe(l.conversations);
  expect(v1!.conversations).toBe(l.conversations);
  expect(v2!.conversations).toBe(l.conversations);
  // Extractive compression cannot change the language.
  expect(v1!.languageFidelity).toBe(1);
  expect(v2!.languageFidelity).toBe(1);
  // V1 compresses: its median ratio lies in the 30-50% target, and V2 is shorter than V1.
  expect(v1!.ratio.p50).toBeGreaterThanOrEqual(0.3);
  expect(v1!.ratio.p50).toBeLessThanOrEqual(0.5);
  expect(v2!.length.p50).toBeLessThan(v1!.length.p50);
  const range = l.targets.v2Length;
  expect(v2!.length.p50).toBeGreaterThanOrEqual(range.min);
  expect(v2!.length.p50).toBeLessThanOrEqual(range.max);
  for (const stage of [v1!, v2!]) {
    const t = stage.target!;
    expect(t.below + t.within + t.above + t.skipped).toBe(l.conversations);
  }
  for (const r of report.results) {
    expect(r.stages.raw!.factsKept).toBe(r.facts.inRaw);
    expect(r.stages.v1!.factsKept).toBeLessThanOrEqual(r.facts.inRaw);
    expect(r.stages.v2!.factsKept).toBeLessThanOrEqual(r.facts.inRaw);
  }
  return l;
}

function checkRetention(l: LanguageSummary): void {
  const { raw, v1, v2 } = l.stages;
  expect(l.facts.inRaw).toBeGreaterThan(0);
  expect(l.facts.inRaw).toBeLessThan(l.facts.total); // some gold answers are paraphrased in the chat
  expect(l.facts.rawCoverage).toBe(l.facts.inRaw / l.facts.total);
  expect(raw!.facts).toEqual({ counted: l.facts.inRaw, kept: l.facts.inRaw, retention: 1 });
  // Compressed to under half, V1 keeps some facts but not all of them.
  expect(v1!.facts.kept).toBeGreaterThan(0);
  expect(v1!.facts.retention!).toBeLessThan(1);
  expect(v2!.facts.retention!).toBeLessThan(1);
  expect(v1!.facts.counted).toBe(l.facts.inRaw);
}

describe('memfade eval on ../shared/data with the offline compressor', () => {
  it('LoCoMo: one memory per session, facts from the answers whose evidence is in it', async () => {
    const data = JSON.parse(readFileSync(`${DATA}locomo/locomo7.json`, 'utf8')) as {
      conversation: Record<string, unknown>;
    }[];
    const sessions = data.flatMap((c) =>
      Object.entries(c.conversation).filter(
        ([k, v]) => /^session_\d+$/.test(k) && Array.isArray(v) && v.length,
      ),
    );
    const report = await run('locomo/locomo7.json', 'locomo');
    expect(report.conversations).toBe(sessions.length);
    expect(report.byLanguage.zh).toBeUndefined();
    checkRetention(checkStructure(report, 'en'));
  });

  it('KdConv travel: one memory per dialogue, facts from its knowledge triples', async () => {
    const report = await run('kdconv/travel_test.json', 'kdconv');
    expect(report.conversations).toBe(150);
    expect(report.byLanguage.en).toBeUndefined();
    checkRetention(checkStructure(report, 'zh'));
  });

  it('MemoryBank: one memory per user per day, lengths and language only (no gold facts)', async () => {
    for (const [file, language] of [
      ['memorybank/memory_bank_cn.json', 'zh'],
      ['memorybank/memory_bank_en.json', 'en'],
    ] as const) {
      const data = JSON.parse(readFileSync(`${DATA}${file}`, 'utf8')) as Record<
        string,
        { history: Record<string, unknown[]> }
      >;
      const days = Object.values(data).flatMap((u) => Object.values(u.history).filter((d) => d.length));
      const report = await run(file, 'memorybank');
      expect(report.conversations).toBe(days.length);
      const l = checkStructure(report, language);
      expect(l.facts).toEqual({ total: 0, inRaw: 0, rawCoverage: null });
      expect(l.stages.v1!.facts.retention).toBeNull();
    }
  });
});
