import type { Language, Stage } from '@memfade/core';
import type { EvalReport } from './evaluate.js';

const STAGES: Stage[] = ['raw', 'v1', 'v2'];
const LABEL: Record<Stage, string> = { raw: 'raw', v1: 'V1', v2: 'V2' };
const LANGUAGES: Language[] = ['zh', 'en'];
const pct = (value: number | null | undefined) =>
  value === null || value === undefined ? 'n/a' : `${(value * 100).toFixed(1)}%`;

const escapeXml = (text: string) =>
  text.replace(/[<>&"]/g, (ch) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;' })[ch]!);

/**
 * The retention chart: for each stage, one bar per language (share of the gold facts present in
 * the raw text that the stage's text still holds; in a set without gold facts, of the facts the
 * extractor finds in raw). Plain SVG: no browser, no dependency.
 */
export function renderRetentionSvg(
  report: EvalReport,
  title = `Fact retention per stage: ${report.set}`,
): string {
  const width = 560;
  const height = 320;
  const plot = { left: 60, top: 50, right: width - 20, bottom: height - 50 };
  const colors: Record<Language, string> = { zh: '#d9534f', en: '#337ab7' };
  const languages = LANGUAGES.filter((l) => report.byLanguage[l]);
  const gold = languages.some((l) => report.byLanguage[l]!.facts.inRaw);
  const retentionOf = (l: Language, stage: Stage) => {
    const s = report.byLanguage[l]?.stages[stage];
    return gold ? s?.facts.retention : s?.extracted.retention;
  };
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
      const retention = retentionOf(language, stage);
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
      `<text x="${x + 18}" y="${height - 12}">${language} (${gold ? l.facts.inRaw : (l.stages.raw?.extracted.counted ?? 0)} ${gold ? 'gold' : 'extracted'} facts, ${l.conversations} memories)</text>`,
    );
  });
  if (languages.length === 0) {
    out.push(`<text x="${width / 2}" y="${height / 2}" text-anchor="middle">no memories in this set</text>`);
  }
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}
