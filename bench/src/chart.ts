import type { SweepResult } from './run.js';

/** Throughput against concurrency, with the bound min(C/L, ceiling) as a line: the gap shows at a glance. */
export function throughputChart(sweep: SweepResult[], latencyMs: number): string {
  const width = 640;
  const height = 360;
  const pad = 50;
  const maxC = Math.max(...sweep.map((s) => s.concurrency));
  const maxY = Math.max(...sweep.map((s) => Math.max(s.bound, s.perSecond, s.steadyPerSecond))) * 1.1;
  const x = (c: number) => pad + (c / maxC) * (width - 2 * pad);
  const y = (v: number) => height - pad - (v / maxY) * (height - 2 * pad);
  const bound = sweep.map((s) => `${x(s.concurrency)},${y(s.bound)}`).join(' ');
  const measured = sweep.map((s) => `${x(s.concurrency)},${y(s.perSecond)}`).join(' ');
  const steady = sweep.map((s) => `${x(s.concurrency)},${y(s.steadyPerSecond)}`).join(' ');
  const points = sweep
    .map(
      (s) =>
        `<circle cx="${x(s.concurrency)}" cy="${y(s.perSecond)}" r="4" fill="#4a7bd0"><title>C=${s.concurrency}: ${s.perSecond.toFixed(1)}/s</title></circle>`,
    )
    .join('');
  const ticks = sweep
    .map(
      (s) =>
        `<text x="${x(s.concurrency)}" y="${height - pad + 18}" text-anchor="middle" font-size="12">${s.concurrency}</text>`,
    )
    .join('');
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" font-family="sans-serif">
<rect width="100%" height="100%" fill="white"/>
<line x1="${pad}" y1="${height - pad}" x2="${width - pad}" y2="${height - pad}" stroke="#333"/>
<line x1="${pad}" y1="${pad}" x2="${pad}" y2="${height - pad}" stroke="#333"/>
<text x="${width / 2}" y="${height - 10}" text-anchor="middle" font-size="13">worker concurrency C (model latency L = ${latencyMs} ms)</text>
<text x="14" y="${height / 2}" transform="rotate(-90 14 ${height / 2})" text-anchor="middle" font-size="13">memories / s</text>
<text x="${pad}" y="${pad - 8}" font-size="12">max ${maxY.toFixed(0)}/s</text>
<polyline points="${bound}" fill="none" stroke="#999" stroke-dasharray="6 4"/>
<polyline points="${measured}" fill="none" stroke="#4a7bd0" stroke-width="2"/>
<polyline points="${steady}" fill="none" stroke="#3a9a5b" stroke-width="2"/>
${points}${ticks}
<text x="${width - pad}" y="${pad}" text-anchor="end" font-size="12" fill="#999">dashed: min(C/L, L=0 ceiling)</text>
<text x="${width - pad}" y="${pad + 16}" text-anchor="end" font-size="12" fill="#4a7bd0">blue: whole run</text>
<text x="${width - pad}" y="${pad + 32}" text-anchor="end" font-size="12" fill="#3a9a5b">green: steady (10th-90th percentile of job ends)</text>
</svg>
`;
}
