import { afterEach, describe, expect, it } from 'vitest';
import { sourceHash } from './format.js';
import { parseMemory } from './parse.js';
import { stagePolicy } from './stage-policy.js';
import { readTime } from './times.js';

const ZONES = ['UTC', 'Asia/Shanghai', 'America/New_York', 'Pacific/Chatham'];
const tz = process.env.TZ;
afterEach(() => {
  process.env.TZ = tz;
});

describe('readTime: a stored time, the same instant in every time zone', () => {
  it.each(ZONES)('in %s', (zone) => {
    process.env.TZ = zone; // Node reads its zone again when TZ changes
    const at = (value: string | number) => readTime(value).toISOString();
    // Without a zone: UTC, never this process's local time.
    expect(at('2026-11-20T10:00:00')).toBe('2026-11-20T10:00:00.000Z');
    expect(at('2026-11-20 10:00:00')).toBe('2026-11-20T10:00:00.000Z');
    expect(at('2026-11-20T10:00')).toBe('2026-11-20T10:00:00.000Z');
    expect(at('2026-11-20T10:00:00.123456')).toBe('2026-11-20T10:00:00.123Z');
    expect(at('2026/11/20 10:00:00')).toBe('2026-11-20T10:00:00.000Z');
    expect(at('Nov 20 2026 10:00:00')).toBe('2026-11-20T10:00:00.000Z');
    // A time that does not exist in New York (spring forward) is still that wall time in UTC.
    expect(at('2027-03-14T02:30:00')).toBe('2027-03-14T02:30:00.000Z');
    // With a zone, or an ISO date alone, or a number: as written.
    expect(at('2026-11-20T10:00:00Z')).toBe('2026-11-20T10:00:00.000Z');
    expect(at('2026-11-20T18:00:00+08:00')).toBe('2026-11-20T10:00:00.000Z');
    expect(at('2026-11-20T05:00:00-0500')).toBe('2026-11-20T10:00:00.000Z');
    expect(at('Fri Nov 20 2026 18:00:00 GMT+0800 (China Standard Time)')).toBe('2026-11-20T10:00:00.000Z');
    expect(at('2026-11-20')).toBe('2026-11-20T00:00:00.000Z');
    expect(at(1_795_168_800_000)).toBe('2026-11-20T10:00:00.000Z');
    expect(Number.isNaN(readTime('at noon').getTime())).toBe(true);
  });

  it('gives a memory with zoneless turn times one source hash in every zone (a sweep elsewhere sees no edit)', () => {
    const doc = {
      memoryId: 'm1',
      userId: 'u1',
      partnerId: 'p1',
      content: { raw: [{ role: 'user', text: 'I went to Paris.', at: '2026-11-20 10:00:00' }] },
      meta: { createdAt: new Date('2026-11-20T10:00:00Z'), compressionStage: 'raw' },
      rev: 0,
    };
    const hashes = ZONES.map((zone) => {
      process.env.TZ = zone;
      return sourceHash(parseMemory(doc, stagePolicy({}), new Date('2026-11-25T00:00:00Z')));
    });
    expect(new Set(hashes).size).toBe(1);
  });
});
