import { describe, expect, it } from 'vitest';
import { describeRunBatches } from './run-batches.js';

const startedAt = new Date('2026-11-22T03:00:00Z');

describe('describeRunBatches', () => {
  it('says sync, and why, for a sync run', () => {
    expect(
      describeRunBatches({ startedAt, batches: { mode: 'sync', reason: 'backfill runs are sync' } }),
    ).toBe('sync (backfill runs are sync)');
    expect(describeRunBatches({ startedAt })).toBe('-');
  });

  it('shows batches in progress, requests by outcome and the time to the first and last result', () => {
    const line = describeRunBatches({
      startedAt,
      batches: {
        mode: 'batch',
        submitted: 5,
        ended: 3,
        requests: { succeeded: 40, errored: 2, applied: 39 },
        firstResultAt: new Date('2026-11-22T03:01:00Z'),
        lastResultAt: new Date('2026-11-22T03:20:00Z'),
        afterDeadline: 'next-night',
      },
    });
    expect(line).toBe(
      'batch: batches 5 submitted, 2 in progress, 3 ended; requests 40 succeeded, 2 errored, 0 expired, ' +
        '0 canceled, 39 applied; results from 60 s to 1200 s after start; deadline passed: what was left went next-night',
    );
  });
});
