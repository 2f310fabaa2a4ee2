import type { RunRecord } from '@memfade/db';
import { describe, expect, it } from 'vitest';
import { axisScale, CHART, MIN_FAILED_HEIGHT, runChart } from './run-chart.js';
import { modelCalls, runErrorsPage, runHistoryPage } from './run-history.js';

type Run = Omit<RunRecord, 'errors'>;

const ZERO = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };

function run(runId: string, counts: Partial<Run['counts']>, extra: Partial<Run> = {}): Run {
  return {
    runId,
    trigger: 'schedule',
    asOf: new Date('2026-11-22T03:00:00Z'),
    startedAt: new Date('2026-11-22T03:00:01Z'),
    durationMs: 4_000,
    users: 1,
    counts: {
      selected: 0,
      enqueued: 0,
      processed: 0,
      v1: 0,
      v2: 0,
      skipped: 0,
      noop: 0,
      failed: 0,
      ...counts,
    },
    tokens: { v1: ZERO, v2: ZERO },
    cost: { v1: 0, v2: 0 },
    ratioSums: { v1: { sum: 0, n: 0 }, v2: { sum: 0, n: 0 } },
    ...extra,
  } as Run;
}

/** The cells of the page's first table row, by header. */
function row(html: string): (header: string) => string {
  const headers = [...html.matchAll(/<th[^>]*>([^<]*)<\/th>/g)].map((m) => m[1]!);
  const body = html.slice(html.indexOf('<tbody>'));
  const cells = [...body.split('</tr>')[0]!.matchAll(/<td[^>]*>(.*?)<\/td>/g)].map((m) =>
    m[1]!.replace(/<[^>]+>/g, ' ').trim(),
  );
  return (header) => cells[headers.indexOf(header)]!;
}

describe('run history page', () => {
  it("links each run to its job in Bull Board's nightly-run queue and to its errors", () => {
    const html = runHistoryPage([
      run('nightly-2026-11-22', { selected: 1, enqueued: 1, failed: 1, processed: 1 }),
    ]);
    expect(html).toContain(
      '<a href="/queues/queue/memfade-nightly/nightly-2026-11-22" title="its job in Bull Board">nightly-2026-11-22</a>',
    );
    expect(html).toMatch(/<a href="\/runs\/nightly-2026-11-22\/errors" class="bad"[^>]*>1<\/a>/);
  });

  it('shows due, enqueued, what it left to others (with why), processed, and an interrupted run', () => {
    const cell = row(
      runHistoryPage([
        run(
          'nightly-2026-11-23',
          { selected: 153, enqueued: 151, heldBack: 2, processed: 100, unprocessed: 51, v1: 90, v2: 10 },
          { interrupted: true },
        ),
      ]),
    );
    expect([cell('due'), cell('enqueued'), cell('not run'), cell('processed')]).toEqual([
      '153',
      '151',
      '2',
      '100',
    ]);
    expect(cell('V1 / V2 / skipped')).toBe('90 / 10 / 0');
    expect(cell('duration')).toBe('4.0 s, interrupted: 51 never ran');
    expect(runHistoryPage([run('x', { heldBack: 2 })])).toContain(
      'title="2 held back by failed jobs still kept (memfade retry-failed); 0 held by another open run; 0 left for the next run (RUN_MAX_MEMORIES); 0 left due: budget reached (NIGHT_BUDGET_*)"',
    );
  });

  it('counts the memories a reached night budget left due among those not run, and says why', () => {
    const budget = { usd: 0.9, tokens: 0, limitUsd: 1, reachedAt: new Date(), overBudget: 7 };
    const cell = row(runHistoryPage([run('y', { selected: 10, enqueued: 10, processed: 10 }, { budget })]));
    expect(cell('not run')).toBe('7');
    expect(runHistoryPage([run('y', {}, { budget })])).toContain(
      '7 left due: budget reached (NIGHT_BUDGET_*)',
    );
  });

  it('names the offline compressor instead of "MODEL_MODE=sync or a provider without a batch API"', () => {
    const offline = run(
      'nightly-2026-11-24',
      { processed: 9, v1: 9 },
      { batches: { mode: 'sync', reason: 'MODEL_MODE=sync or a provider without a batch API' } },
    );
    expect(row(runHistoryPage([offline], { provider: 'offline' }))('model calls')).toBe('offline compressor');
    // A model run (it spent tokens) says sync, with the producer's reason in the tooltip.
    const model = { ...offline, tokens: { v1: { ...ZERO, inputTokens: 900, outputTokens: 90 }, v2: ZERO } };
    expect(modelCalls(model, { provider: 'anthropic' })).toEqual({
      short: 'sync',
      full: 'sync (MODEL_MODE=sync or a provider without a batch API)',
    });
  });

  it("shows a batch run's batches short, with the whole description in the tooltip", () => {
    const batch = run(
      'nightly-2026-11-25',
      { selected: 9, enqueued: 9, processed: 9, v1: 9 },
      { batches: { mode: 'batch', submitted: 2, ended: 2, requests: { succeeded: 9, applied: 9 } } },
    );
    const html = runHistoryPage([batch]);
    expect(row(html)('model calls')).toBe('batch: 2 batches, 9 results applied');
    expect(html).toContain('title="batch: batches 2 submitted, 0 in progress, 2 ended; requests 9 succeeded');
  });
});

describe('run history chart', () => {
  const bars = (svg: string) =>
    [...svg.matchAll(/<a [^>]*data-run="([^"]+)"[^>]*>(.*?)<\/a>/g)].map((m) => ({
      runId: m[1]!,
      ok: Number(/class="ok"[^>]* height="([\d.]+)"/.exec(m[2]!)?.[1] ?? 0),
      failed: Number(/class="failed"[^>]* height="([\d.]+)"/.exec(m[2]!)?.[1] ?? 0),
    }));

  it('draws failures at any ratio at least MIN_FAILED_HEIGHT tall, and none where nothing failed', () => {
    const svg = runChart(
      [
        run('big', { processed: 1_000, failed: 2 }),
        run('small', { processed: 9, failed: 2 }),
        run('clean', { processed: 500 }),
      ],
      (id) => `/runs/${id}/errors`,
    );
    const drawn = Object.fromEntries(bars(svg).map((b) => [b.runId, b]));
    // 2 of 1,000 on a 1,000-tall axis would be 0.3 units: a sub-pixel line.
    expect(drawn.big!.failed).toBe(MIN_FAILED_HEIGHT);
    expect(drawn.small!.failed).toBe(MIN_FAILED_HEIGHT);
    expect(drawn.clean!.failed).toBe(0);
    // Proportional where the failures are many: 500 failed of 1,000 is half the blue bar's height.
    const half = bars(runChart([run('half', { processed: 1_000, failed: 500 })], (id) => id))[0]!;
    expect(half.failed).toBeCloseTo(half.ok, 1);
  });

  it('has a y axis with round ticks and the runs’ dates under the x axis, oldest left', () => {
    const svg = runChart(
      [
        run('newer', { processed: 37 }, { startedAt: new Date('2026-11-23T03:00:00Z') }),
        run('older', { processed: 12 }, { startedAt: new Date('2026-11-22T03:00:00Z') }),
      ],
      (id) => id,
    );
    const labels = [...svg.matchAll(/<text[^>]*>([^<]+)<\/text>/g)].map((m) => m[1]!);
    expect(labels).toEqual(
      expect.arrayContaining(['0', '10', '20', '30', '40', 'memories', 'run start (UTC)']),
    );
    expect(labels.indexOf('11-22')).toBeLessThan(labels.indexOf('11-23'));
    expect(labels).toContain('03:00');
    expect(svg).toContain(`viewBox="0 0 ${CHART.width} ${CHART.height}"`);
  });

  it('rounds the axis up to 1, 2 or 5 times a power of ten, at most five ticks', () => {
    expect(axisScale(0)).toEqual({ top: 1, step: 1 });
    expect(axisScale(9)).toEqual({ top: 10, step: 2 });
    expect(axisScale(37)).toEqual({ top: 40, step: 10 });
    expect(axisScale(1_000)).toEqual({ top: 1_000, step: 200 });
    expect(axisScale(1_001)).toEqual({ top: 1_500, step: 500 });
  });
});

describe("a run's errors page", () => {
  it('lists memory, stage and reason, escaped, links compress stages to their job, and says when it shows only the newest', () => {
    const html = runErrorsPage(
      run('nightly-2026-11-26', { processed: 9, failed: 2 }),
      [
        {
          memoryId: 'm-1',
          stage: 'input',
          message: 'content.raw: expected a string or a list of <turns>',
          at: new Date(),
        },
        { memoryId: 'm-2', stage: 'v1', message: 'the model refused', at: new Date() },
      ],
      7,
    );
    expect(html).toContain('<h1>Errors of run nightly-2026-11-26</h1>');
    expect(html).toContain('content.raw: expected a string or a list of &lt;turns&gt;');
    expect(html).toContain(
      '<a href="/queues/queue/memfade-compress/m-2.v1" title="its job in Bull Board">m-2</a>',
    );
    expect(html).toContain('the newest 2 of 7 errors');
  });
});
