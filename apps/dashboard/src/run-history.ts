import type { RunRecord } from '@memfade/db';
import { describeRunBatches, QUEUES } from '@memfade/queue';

type Run = Omit<RunRecord, 'errors'>;

const escapeHtml = (text: string) =>
  text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!,
  );

const ratio = (s: { sum: number; n: number } | undefined) => (s?.n ? (s.sum / s.n).toFixed(2) : '-');

/** An SVG bar chart of memories compressed per run (oldest left), failures stacked in red. */
function chart(runs: Run[]): string {
  const ordered = [...runs].reverse();
  const width = 720;
  const height = 160;
  const max = Math.max(1, ...ordered.map((r) => r.counts.processed));
  const step = width / Math.max(1, ordered.length);
  const bars = ordered
    .map((r, i) => {
      const ok = ((r.counts.processed - r.counts.failed) / max) * (height - 20);
      const bad = (r.counts.failed / max) * (height - 20);
      const x = i * step + 2;
      const w = Math.max(2, step - 4);
      return `<rect x="${x}" y="${height - ok}" width="${w}" height="${ok}" fill="#4a7bd0"><title>${escapeHtml(r.runId)}: ${r.counts.processed} memories</title></rect><rect x="${x}" y="${height - ok - bad}" width="${w}" height="${bad}" fill="#d04a4a"/>`;
    })
    .join('');
  return `<svg role="img" aria-label="memories per run" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">${bars}</svg>`;
}

/** How long the run took; or that it is still running, or was interrupted with jobs never ended. */
function runState(r: Run): string {
  if (r.durationMs === undefined) return 'running';
  const took = `${(r.durationMs / 1000).toFixed(1)} s`;
  return r.interrupted ? `${took}, interrupted: ${r.counts.unprocessed ?? 0} never ran` : took;
}

/** Where Bull Board is mounted (app.ts). */
export const BOARD_PATH = '/queues';

/**
 * Bull Board's page of a run's nightly-run job (the job id is the run id): its progress, attempts,
 * failure and return value (selected, enqueued); the run's compress jobs are in the compress queue,
 * named compress-v1/compress-v2 with ids `<memoryId>.<stage>`.
 */
export const runJobLink = (runId: string) =>
  `${BOARD_PATH}/queue/${encodeURIComponent(QUEUES.nightly.name)}/${encodeURIComponent(runId)}`;

/** One row per run: trigger, counts, ratios, tokens, cost, duration; with a chart of the last 30. */
export function runHistoryPage(runs: Run[]): string {
  const rows = runs
    .map((r) => {
      const run = `<a href="${escapeHtml(runJobLink(r.runId))}" title="its job in Bull Board">${escapeHtml(r.runId)}</a>`;
      const tokens = (r.tokens?.v1.inputTokens ?? 0) + (r.tokens?.v2.inputTokens ?? 0);
      const out = (r.tokens?.v1.outputTokens ?? 0) + (r.tokens?.v2.outputTokens ?? 0);
      const cost = (r.cost?.v1 ?? 0) + (r.cost?.v2 ?? 0);
      const cells = [
        r.trigger,
        new Date(r.startedAt).toISOString().replace('T', ' ').slice(0, 19),
        r.counts.selected,
        r.counts.enqueued,
        // Due memories whose failed job is still kept in the queue (retry-failed puts them back).
        r.counts.heldBack ?? 0,
        r.counts.processed,
        r.counts.v1,
        r.counts.v2,
        r.counts.skipped,
        r.counts.failed,
        // Stages the retention gate let through with a warning / refused (DESIGN section 11).
        `${r.counts.retentionWarned ?? 0} / ${r.counts.retentionRefused ?? 0}`,
        // Due memories a RUN_MAX_MEMORIES cap left for the next run.
        r.counts.deferred ?? 0,
        ratio(r.ratioSums?.v1),
        ratio(r.ratioSums?.v2),
        `${tokens} / ${out}`,
        `$${cost.toFixed(4)}`,
        // Sync or batch (README "Batch mode"): batches and requests by outcome.
        describeRunBatches(r),
        runState(r),
      ];
      return `<tr><td>${run}</td>${cells.map((c) => `<td>${escapeHtml(String(c))}</td>`).join('')}</tr>`;
    })
    .join('\n');
  const head = [
    'run',
    'trigger',
    'started (UTC)',
    'selected',
    'enqueued',
    'held back',
    'processed',
    'V1',
    'V2',
    'skipped',
    'failed',
    'retention warned / refused',
    'left for next run',
    'V1 ratio',
    'V2 ratio',
    'tokens in / out',
    'cost',
    'model calls',
    'duration',
  ];
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>memfade — run history</title>
<style>
body { font-family: system-ui, sans-serif; margin: 2rem; color: #222; }
table { border-collapse: collapse; margin-top: 1rem; }
th, td { padding: .3rem .6rem; border-bottom: 1px solid #ddd; text-align: right; }
th:first-child, td:first-child, th:nth-child(2), td:nth-child(2) { text-align: left; }
nav a { margin-right: 1rem; }
</style></head>
<body>
<nav><a href="${BOARD_PATH}">queues (Bull Board)</a><a href="/runs">run history</a><a href="/metrics">metrics</a></nav>
<h1>Run history</h1>
<p>Memories compressed per run, last ${runs.length} (failures in red):</p>
${chart(runs)}
<table><thead><tr>${head.map((h) => `<th>${h}</th>`).join('')}</tr></thead>
<tbody>
${rows || `<tr><td colspan="${head.length}">no runs yet</td></tr>`}
</tbody></table>
</body></html>`;
}
