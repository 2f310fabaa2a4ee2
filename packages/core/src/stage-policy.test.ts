import { describe, expect, it } from 'vitest';
import { ageDays, dueCutoff, stagePolicy, transitionsDue } from './stage-policy.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const now = new Date('2026-11-22T03:00:00Z');
const aged = (ms: number) => new Date(now.getTime() - ms);
const policy = stagePolicy();

describe('stage policy', () => {
  it('is not due at 2 days 23:59 and due at exactly 3 days', () => {
    expect(transitionsDue('raw', aged(3 * DAY - 60_000), now, policy)).toEqual([]);
    expect(transitionsDue('raw', aged(3 * DAY), now, policy)).toEqual(['v1']);
    expect(ageDays(aged(3 * DAY - 1), now)).toBe(2);
  });

  it('moves v1 to v2 at 7 days, not at 6 days 23:59', () => {
    expect(transitionsDue('v1', aged(7 * DAY - 60_000), now, policy)).toEqual([]);
    expect(transitionsDue('v1', aged(7 * DAY), now, policy)).toEqual(['v2']);
  });

  it('never skips a stage: a raw memory 8 days old needs v1 then v2', () => {
    expect(transitionsDue('raw', aged(8 * DAY), now, policy)).toEqual(['v1', 'v2']);
    expect(transitionsDue('v2', aged(30 * DAY), now, policy)).toEqual([]);
  });

  it('gives the due scan the cutoff that includes exactly the due memories', () => {
    expect(dueCutoff('v1', now, policy).getTime()).toBe(now.getTime() - 3 * DAY);
    expect(dueCutoff('v2', now, stagePolicy({ v1AfterDays: 2, v2AfterDays: 5 })).getTime()).toBe(
      now.getTime() - 5 * DAY,
    );
  });

  it('refuses a policy whose v2 comes before v1', () => {
    expect(() => stagePolicy({ v1AfterDays: 7, v2AfterDays: 3 })).toThrow(/v2AfterDays/);
  });
});
