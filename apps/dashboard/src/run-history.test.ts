import type { RunRecord } from '@memfade/db';
import { describe, expect, it } from 'vitest';
import { runHistoryPage } from './run-history.js';

describe('run history page', () => {
  it("links each run to its job in Bull Board's nightly-run queue", () => {
    const run = {
      runId: 'nightly-2026-11-22',
      trigger: 'schedule',
      asOf: new Date('2026-11-22T03:00:00Z'),
      startedAt: new Date('2026-11-22T03:00:01Z'),
      users: 1,
      counts: { selected: 1, enqueued: 1, processed: 0, v1: 0, v2: 0, skipped: 0, noop: 0, failed: 0 },
    } as Omit<RunRecord, 'errors'>;
    expect(runHistoryPage([run])).toContain(
      '<a href="/queues/queue/memfade-nightly/nightly-2026-11-22" title="its job in Bull Board">nightly-2026-11-22</a>',
    );
  });
});

describe('run history counts', () => {
  it('shows selected, enqueued and held back, and says when a run was interrupted', () => {
    const run = {
      runId: 'nightly-2026-11-23',
      trigger: 'schedule',
      asOf: new Date('2026-11-23T03:00:00Z'),
      startedAt: new Date('2026-11-23T03:00:01Z'),
      durationMs: 4_000,
      interrupted: true,
      users: 3,
      counts: {
        selected: 153,
        enqueued: 151,
        heldBack: 2,
        processed: 100,
        unprocessed: 51,
        v1: 90,
        v2: 10,
        skipped: 0,
        noop: 0,
        failed: 0,
      },
    } as Omit<RunRecord, 'errors'>;
    const cells = [...runHistoryPage([run]).matchAll(/<td>([^<]*)<\/td>/g)].map((m) => m[1]);
    const headers = [...runHistoryPage([run]).matchAll(/<th>([^<]*)<\/th>/g)].map((m) => m[1]);
    const cell = (header: string) => cells[headers.indexOf(header) - 1];
    expect([cell('selected'), cell('enqueued'), cell('held back'), cell('processed')]).toEqual([
      '153',
      '151',
      '2',
      '100',
    ]);
    expect(cell('duration')).toBe('4.0 s, interrupted: 51 never ran');
  });
});

describe('run history model calls', () => {
  it("shows a batch run's batches and requests", () => {
    const run = {
      runId: 'nightly-2026-11-24',
      trigger: 'schedule',
      asOf: new Date('2026-11-24T03:00:00Z'),
      startedAt: new Date('2026-11-24T03:00:00Z'),
      users: 1,
      counts: { selected: 9, enqueued: 9, processed: 9, v1: 9, v2: 0, skipped: 0, noop: 0, failed: 0 },
      batches: { mode: 'batch', submitted: 2, ended: 2, requests: { succeeded: 9, applied: 9 } },
    } as Omit<RunRecord, 'errors'>;
    expect(runHistoryPage([run])).toContain(
      '<td>batch: batches 2 submitted, 0 in progress, 2 ended; requests 9',
    );
  });
});
