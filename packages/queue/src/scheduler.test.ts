import { createLogger } from '@memfade/runtime';
import { describe, expect, it } from 'vitest';
import { nightlyRunId, startScheduler } from './scheduler.js';

const logger = createLogger({ level: 'silent' });

async function startAt(now: string, tz: string, existing: string[] = []) {
  const fired: string[] = [];
  const scheduler = await startScheduler({
    cron: '0 3 * * *',
    tz,
    logger,
    now: () => new Date(now),
    fire: async (runId) => {
      fired.push(runId);
    },
    runExists: async (runId) => existing.includes(runId),
  });
  await scheduler.stop();
  return fired;
}

describe('scheduler', () => {
  it('names the run after the day in the configured time zone', () => {
    const at = new Date('2026-11-21T20:00:00Z'); // already the 22nd in Shanghai
    expect(nightlyRunId(at, 'Asia/Shanghai')).toBe('nightly-2026-11-22');
    expect(nightlyRunId(at, 'UTC')).toBe('nightly-2026-11-21');
  });

  it("catches up on start when today's 03:00 has passed without a run", async () => {
    expect(await startAt('2026-11-22T05:30:00Z', 'UTC')).toEqual(['nightly-2026-11-22']);
    // 05:30 UTC is 13:30 in Shanghai: its 03:00 has passed too, on its own date.
    expect(await startAt('2026-11-21T20:30:00Z', 'Asia/Shanghai')).toEqual(['nightly-2026-11-22']);
  });

  it('does not catch up before the fire time, nor when the run exists', async () => {
    expect(await startAt('2026-11-22T02:59:00Z', 'UTC')).toEqual([]);
    expect(await startAt('2026-11-22T05:30:00Z', 'UTC', ['nightly-2026-11-22'])).toEqual([]);
  });

  it('refuses an invalid cron expression, naming the variable', async () => {
    await expect(
      startScheduler({
        cron: 'every night',
        tz: 'UTC',
        logger,
        now: () => new Date(),
        fire: async () => {},
        runExists: async () => false,
      }),
    ).rejects.toThrow(/SCHEDULE_CRON/);
  });
});
