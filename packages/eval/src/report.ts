import type { Language, Stage, Usage } from '@memfade/core';
import type { EvalReport } from './evaluate.js';
import { MEASURES, type MeasureName } from './measures/types.js';
import type { LanguageSummary, Sample, StageSummary } from './summary.js';

const STAGES: Stage[] = ['raw', 'v1', 'v2'];
const LABEL: Record<Stage, string> = { raw: 'raw', v1: 'V1', v2: 'V2' };
const LANGUAGES: Language[] = ['zh', 'en'];

/** What each measure counts, as the report's rows say it (docs/eval/README.md defines them). */
export const MEASURE_TEXT: Record<MeasureName, string> = {
  invented: 'words nobody said (faithfulness)',
  labels: 'speaker labels in the text or lists',
  fusion: "both speakers' first person fused",
  question: 'a question copied',
  concern: "the user's questions not kept as a statement",
  topic: 'topic entity not named',
  speakers: 'a speaker not named',
  orphans: 'orphan fragments',
  identical: 'V2 identical to V1',
  notShorter: 'V2 not shorter than V1',
  length: 'length outside the configured range',
  time: 'relative date left unanchored',
  emotion: "emotional residue not the user's",
  opening: 'key point 1 = the opening sentence',
  user: "less than half of it the user's words",
  core: "the user's pain (a loss, a worry) not kept",
};

/** Issue 26's targets, as the largest share of memories allowed to fail each measure. */
export const MEASURE_TARGET: Partial<Record<MeasureName, { stage?: 'v1' | 'v2'; max: number }>> = {
  invented: { max: 0 },
  labels: { max: 0 },
  identical: { max: 0 },
  question: { stage: 'v2', max: 0.05 },
  fusion: { max: 0.05 },
  topic: { stage: 'v2', max: 0.2 },
  opening: { max: 0.2 },
  length: { max: 0.05 },
};

const pct = (value: number | null | undefined) =>
  value === null || value === undefined ? 'n/a' : `${(value * 100).toFixed(1)}%`;
const num = (value: number) => String(Math.round(value));
const tokens = (u: Usage) => u.inputTokens + u.outputTokens + u.cacheReadTokens + u.cacheWriteTokens;
const kept = (k: { counted: number; kept: number; retention: number | null }) =>
  k.counted === 0 ? 'n/a' : `${pct(k.retention)} (${k.kept}/${k.counted})`;

/** A markdown table with its columns padded to one width, as the formatter (biome) writes them. */
function table(header: string[], rows: string[][]): string[] {
  const width = (text: string) => [...text].length;
  const widths = header.map((h, i) => Math.max(3, width(h), ...rows.map((r) => width(r[i] ?? ''))));
  const line = (cells: string[]) =>
    `| ${cells.map((c, i) => c + ' '.repeat(widths[i]! - width(c))).join(' | ')} |`;
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)];
}

/** Text inside a table cell or a quote: one line, no pipe to break the table. */
const inline = (text: string) => text.replace(/\s+/g, ' ').replace(/\|/g, '¦').trim();

function targetCell(s: StageSummary): string {
  const t = s.target;
  if (!t) return '';
  const judged = t.within + t.below + t.above;
  return `${pct(judged ? t.within / judged : null)} (${t.within} within, ${t.below} below, ${t.above} above)`;
}

function stagesTable(l: LanguageSummary): string[] {
  const rows = STAGES.flatMap((stage) => {
    const s = l.stages[stage];
    if (!s) return [];
    return [
      [
        LABEL[stage],
        String(s.conversations),
        kept(s.facts),
        kept(s.extracted),
        `${num(s.length.p50)} (${num(s.length.p10)}-${num(s.length.p90)})`,
        pct(s.ratio.p50),
        pct(s.languageFidelity),
        targetCell(s),
        s.retentionWarnings === undefined ? '' : String(s.retentionWarnings),
      ],
    ];
  });
  const header = ['stage', 'memories', 'gold facts kept', 'extracted facts kept', 'length p50 (p10-p90)'];
  return table([...header, 'ratio p50', 'language', 'within configured range', 'retention warnings'], rows);
}

function readerTable(l: LanguageSummary): string[] {
  const cell = (m: MeasureName, stage: 'v1' | 'v2') => {
    const s = l.reader[m]?.[stage];
    return s ? `${pct(s.share)} (${s.failing}/${s.applies})` : '-';
  };
  const rows = MEASURES.filter((m) => l.reader[m]).map((m) => {
    const t = MEASURE_TARGET[m];
    const target = t ? `${t.stage ? `${LABEL[t.stage]} ` : ''}≤ ${t.max * 100}%` : '';
    return [MEASURE_TEXT[m], cell(m, 'v1'), cell(m, 'v2'), target];
  });
  return table(['memories where…', 'V1', 'V2', 'target'], rows);
}

function worstExamples(l: LanguageSummary): string[] {
  const lines: string[] = [];
  for (const m of MEASURES) {
    for (const stage of ['v1', 'v2'] as const) {
      const s = l.reader[m]?.[stage];
      if (!s?.worst.length) continue;
      lines.push(`- **${MEASURE_TEXT[m]} (${LABEL[stage]})**`);
      for (const w of s.worst) {
        const quote = w.quote ? ` «${inline(w.quote)}»` : '';
        lines.push(`  - \`${w.id}\`${quote}${w.note ? ` (${inline(w.note)})` : ''}`);
      }
    }
  }
  return lines;
}

function qaTable(l: LanguageSummary): string[] {
  const rows = STAGES.flatMap((stage) => {
    const qa = l.stages[stage]?.qa;
    if (!qa) return [];
    const categories = Object.entries(qa.byCategory)
      .map(([c, v]) => `${c}: ${pct(v.accuracy)} (${v.correct}/${v.questions})`)
      .join(', ');
    const adv = qa.adversarial;
    const declined = adv.questions ? `${pct(adv.declineRate)} (${adv.declined}/${adv.questions})` : 'n/a';
    return [[LABEL[stage], String(qa.questions), pct(qa.accuracy), categories, declined]];
  });
  return table(['stage', 'questions', 'QA accuracy', 'by category', 'adversarial declined (apart)'], rows);
}

function sample(title: string, s: Sample): string[] {
  const quote = (label: string, text: string | undefined) =>
    text === undefined ? [] : [`> **${label}:** ${inline(text)}`, '>'];
  const lines = [`#### ${title}: \`${s.id}\` (score ${s.score})`, ''];
  lines.push(s.failing.length ? `Fails: ${s.failing.map(inline).join('; ')}.` : 'Fails no check.', '');
  lines.push(...quote('raw', s.raw), ...quote('V1', s.v1), ...quote('V2', s.v2));
  if (lines[lines.length - 1] === '>') lines.pop();
  lines.push('');
  return lines;
}

function languageSection(language: Language, l: LanguageSummary): string[] {
  const lines = [
    `## ${language === 'zh' ? 'Chinese (zh)' : 'English (en)'}: ${l.conversations} memories`,
    '',
  ];
  lines.push(
    l.facts.total === 0
      ? 'No gold facts in this set: retention is that of the facts the extractor finds in raw.'
      : `Gold facts: ${l.facts.total}, of which ${l.facts.inRaw} appear in the raw text ` +
          `(raw coverage ${pct(l.facts.rawCoverage)}); gold retention counts only those.`,
    '',
  );
  lines.push('### What each stage keeps', '', ...stagesTable(l), '');
  lines.push(
    `Configured range: V1 ${l.targets.v1Ratio.min * 100}-${l.targets.v1Ratio.max * 100}% of its input, ` +
      `V2 ${l.targets.v2Length.min}-${l.targets.v2Length.max} characters; memories below the minimum input length are not judged.`,
    '',
  );
  lines.push('### How it reads', '', ...readerTable(l), '');
  const worst = worstExamples(l);
  if (worst.length) lines.push('### Worst examples', '', ...worst, '');
  if (STAGES.some((stage) => l.stages[stage]?.qa)) lines.push('### QA', '', ...qaTable(l), '');
  for (const warning of l.warnings) lines.push(`**Warning:** ${warning}.`, '');
  if (l.samples.best.length) {
    lines.push('### The best and the worst memories', '');
    for (const [i, s] of l.samples.best.entries()) lines.push(...sample(`best ${i + 1}`, s));
    for (const [i, s] of l.samples.worst.entries()) lines.push(...sample(`worst ${i + 1}`, s));
  }
  if (l.failures) lines.push(`Failures: ${l.failures}.`, '');
  return lines;
}

/** One set's report as markdown: its name and the compressor, one section per language, cost, failures. */
export function renderMarkdown(report: EvalReport, title = `memfade eval: ${report.set}`): string {
  const lines: string[] = [`# ${title}`, ''];
  const qa = report.qaModel ? `; QA model: ${report.qaModel}; judge model: ${report.judgeModel}` : '';
  lines.push(
    `Set: ${report.set}. Compressor: ${report.compressor}${qa}; ` +
      `${report.conversations} memories in ${(report.elapsedMs / 1000).toFixed(1)} s.`,
    '',
  );
  if (report.qaModel && report.qaModel === report.judgeModel) {
    lines.push(
      `**Warning:** the same model (${report.qaModel}) answers and judges; set EVAL_JUDGE_MODEL to another model.`,
      '',
    );
  }
  for (const language of LANGUAGES) {
    const l = report.byLanguage[language];
    if (l) lines.push(...languageSection(language, l));
  }
  lines.push('## Cost of this evaluation', '');
  const c = report.cost.compression;
  lines.push(
    `- Compression: ${c.calls} compressor calls, ${tokens(c.usage)} tokens, $${c.costUsd.toFixed(4)}.`,
  );
  if (report.cost.qa) {
    const q = report.cost.qa;
    lines.push(
      `- QA answers and judgements: ${q.calls} calls, ${tokens(q.usage)} tokens, $${q.costUsd.toFixed(4)}.`,
    );
  }
  lines.push('');
  if (report.failures.length) {
    lines.push('## Failures', '');
    for (const f of report.failures.slice(0, 50)) lines.push(`- ${f.id} (${f.stage}): ${inline(f.reason)}`);
    if (report.failures.length > 50)
      lines.push(`- ... and ${report.failures.length - 50} more (report.json)`);
    lines.push('');
  }
  return lines.join('\n');
}

export { renderRetentionSvg } from './report-svg.js';
