import type { RunError, RunRecord } from '@memfade/app';
import { compressJobId, describeRunBatches, QUEUES } from '@memfade/app';
import { escapeHtml, runChart } from './run-chart.js';

type Run = Omit<RunRecord, 'errors'>;

const ratio = (s: { sum: number; n: number } | undefined) => (s?.n ? (s.sum / s.n).toFixed(2) : '-');
const utc = (at: Date) => `${new Date(at).toISOString().replace('T', ' ').slice(0, 16)} UTC`;

/** 4.0 s, 12 min 5 s, 3 h 20 min. */
function took(ms: number): string {
  const seconds = ms / 1000;
  if (seconds < 60) return `${seconds.toFixed(1)} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min ${Math.round(seconds % 60)} s`;
  return `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}

const count = (n: number) => n.toLocaleString('en-US');

/** How long the run took; or that it is still running, or interrupted with memories given no outcome. */
function runState(r: Run): string {
  if (r.durationMs === undefined) return 'running';
  const duration = took(r.durationMs);
  return r.interrupted ? `${duration}, interrupted: ${r.counts.unprocessed ?? 0} never ran` : duration;
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

/** This dashboard's page of a run's errors. */
export const runErrorsLink = (runId: string) => `/runs/${encodeURIComponent(runId)}/errors`;

/** Bull Board's page of a memory's compress job to a stage (kept 20 hours once failed). */
const compressJobLink = (memoryId: string, stage: 'v1' | 'v2') =>
  `${BOARD_PATH}/queue/${encodeURIComponent(QUEUES.compress.name)}/${encodeURIComponent(compressJobId(memoryId, stage))}`;

/** What the page knows besides the runs. */
export interface RunPageOptions {
  /** The configured provider (MEMFADE_PROVIDER): names the offline compressor, which the run record does not. */
  provider?: string;
}

/**
 * How the run called the model, short, and in full for the cell's tooltip. The producer records a
 * run without a batch API as sync "MODEL_MODE=sync or a provider without a batch API", which it
 * also says of the offline compressor (no model at all): with the offline provider configured and
 * no token spent, the run is named after it.
 */
export function modelCalls(r: Run, options: RunPageOptions = {}): { short: string; full: string } {
  const full = describeRunBatches(r);
  const tokens = (['v1', 'v2'] as const).reduce(
    (sum, stage) => sum + (r.tokens?.[stage].inputTokens ?? 0) + (r.tokens?.[stage].outputTokens ?? 0),
    0,
  );
  if (options.provider === 'offline' && r.batches?.mode !== 'batch' && tokens === 0)
    return { short: 'offline compressor', full: 'the offline compressor: no model call' };
  if (r.batches?.mode !== 'batch') return { short: r.batches ? 'sync' : '-', full };
  const applied = r.batches.requests?.applied ?? 0;
  return { short: `batch: ${r.batches.submitted ?? 0} batches, ${applied} results applied`, full };
}

/** Due memories the run left to others, with why, for the "not run" cell and its tooltip. */
function notRun(r: Run): { count: number; why: string } {
  const { heldBack = 0, deferred = 0, inOtherRuns = 0 } = r.counts;
  const overBudget = r.budget?.overBudget ?? 0;
  const why = [
    `${heldBack} held back by failed jobs still kept (memfade retry-failed)`,
    `${inOtherRuns} held by another open run`,
    `${deferred} left for the next run (RUN_MAX_MEMORIES)`,
    `${overBudget} left due: budget reached (NIGHT_BUDGET_*)`,
  ].join('; ');
  return { count: heldBack + deferred + inOtherRuns + overBudget, why };
}

const cell = (text: string | number, title?: string) =>
  `<td${title ? ` title="${escapeHtml(title)}"` : ''}>${escapeHtml(String(text))}</td>`;

const STYLE = `
body { font-family: system-ui, sans-serif; margin: 1.5rem 2rem; color: #222; font-size: 14px; }
table { border-collapse: collapse; margin-top: 1rem; width: 100%; font-size: 13px; }
th, td { padding: .3rem .4rem; border-bottom: 1px solid #ddd; text-align: right; vertical-align: top; }
th { font-weight: 600; background: #f6f6f6; }
td { white-space: nowrap; font-variant-numeric: tabular-nums; }
td.text, th.text { text-align: left; white-space: normal; }
td.run a { white-space: nowrap; }
td.run small { color: #666; white-space: nowrap; }
a.bad { color: #b0221b; font-weight: 600; }
nav a { margin-right: 1rem; }
.legend span { display: inline-block; width: .8rem; height: .8rem; margin: 0 .3rem 0 1rem; vertical-align: -1px; }`;

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>memfade — ${escapeHtml(title)}</title>
<style>${STYLE}</style></head>
<body>
<nav><a href="${BOARD_PATH}">queues (Bull Board)</a><a href="/runs">run history</a><a href="/metrics">metrics</a></nav>
${body}
</body></html>`;
}

/**
 * One row per run, with a chart of the last ones: counts, ratios, tokens, cost, how the model was
 * called, duration. Each run links to its job in Bull Board and to its errors.
 */
export function runHistoryPage(runs: Run[], options: RunPageOptions = {}): string {
  const head: [string, string?][] = [
    ['run', 'text'],
    ['due'],
    ['enqueued'],
    ['not run'],
    ['processed'],
    ['V1 / V2 / skipped'],
    ['failed'],
    ['retention warned / refused'],
    ['ratio V1 / V2'],
    ['tokens in / out'],
    ['cost'],
    ['model calls', 'text'],
    ['duration', 'text'],
  ];
  const rows = runs.map((r) => {
    const tokens = (r.tokens?.v1.inputTokens ?? 0) + (r.tokens?.v2.inputTokens ?? 0);
    const out = (r.tokens?.v1.outputTokens ?? 0) + (r.tokens?.v2.outputTokens ?? 0);
    const cost = (r.cost?.v1 ?? 0) + (r.cost?.v2 ?? 0);
    const skipped = notRun(r);
    const calls = modelCalls(r, options);
    const errors = runErrorsLink(r.runId);
    return [
      `<td class="text run"><a href="${escapeHtml(runJobLink(r.runId))}" title="its job in Bull Board">${escapeHtml(r.runId)}</a>` +
        `<br><small>${escapeHtml(r.trigger)}, ${escapeHtml(utc(r.startedAt))}</small></td>`,
      cell(r.counts.selected),
      cell(r.counts.enqueued),
      cell(skipped.count, skipped.why),
      cell(r.counts.processed),
      cell(`${r.counts.v1} / ${r.counts.v2} / ${r.counts.skipped}`),
      `<td><a href="${escapeHtml(errors)}" class="${r.counts.failed ? 'bad' : ''}" title="the run's errors: memory, stage, reason">${r.counts.failed}</a></td>`,
      // Stages the retention gate let through with a warning / refused (docs/design.md §11).
      cell(`${r.counts.retentionWarned ?? 0} / ${r.counts.retentionRefused ?? 0}`),
      cell(`${ratio(r.ratioSums?.v1)} / ${ratio(r.ratioSums?.v2)}`),
      cell(`${count(tokens)} / ${count(out)}`),
      cell(`$${cost.toFixed(4)}`),
      `<td class="text" title="${escapeHtml(calls.full)}">${escapeHtml(calls.short)}</td>`,
      `<td class="text">${escapeHtml(runState(r))}</td>`,
    ].join('');
  });
  return page(
    'run history',
    `<h1>Run history</h1>
<p class="legend">Memories processed per run, last ${runs.length}; a bar opens the run's errors.
<span style="background:#4a7bd0"></span>processed<span style="background:#d0342c"></span>failed (never thinner than a few pixels)</p>
${runChart(runs, runErrorsLink)}
<table><thead><tr>${head.map(([h, c]) => `<th${c ? ` class="${c}"` : ''}>${h}</th>`).join('')}</tr></thead>
<tbody>
${rows.map((r) => `<tr>${r}</tr>`).join('\n') || `<tr><td class="text" colspan="${head.length}">no runs yet</td></tr>`}
</tbody></table>
<p><small>due: memories the run found due; not run: due memories it left to others (hover for why);
failed: opens the run's errors.</small></p>`,
  );
}

/** How many errors the errors page lists at most (the newest). */
export const ERRORS_LISTED = 500;

/**
 * A run's errors, newest last: memory, stage, reason, when. A compress stage links to the memory's
 * job in Bull Board (where a failed job opens on its error while it is kept).
 */
export function runErrorsPage(run: Run, errors: RunError[], total: number): string {
  const rows = errors.map((e) => {
    const stage = e.stage === 'v1' || e.stage === 'v2' ? e.stage : undefined;
    const memory = stage
      ? `<a href="${escapeHtml(compressJobLink(e.memoryId, stage))}" title="its job in Bull Board">${escapeHtml(e.memoryId)}</a>`
      : escapeHtml(e.memoryId);
    return `<tr><td class="text">${memory}</td><td class="text">${escapeHtml(e.stage)}</td><td class="text reason">${escapeHtml(e.message)}</td><td>${escapeHtml(utc(e.at))}</td></tr>`;
  });
  const shown =
    total > errors.length
      ? `the newest ${errors.length} of ${total} errors`
      : `${total} error${total === 1 ? '' : 's'}`;
  return page(
    `errors of ${run.runId}`,
    `<h1>Errors of run ${escapeHtml(run.runId)}</h1>
<p>${escapeHtml(run.trigger)}, started ${escapeHtml(utc(run.startedAt))}: ${run.counts.processed} processed,
${run.counts.failed} failed; ${shown}, one per memory and stage (a retry that failed again replaced it).
Stage <code>input</code> is bad input: the memory itself must change before it can be compressed.
<code>memfade inspect &lt;memory&gt;</code> shows a memory's last error; <code>memfade retry-failed</code> retries
failed jobs. <a href="${escapeHtml(runJobLink(run.runId))}">The run's job in Bull Board</a>.</p>
<table><thead><tr><th class="text">memory</th><th class="text">stage</th><th class="text">reason</th><th>at</th></tr></thead>
<tbody>
${rows.join('\n') || '<tr><td class="text" colspan="4">no errors</td></tr>'}
</tbody></table>`,
  );
}
