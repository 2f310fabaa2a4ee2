/**
 * The Grafana dashboard's panels drawn as one SVG from Prometheus range queries (docs/operations.md
 * "Grafana": Grafana is not in Debian, so the docs' picture is drawn from the Prometheus system
 * test's night instead of screenshotted). Lines only, one colour per series, a legend of the first few.
 */

export interface DrawnSeries {
  legend: string;
  points: [number, number][];
}

export interface DrawnPanel {
  title: string;
  series: DrawnSeries[];
}

const COLOURS = ['#73bf69', '#f2cc0c', '#5794f2', '#ff780a', '#f2495c', '#b877d9', '#8ab8ff', '#fade2a'];
const WIDTH = 560;
const HEIGHT = 230;
const PAD = { left: 58, right: 12, top: 30, bottom: 52 };

const xmlText = (text: string) =>
  text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;');

/** A number short enough for an axis label. */
function short(value: number): string {
  const abs = Math.abs(value);
  if (abs >= 1e6) return `${(value / 1e6).toFixed(1)}M`;
  if (abs >= 1e3) return `${(value / 1e3).toFixed(1)}k`;
  if (abs >= 10 || abs === 0) return value.toFixed(0);
  return value.toPrecision(2);
}

function drawPanel(panel: DrawnPanel, x: number, y: number): string {
  const plotW = WIDTH - PAD.left - PAD.right;
  const plotH = HEIGHT - PAD.top - PAD.bottom;
  const all = panel.series.flatMap((s) => s.points);
  const times = all.map(([t]) => t);
  const values = all.map(([, v]) => v).filter(Number.isFinite);
  const t0 = Math.min(...times);
  const t1 = Math.max(...times, t0 + 1);
  const v0 = Math.min(0, ...values);
  const v1 = Math.max(...values, v0 + 1e-9);
  const px = (t: number) => x + PAD.left + ((t - t0) / (t1 - t0)) * plotW;
  const py = (v: number) => y + PAD.top + plotH - ((v - v0) / (v1 - v0)) * plotH;
  const parts = [
    `<rect x="${x}" y="${y}" width="${WIDTH - 8}" height="${HEIGHT - 8}" rx="4" fill="#181b1f" stroke="#2c3235"/>`,
    `<text x="${x + 10}" y="${y + 19}" fill="#d8d9da" font-size="13" font-weight="600">${xmlText(panel.title)}</text>`,
  ];
  for (const fraction of [0, 0.5, 1]) {
    const value = v0 + (v1 - v0) * fraction;
    parts.push(
      `<line x1="${x + PAD.left}" x2="${x + PAD.left + plotW}" y1="${py(value)}" y2="${py(value)}" stroke="#2c3235"/>`,
      `<text x="${x + PAD.left - 6}" y="${py(value) + 4}" fill="#8e8e8e" font-size="10" text-anchor="end">${short(value)}</text>`,
    );
  }
  panel.series.forEach((series, i) => {
    const colour = COLOURS[i % COLOURS.length];
    const points = series.points.filter(([, v]) => Number.isFinite(v));
    if (points.length === 0) return;
    const path = points.map(([t, v]) => `${px(t).toFixed(1)},${py(v).toFixed(1)}`).join(' ');
    parts.push(
      points.length === 1
        ? `<circle cx="${px(points[0]![0])}" cy="${py(points[0]![1])}" r="2.5" fill="${colour}"/>`
        : `<polyline points="${path}" fill="none" stroke="${colour}" stroke-width="1.6"/>`,
    );
  });
  panel.series.slice(0, 6).forEach((series, i) => {
    const lx = x + PAD.left + (i % 3) * 160;
    const ly = y + HEIGHT - PAD.bottom + 22 + Math.floor(i / 3) * 14;
    parts.push(
      `<rect x="${lx}" y="${ly - 8}" width="10" height="3" fill="${COLOURS[i % COLOURS.length]}"/>`,
      `<text x="${lx + 14}" y="${ly - 3}" fill="#ccccdc" font-size="10">${xmlText(series.legend.slice(0, 26))}</text>`,
    );
  });
  if (all.length === 0)
    parts.push(
      `<text x="${x + WIDTH / 2}" y="${y + HEIGHT / 2}" fill="#8e8e8e" text-anchor="middle">no data</text>`,
    );
  return parts.join('\n');
}

/** The panels in a grid of two columns, as the dashboard lays them out. */
export function drawDashboard(title: string, panels: DrawnPanel[]): string {
  const rows = Math.ceil(panels.length / 2);
  const width = WIDTH * 2 + 8;
  const height = rows * HEIGHT + 44;
  const body = panels.map((panel, i) =>
    drawPanel(panel, 8 + (i % 2) * WIDTH, 40 + Math.floor(i / 2) * HEIGHT),
  );
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="Inter, Helvetica, Arial, sans-serif">`,
    `<title>${xmlText(title)}: ${panels.length} panels</title>`,
    `<rect width="${width}" height="${height}" fill="#111217"/>`,
    `<text x="16" y="27" fill="#d8d9da" font-size="17" font-weight="600">${xmlText(title)}</text>`,
    ...body,
    '</svg>',
    '',
  ].join('\n');
}

/** Grafana's legend format (`{{stage}} {{outcome}}`) filled from a series' labels. */
export function legendOf(format: string | undefined, labels: Record<string, string>): string {
  if (!format) return JSON.stringify(labels);
  return format.replace(/\{\{\s*(\w+)\s*\}\}/g, (_, name: string) => labels[name] ?? '');
}
