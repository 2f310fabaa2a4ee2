import { fileURLToPath } from 'node:url';
import { OfflineCompressor } from '@memfade/ai';
import type { StagePolicy } from '@memfade/core';
import {
  type EvalReport,
  evaluate,
  HALVES,
  type Half,
  inHalf,
  type LanguageSummary,
  loadDataset,
  MEASURES,
} from '@memfade/eval';
import { type EvalSet, SHARED_SETS } from './eval-speed.js';

/**
 * The offline compressor on every set docs/eval/README.md reports (the five shared sets and this
 * project's two small ones), with the tables that page shows: what fails each reading measure, V1
 * / V2, and what each stage keeps. `pnpm bench:eval-sets` prints them; given the JSON of an earlier
 * run it says what moved, so a change to the compressor is judged on every set at once (a fix that
 * helps one set often costs LoCoMo's V2 its retention margin).
 */

const FIXTURES = fileURLToPath(new URL('../../packages/ai/fixtures/', import.meta.url));

export const ALL_SETS: EvalSet[] = [
  ...SHARED_SETS,
  { format: 'jsonl', file: `${FIXTURES}school-zh.jsonl`, label: 'school zh' },
  { format: 'jsonl', file: `${FIXTURES}health-en.jsonl`, label: 'health en' },
];

export interface SetResult {
  /** The set's label and its half ("LoCoMo check"): each half is a set of its own. */
  label: string;
  half: Half;
  report: EvalReport;
}

export async function evaluateSets(
  sets: EvalSet[],
  policy: StagePolicy,
  compressor = new OfflineCompressor(),
): Promise<SetResult[]> {
  const out: SetResult[] = [];
  for (const set of sets) {
    const conversations = await loadDataset(set.file, set.format);
    // The tune and the check half (packages/eval split.ts): changes are made looking at the tune
    // half, judged on the check half.
    for (const half of HALVES) {
      const label = `${set.label} ${half}`;
      const report = await evaluate(inHalf(conversations, half), { compressor, policy, set: label });
      out.push({ label, half, report });
    }
  }
  return out;
}

/** The one language of a set (every set here has one). */
const summary = (r: SetResult): LanguageSummary => Object.values(r.report.byLanguage)[0]!;

const percent = (share: number) => {
  const text = (100 * share).toFixed(1).replace(/\.0$/, '');
  return text === '0' ? '0' : text;
};

/** "V1 / V2" failing shares of one measure, `-` where it does not apply, "(n)" under the set's size. */
function cell(r: SetResult, measure: (typeof MEASURES)[number]): string {
  const s = summary(r);
  const rows = s.reader[measure];
  if (!rows) return '-';
  let fewer: number | undefined;
  const parts = (['v1', 'v2'] as const).map((stage) => {
    const row = rows[stage];
    if (!row || row.applies === 0) return '-';
    if (row.applies < 10 && row.applies !== s.conversations) fewer = row.applies;
    return percent(row.failing / row.applies);
  });
  return `${parts.join(' / ')}${fewer ? ` (${fewer})` : ''}`;
}

/** docs/eval/README.md's two tables: the reading measures, then what each stage keeps. */
export function setTables(results: SetResult[]): string {
  const head = results.map((r) => `${r.label} ${r.report.conversations}`);
  const measures = MEASURES.map((m) => `| ${m} | ${results.map((r) => cell(r, m)).join(' | ')} |`);
  const keeps = results.map((r) => {
    const { v1, v2 } = summary(r).stages;
    const share = (retention: number | null) => (100 * (retention ?? 0)).toFixed(1);
    const kept = (k: 'facts' | 'extracted') =>
      v1![k].counted
        ? `${share(v1![k].retention)} / ${share(v2![k].retention)} (${v1![k].counted.toLocaleString('en')})`
        : 'no gold facts';
    const t = v2!.target!;
    return (
      `| ${r.label} | ${kept('facts')} | ${kept('extracted')} | ${v2!.length.p50} | ` +
      `${t.within} of ${t.within + t.below + t.above} | ${v1!.retentionWarnings} / ${v2!.retentionWarnings} | ` +
      `${r.report.failures.length} |`
    );
  });
  return [
    `| % failing | ${head.join(' | ')} |`,
    `| --- | ${head.map(() => '---').join(' | ')} |`,
    ...measures,
    '',
    '| set | gold retention % | extracted retention % | V2 length p50 | V2 within range | gate warnings | not written |',
    '| --- | --- | --- | --- | --- | --- | --- |',
    ...keeps,
  ].join('\n');
}

/** Each table cell that differs from an earlier run's, as "row, column: before -> after". */
export function setDiff(before: SetResult[], after: SetResult[]): string[] {
  const tables = (text: string) =>
    text.split('\n\n').map((table) =>
      table
        .split('\n')
        .filter((line) => !line.startsWith('| ---'))
        .map((line) =>
          line
            .split('|')
            .slice(1, -1)
            .map((c) => c.trim()),
        ),
    );
  const [old, now] = [tables(setTables(before)), tables(setTables(after))];
  return now.flatMap((table, t) => {
    const header = table[0]!;
    const earlier = new Map(old[t]!.slice(1).map((row) => [row[0], row]));
    return table.slice(1).flatMap((row) => {
      const was = earlier.get(row[0]);
      return row.flatMap((value, j) =>
        j > 0 && was && was[j] !== value ? [`${row[0]}, ${header[j]}: ${was[j]} -> ${value}`] : [],
      );
    });
  });
}
