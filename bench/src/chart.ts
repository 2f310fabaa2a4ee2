import type { SweepResult } from './sweep-result.js';

const WIDTH = 640;
const HEIGHT = 400;
/** Plot area margins: the legend sits above the plot, never on a line. */
const LEFT = 60;
const RIGHT = 30;
const TOP = 80;
const BOTTOM = 50;

const polyline = (points: [number, number][], style: string) =>
  `<polyline points="${points.map(([x, y]) => `${x},${y}`).join(' ')}" fill="none" ${style}/>`;

/** Throughput against concurrency, with the bound min(C/L, ceiling) as a line: the gap shows at a glance. */
export function throughputChart(sweep: SweepResult[], latencyMs: number): string {
  const maxC = Math.max(...sweep.map((s) => s.concurrency));
  const maxY = Math.max(...sweep.map((s) => Math.max(s.bound, s.perSecond, s.steadyPerSecond))) * 1.1;
  const x = (c: number) => LEFT + (c / maxC) * (WIDTH - LEFT - RIGHT);
  const y = (v: number) => HEIGHT - BOTTOM - (v / maxY) * (HEIGHT - TOP - BOTTOM);
  const yTicks = [0, 0.25, 0.5, 0.75, 1]
    .map((share) => share * maxY)
    .map(
      (v) =>
        `<line x1="${LEFT - 4}" y1="${y(v)}" x2="${WIDTH - RIGHT}" y2="${y(v)}" stroke="#eee"/>` +
        `<text x="${LEFT - 8}" y="${y(v) + 4}" text-anchor="end" font-size="11">${v.toFixed(0)}</text>`,
    )
    .join('');
  const xTicks = sweep
    .map(
      (s) =>
        `<text x="${x(s.concurrency)}" y="${HEIGHT - BOTTOM + 18}" text-anchor="middle" font-size="12">${s.concurrency}</text>`,
    )
    .join('');
  const points = sweep
    .map(
      (s) =>
        `<circle cx="${x(s.concurrency)}" cy="${y(s.perSecond)}" r="4" fill="#4a7bd0"><title>C=${s.concurrency}: ${s.perSecond.toFixed(1)}/s of ${s.bound.toFixed(1)}/s (${((100 * s.perSecond) / s.bound).toFixed(0)}%)</title></circle>` +
        `<text x="${x(s.concurrency)}" y="${y(s.perSecond) + 18}" text-anchor="middle" font-size="11" fill="#4a7bd0">${((100 * s.perSecond) / s.bound).toFixed(0)}%</text>`,
    )
    .join('');
  const legend = [
    ['#777', 'dashed: bound min(C/L, L = 0 ceiling)'],
    ['#4a7bd0', 'blue: whole run (labels: share of the bound)'],
    ['#3a9a5b', 'green: steady (10th-90th percentile of job ends)'],
  ]
    .map(
      ([color, text], i) =>
        `<text x="${LEFT}" y="${22 + i * 16}" font-size="12" fill="${color}">${text}</text>`,
    )
    .join('');
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}" font-family="sans-serif">
<rect width="100%" height="100%" fill="white"/>
${legend}
${yTicks}
<line x1="${LEFT}" y1="${HEIGHT - BOTTOM}" x2="${WIDTH - RIGHT}" y2="${HEIGHT - BOTTOM}" stroke="#333"/>
<line x1="${LEFT}" y1="${TOP}" x2="${LEFT}" y2="${HEIGHT - BOTTOM}" stroke="#333"/>
<text x="${(LEFT + WIDTH - RIGHT) / 2}" y="${HEIGHT - 12}" text-anchor="middle" font-size="13">worker concurrency C (model latency L = ${latencyMs} ms)</text>
<text x="16" y="${(TOP + HEIGHT - BOTTOM) / 2}" transform="rotate(-90 16 ${(TOP + HEIGHT - BOTTOM) / 2})" text-anchor="middle" font-size="13">memories / s</text>
${polyline(
  sweep.map((s) => [x(s.concurrency), y(s.bound)]),
  'stroke="#777" stroke-dasharray="6 4"',
)}
${polyline(
  sweep.map((s) => [x(s.concurrency), y(s.perSecond)]),
  'stroke="#4a7bd0" stroke-width="2"',
)}
${polyline(
  sweep.map((s) => [x(s.concurrency), y(s.steadyPerSecond)]),
  'stroke="#3a9a5b" stroke-width="2"',
)}
${points}${xTicks}
</svg>
`;
}
