import type { RunRecord } from '@memfade/app';

type Run = Omit<RunRecord, 'errors'>;

export const escapeHtml = (text: string) =>
  text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!,
  );

/** The chart's size in SVG units; the page scales it to the width it has (at most this). */
export const CHART = { width: 1200, height: 240, left: 56, right: 12, top: 14, bottom: 46 };

/**
 * The least height of a run's failures, in SVG units (about as many pixels at 1,280 px): 2 failed
 * of 1,000 processed is still a mark an operator sees, not a sub-pixel line (issue 28 item 7).
 */
export const MIN_FAILED_HEIGHT = 4;

/** A round axis: the least step of 1, 2 or 5 times a power of ten that covers `max` in 5 ticks at most. */
export function axisScale(max: number): { top: number; step: number } {
  const target = Math.max(1, max);
  for (let magnitude = 1; ; magnitude *= 10)
    for (const step of [magnitude, 2 * magnitude, 5 * magnitude]) {
      const ticks = Math.ceil(target / step);
      if (ticks <= 5) return { top: ticks * step, step };
    }
}

const day = (at: Date) => new Date(at).toISOString().slice(5, 10);
const time = (at: Date) => new Date(at).toISOString().slice(11, 16);

/**
 * An SVG bar chart of memories processed per run, oldest left: what did not fail in blue, failures
 * in red on top (at least MIN_FAILED_HEIGHT tall when there are any), a y axis of memories with
 * round ticks, and the runs' start dates (UTC) under the x axis. Each bar opens the run's errors.
 */
export function runChart(runs: Run[], errorsLink: (runId: string) => string): string {
  const ordered = [...runs].reverse();
  const { width, height, left, right, top, bottom } = CHART;
  const plotWidth = width - left - right;
  const plotHeight = height - top - bottom;
  const base = top + plotHeight;
  const { top: max, step } = axisScale(Math.max(0, ...ordered.map((r) => r.counts.processed)));
  const y = (n: number) => (n / max) * plotHeight;
  const slot = plotWidth / Math.max(1, ordered.length);
  const barWidth = Math.max(3, Math.min(36, slot * 0.7));
  // Date labels need about 44 units: every n-th run is labelled when the runs are packed tighter.
  const labelEvery = Math.ceil(44 / slot);
  const parts: string[] = [];
  for (let tick = 0; tick <= max; tick += step) {
    const at = (base - y(tick)).toFixed(1);
    parts.push(
      `<line x1="${left}" x2="${width - right}" y1="${at}" y2="${at}" stroke="#e3e3e3"/>`,
      `<text x="${left - 6}" y="${at}" text-anchor="end" dominant-baseline="middle">${tick}</text>`,
    );
  }
  ordered.forEach((r, i) => {
    const { processed, failed } = r.counts;
    const center = left + slot * (i + 0.5);
    const x = (center - barWidth / 2).toFixed(1);
    const bad = failed > 0 ? Math.max(MIN_FAILED_HEIGHT, y(failed)) : 0;
    const ok = y(Math.max(0, processed - failed));
    const title = `${r.runId} (${r.trigger}), started ${new Date(r.startedAt).toISOString()}: ${processed} processed, ${failed} failed`;
    parts.push(
      `<a href="${escapeHtml(errorsLink(r.runId))}" class="run-bar" data-run="${escapeHtml(r.runId)}"><title>${escapeHtml(title)}</title>`,
      `<rect class="ok" x="${x}" y="${(base - ok).toFixed(1)}" width="${barWidth.toFixed(1)}" height="${ok.toFixed(1)}" fill="#4a7bd0"/>`,
      failed > 0
        ? `<rect class="failed" x="${x}" y="${(base - ok - bad).toFixed(1)}" width="${barWidth.toFixed(1)}" height="${bad.toFixed(1)}" fill="#d0342c"/>`
        : '',
      '</a>',
    );
    if (i % labelEvery === 0 || i === ordered.length - 1)
      parts.push(
        `<text x="${center.toFixed(1)}" y="${base + 16}" text-anchor="middle">${day(r.startedAt)}</text>`,
        `<text x="${center.toFixed(1)}" y="${base + 30}" text-anchor="middle" fill="#777">${time(r.startedAt)}</text>`,
      );
  });
  parts.push(
    `<line x1="${left}" x2="${left}" y1="${top}" y2="${base}" stroke="#555"/>`,
    `<line x1="${left}" x2="${width - right}" y1="${base}" y2="${base}" stroke="#555"/>`,
    `<text x="14" y="${top + plotHeight / 2}" text-anchor="middle" transform="rotate(-90 14 ${top + plotHeight / 2})">memories</text>`,
    `<text x="${width - right}" y="${height - 2}" text-anchor="end" fill="#777">run start (UTC)</text>`,
  );
  if (ordered.length === 0)
    parts.push(
      `<text x="${left + plotWidth / 2}" y="${top + plotHeight / 2}" text-anchor="middle">no runs yet</text>`,
    );
  return (
    `<svg role="img" aria-label="memories processed per run, failures in red" viewBox="0 0 ${width} ${height}" ` +
    `style="width: 100%; max-width: ${width}px; font-size: 12px">${parts.join('')}</svg>`
  );
}
