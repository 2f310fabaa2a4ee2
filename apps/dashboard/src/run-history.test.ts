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
