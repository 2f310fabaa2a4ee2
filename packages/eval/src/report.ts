import type { Language, Stage, Usage } from '@memfade/core';
import type { EvalReport, LanguageSummary, StageSummary } from './evaluate.js';

const STAGES: Stage[] = ['raw', 'v1', 'v2'];
const LABEL: Record<Stage, string> = { raw: 'raw', v1: 'V1', v2: 'V2' };
const LANGUAGES: Language[] = ['zh', 'en'];

const pct = (value: number | null | undefined) =>
  value === null || value === undefined ? 'n/a' : `${(value * 100).toFixed(1)}%`;
const num = (value: number) => String(Math.round(value));
const tokens = (u: Usage) => u.inputTokens + u.outputTokens + u.cacheReadTokens + u.cacheWriteTokens;

/** A markdown table with its columns padded to one width, as the formatter (biome) writes them. */
function table(header: string[], rows: string[][]): string[] {
  const width = (text: string) => [...text].length;
  const widths = header.map((h, i) => Math.max(3, width(h), ...rows.map((r) => width(r[i] ?? ''))));
  const line = (cells: string[]) =>
    `| ${cells.map((c, i) => c + ' '.repeat(widths[i]! - width(c))).join(' | ')} |`;
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)];
}

function targetCell(stage: Stage, s: StageSummary, l: LanguageSummary): string {
  if (!s.target) return '';
  const range =
    stage === 'v1'
      ? `${l.targets.v1Ratio.min * 100}-${l.targets.v1Ratio.max * 100}% of input`
      : `${l.targets.v2Length.min}-${l.targets.v2Length.max} chars`;
  const t = s.target;
  return `${range}: ${t.within} within, ${t.below} below, ${t.above} above, ${t.skipped} too short to compress`;
}

/** The report as markdown: one table per language, QA and cost when measured, failures. */
export function renderMarkdown(report: EvalReport, title = 'memfade eval'): string {
  const lines: string[] = [`# ${title}`, ''];
  lines.push(
    `Compressor: ${report.compressor}${report.qaModel ? `; QA and judge model: ${report.qaModel}` : ''}; ` +
      `${report.conversations} conversations in ${(report.elapsedMs / 1000).toFixed(1)} s.`,
    '',
  );
  for (const language of LANGUAGES) {
    const l = report.byLanguage[language];
    if (!l) continue;
    lines.push(
      `## ${language === 'zh' ? 'Chinese (zh)' : 'English (en)'}: ${l.conversations} conversations`,
      '',
    );
    lines.push(
      l.facts.total === 0
        ? 'No gold facts in this set: retention is not measured.'
        : `Gold facts: ${l.facts.total}, of which ${l.facts.inRaw} appear in the raw text ` +
            `(raw coverage ${pct(l.facts.rawCoverage)}); retention counts only those.`,
      '',
    );
    const rows: string[][] = [];
    for (const stage of STAGES) {
      const s = l.stages[stage];
      if (!s) continue;
      const retention =
        s.facts.counted === 0 ? 'n/a' : `${pct(s.facts.retention)} (${s.facts.kept}/${s.facts.counted})`;
      rows.push([
        LABEL[stage],
        String(s.conversations),
        retention,
        `${num(s.length.p50)} (${num(s.length.p10)}-${num(s.length.p90)})`,
        pct(s.ratio.p50),
        pct(s.languageFidelity),
        targetCell(stage, s, l),
      ]);
    }
    const header = ['stage', 'conversations', 'fact retention', 'length p50 (p10-p90)', 'ratio to raw p50'];
    lines.push(...table([...header, 'language fidelity', 'target'], rows), '');
    if (STAGES.some((stage) => l.stages[stage]?.qa)) {
      const qaRows: string[][] = [];
      for (const stage of STAGES) {
        const qa = l.stages[stage]?.qa;
        if (!qa) continue;
        const categories = Object.entries(qa.byCategory)
          .map(([c, v]) => `${c}: ${pct(v.accuracy)} (${v.correct}/${v.questions})`)
          .join(', ');
        qaRows.push([LABEL[stage], String(qa.questions), pct(qa.accuracy), categories]);
      }
      lines.push(...table(['stage', 'questions', 'QA accuracy', 'by category'], qaRows), '');
    }
    if (l.failures) lines.push(`Failures: ${l.failures}.`, '');
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
    for (const f of report.failures.slice(0, 50)) lines.push(`- ${f.id} (${f.stage}): ${f.reason}`);
    if (report.failures.length > 50)
      lines.push(`- ... and ${report.failures.length - 50} more (report.json)`);
    lines.push('');
  }
  return lines.join('\n');
}

const escapeXml = (text: string) =>
  text.replace(/[<>&"]/g, (ch) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;' })[ch]!);

/**
 * The retention chart: for each stage, one bar per language (share of the gold facts present in
 * the raw text that the stage's text still holds). Plain SVG: no browser, no dependency.
 */
export function renderRetentionSvg(report: EvalReport, title = 'Fact retention per stage'): string {
  const width = 560;
  const height = 320;
  const plot = { left: 60, top: 50, right: width - 20, bottom: height - 50 };
  const colors: Record<Language, string> = { zh: '#d9534f', en: '#337ab7' };
  const languages = LANGUAGES.filter((l) => report.byLanguage[l]?.facts.inRaw);
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="12">`,
    `<title>${escapeXml(title)}</title>`,
    `<rect width="${width}" height="${height}" fill="#ffffff"/>`,
    `<text x="${width / 2}" y="24" text-anchor="middle" font-size="15">${escapeXml(title)}</text>`,
  ];
  const y = (share: number) => plot.bottom - share * (plot.bottom - plot.top);
  for (const tick of [0, 0.25, 0.5, 0.75, 1]) {
    out.push(
      `<line x1="${plot.left}" x2="${plot.right}" y1="${y(tick)}" y2="${y(tick)}" stroke="#dddddd"/>`,
      `<text x="${plot.left - 6}" y="${y(tick) + 4}" text-anchor="end">${tick * 100}%</text>`,
    );
  }
  const group = (plot.right - plot.left) / STAGES.length;
  const bar = Math.min(60, (group * 0.7) / Math.max(1, languages.length));
  STAGES.forEach((stage, i) => {
    const center = plot.left + group * (i + 0.5);
    out.push(`<text x="${center}" y="${plot.bottom + 18}" text-anchor="middle">${LABEL[stage]}</text>`);
    languages.forEach((language, j) => {
      const retention = report.byLanguage[language]?.stages[stage]?.facts.retention;
      if (retention === null || retention === undefined) return;
      const x = center - (bar * languages.length) / 2 + j * bar;
      out.push(
        `<rect class="bar" data-stage="${stage}" data-language="${language}" x="${x.toFixed(1)}" y="${y(retention).toFixed(1)}" ` +
          `width="${(bar - 4).toFixed(1)}" height="${(plot.bottom - y(retention)).toFixed(1)}" fill="${colors[language]}"/>`,
        `<text x="${(x + (bar - 4) / 2).toFixed(1)}" y="${(y(retention) - 4).toFixed(1)}" text-anchor="middle">${pct(retention)}</text>`,
      );
    });
  });
  out.push(
    `<line x1="${plot.left}" x2="${plot.right}" y1="${plot.bottom}" y2="${plot.bottom}" stroke="#333333"/>`,
  );
  languages.forEach((language, j) => {
    const x = plot.left + j * 220;
    const l = report.byLanguage[language]!;
    out.push(
      `<rect x="${x}" y="${height - 22}" width="12" height="12" fill="${colors[language]}"/>`,
      `<text x="${x + 18}" y="${height - 12}">${language} (${l.facts.inRaw} facts, ${l.conversations} conv.)</text>`,
    );
  });
  if (languages.length === 0) {
    out.push(
      `<text x="${width / 2}" y="${height / 2}" text-anchor="middle">no gold facts in this set</text>`,
    );
  }
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}
