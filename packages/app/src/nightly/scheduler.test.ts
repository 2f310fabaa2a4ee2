import { createLogger } from '@memfade/runtime';
import { describe, expect, it, vi } from 'vitest';
import { nextFireTime, nightlyRunId, parseSchedule, startScheduler } from './scheduler.js';

const logger = createLogger({ level: 'silent' });

async function startAt(
  now: string,
  tz: string,
  existing: string[] = [],
  cron = '0 3 * * *',
  catchUp?: { catchUp: 'never' | 'after-first-run' | 'always'; scheduledBefore: boolean },
) {
  const fired: string[] = [];
  const scheduler = await startScheduler({
    cron,
    tz,
    logger,
    now: () => new Date(now),
    fire: async (runId) => {
      fired.push(runId);
    },
    runExists: async (runId) => existing.includes(runId),
    ...(catchUp && { catchUp: catchUp.catchUp, scheduledBefore: async () => catchUp.scheduledBefore }),
  });
  await scheduler.stop();
  return fired;
}

/** What the clock in `tz` shows at `at`: `2027-03-28 04:00`. */
function local(at: Date, tz: string): string {
  return new Intl.DateTimeFormat('sv-SE', { timeZone: tz, dateStyle: 'short', timeStyle: 'short' }).format(
    at,
  );
}

/** Every fire of `cron` in `tz` whose local day is in 2027, by the function the scheduler arms its timer with. */
function firesIn2027(cron: string, tz: string): Date[] {
  const schedule = parseSchedule(cron, tz);
  const fires: Date[] = [];
  for (
    let at = nextFireTime(schedule, new Date('2026-12-30T00:00:00Z'));
    at < new Date('2028-01-02T00:00:00Z');
    at = nextFireTime(schedule, at)
  )
    if (nightlyRunId(at, tz).startsWith('nightly-2027')) fires.push(at);
  return fires;
}

const daysOf2027 = Array.from({ length: 365 }, (_, i) =>
  new Date(Date.UTC(2027, 0, 1 + i)).toISOString().slice(0, 10),
);

describe('scheduler', () => {
  it('names the run after the day in the configured time zone', () => {
    const at = new Date('2026-11-21T20:00:00Z'); // already the 22nd in Shanghai
    expect(nightlyRunId(at, 'Asia/Shanghai')).toBe('nightly-2026-11-22');
    expect(nightlyRunId(at, 'UTC')).toBe('nightly-2026-11-21');
  });

  // Invariant 11. Each case: zone, cron, local time of an ordinary night, and the DST days: the
  // instant each must fire at, and for the gap the clock a minute before it (the gap's last valid minute).
  it.each([
    {
      tz: 'Europe/Helsinki',
      cron: '0 3 * * *',
      time: '03:00',
      // 28 March: 03:00 EET -> 04:00 EEST, 03:00 does not exist. 31 October: 03:00-03:59 happens twice.
      springForward: { day: '2027-03-28', at: '2027-03-28T01:00:00.000Z', minuteBefore: '02:59' },
      fallBack: { day: '2027-10-31', at: '2027-10-31T00:00:00.000Z' },
    },
    {
      tz: 'America/New_York',
      cron: '30 2 * * *',
      time: '02:30',
      // 14 March: 02:00 EST -> 03:00 EDT. 7 November repeats 01:00-01:59, so 02:30 happens once.
      springForward: { day: '2027-03-14', at: '2027-03-14T07:00:00.000Z', minuteBefore: '01:59' },
      fallBack: { day: '2027-11-07', at: '2027-11-07T07:30:00.000Z' },
    },
    {
      tz: 'Australia/Sydney',
      cron: '30 2 * * *',
      time: '02:30',
      // Southern hemisphere: 3 October skips 02:00-02:59; 4 April repeats it (the first 02:30 is AEDT).
      springForward: { day: '2027-10-03', at: '2027-10-02T16:00:00.000Z', minuteBefore: '01:59' },
      fallBack: { day: '2027-04-04', at: '2027-04-03T15:30:00.000Z' },
    },
  ])('fires exactly once on each local day of 2027 in $tz ($cron), across both DST changes', (zone) => {
    const { tz, springForward, fallBack } = zone;
    const fires = firesIn2027(zone.cron, tz);
    // 365 fires, one per local day, in order: none skipped, none doubled.
    expect(fires.map((at) => nightlyRunId(at, tz))).toEqual(daysOf2027.map((day) => `nightly-${day}`));
    const dst: Record<string, string> = {
      [springForward.day]: springForward.at,
      [fallBack.day]: fallBack.at,
    };
    for (const at of fires) {
      const day = nightlyRunId(at, tz).slice('nightly-'.length);
      if (dst[day]) expect(at.toISOString(), day).toBe(dst[day]);
      else expect(local(at, tz), day).toBe(`${day} ${zone.time}`);
    }
    // The nonexistent time fires at the next valid minute: the minute before it is the gap's eve.
    const gapEnd = new Date(springForward.at);
    expect(local(new Date(gapEnd.getTime() - 60_000), tz)).toBe(
      `${springForward.day} ${springForward.minuteBefore}`,
    );
  });

  it('fires once for several minutes in a gap, and once for each minute of a repeated hour', () => {
    const newYork = parseSchedule('*/15 2 * * *', 'America/New_York');
    // 02:00, 02:15, 02:30 and 02:45 of 14 March do not exist: one fire at 03:00 EDT, then the next night.
    const gap = nextFireTime(newYork, new Date('2027-03-14T05:00:00Z'));
    expect(gap.toISOString()).toBe('2027-03-14T07:00:00.000Z');
    expect(nextFireTime(newYork, gap).toISOString()).toBe('2027-03-15T06:00:00.000Z');
    const helsinki = parseSchedule('*/30 3 * * *', 'Europe/Helsinki');
    // 03:00 and 03:30 of 31 October happen twice (EEST, then EET): each fires on its first occurrence only.
    const first = nextFireTime(helsinki, new Date('2027-10-30T23:00:00Z'));
    const second = nextFireTime(helsinki, first);
    expect([first.toISOString(), second.toISOString()]).toEqual([
      '2027-10-31T00:00:00.000Z',
      '2027-10-31T00:30:00.000Z',
    ]);
    expect(nextFireTime(helsinki, second).toISOString()).toBe('2027-11-01T01:00:00.000Z');
  });

  it("catches up on start when today's 03:00 has passed without a run", async () => {
    expect(await startAt('2026-11-22T05:30:00Z', 'UTC')).toEqual(['nightly-2026-11-22']);
    // 05:30 UTC is 13:30 in Shanghai: its 03:00 has passed too, on its own date.
    expect(await startAt('2026-11-21T20:30:00Z', 'Asia/Shanghai')).toEqual(['nightly-2026-11-22']);
  });

  it('catches up on a spring-forward day, whose fire time does not exist, and once on a fall-back day', async () => {
    // 05:00 EEST on 28 March: the night fired (or should have) at 04:00, the minute after the gap.
    expect(await startAt('2027-03-28T02:00:00Z', 'Europe/Helsinki')).toEqual(['nightly-2027-03-28']);
    expect(await startAt('2027-03-14T12:00:00Z', 'America/New_York', [], '30 2 * * *')).toEqual([
      'nightly-2027-03-14',
    ]);
    // 03:30 EET on 31 October, the second pass through 03:00-03:59: the first 03:00 fired (or was missed).
    expect(await startAt('2027-10-31T01:30:00Z', 'Europe/Helsinki')).toEqual(['nightly-2027-10-31']);
    expect(await startAt('2027-10-31T01:30:00Z', 'Europe/Helsinki', ['nightly-2027-10-31'])).toEqual([]);
  });

  it('CATCH_UP: after-first-run catches up only once a scheduled night has run on the database; never, never', async () => {
    const late = '2026-11-22T05:30:00Z';
    const firstStart = { catchUp: 'after-first-run' as const, scheduledBefore: false };
    expect(await startAt(late, 'UTC', [], '0 3 * * *', firstStart)).toEqual([]);
    expect(await startAt(late, 'UTC', [], '0 3 * * *', { ...firstStart, scheduledBefore: true })).toEqual([
      'nightly-2026-11-22',
    ]);
    expect(await startAt(late, 'UTC', [], '0 3 * * *', { catchUp: 'never', scheduledBefore: true })).toEqual(
      [],
    );
    expect(
      await startAt(late, 'UTC', [], '0 3 * * *', { catchUp: 'always', scheduledBefore: false }),
    ).toEqual(['nightly-2026-11-22']);
  });

  it('does not catch up before the fire time, nor when the run exists', async () => {
    expect(await startAt('2026-11-22T02:59:00Z', 'UTC')).toEqual([]);
    expect(await startAt('2026-11-22T05:30:00Z', 'UTC', ['nightly-2026-11-22'])).toEqual([]);
    // 02:59 EET on 28 March: the gap is still ahead.
    expect(await startAt('2027-03-28T00:59:00Z', 'Europe/Helsinki')).toEqual([]);
  });

  it('the armed timer fires at the computed instant, here the minute after a spring-forward gap', async () => {
    const fireTime = new Date('2027-03-28T01:00:00Z').getTime(); // 04:00 EEST in Helsinki
    const shift = fireTime - 500 - Date.now(); // a clock 500 ms before it
    const clock = () => new Date(Date.now() + shift);
    let scheduler: Awaited<ReturnType<typeof startScheduler>> | undefined;
    const fired = new Promise<{ runId: string; asOf: Date }>((resolve) => {
      void startScheduler({
        cron: '0 3 * * *',
        tz: 'Europe/Helsinki',
        logger,
        now: clock,
        fire: async (runId, asOf) => resolve({ runId, asOf }),
        runExists: async () => false,
      }).then((started) => {
        scheduler = started;
      });
    });
    const { runId, asOf } = await fired;
    await scheduler?.stop();
    expect(runId).toBe('nightly-2027-03-28');
    expect(asOf.getTime()).toBeGreaterThanOrEqual(fireTime);
    expect(asOf.getTime() - fireTime).toBeLessThan(3_000);
  }, 10_000);

  it('the timer path, on a fake clock: one fire a night over 40 days (waits split, DST crossed), none doubled after a sleep', async () => {
    vi.useFakeTimers({ now: new Date('2027-03-01T12:00:00Z') });
    try {
      const fired: { runId: string; at: string }[] = [];
      const scheduler = await startScheduler({
        cron: '0 3 * * *',
        tz: 'Europe/Helsinki',
        logger,
        now: () => new Date(),
        fire: async (runId, asOf) => {
          fired.push({ runId, at: asOf.toISOString() });
        },
        runExists: async () => true,
      });
      await vi.advanceTimersByTimeAsync(40 * 24 * 3_600_000); // past 2027-04-10T12:00Z
      expect(fired.map((f) => f.runId)).toEqual(
        Array.from(
          { length: 40 },
          (_, i) => `nightly-${new Date(Date.UTC(2027, 2, 2 + i)).toISOString().slice(0, 10)}`,
        ),
      );
      expect(fired.find((f) => f.runId === 'nightly-2027-03-28')?.at).toBe('2027-03-28T01:00:00.000Z');
      // The process sleeps through four fire times (the clock jumps, no timer runs): on waking it enqueues today's run only.
      vi.setSystemTime(new Date('2027-04-14T12:00:00Z'));
      await vi.advanceTimersByTimeAsync(3_600_000);
      expect(fired.slice(40).map((f) => f.runId)).toEqual(['nightly-2027-04-14']);
      await scheduler.stop();
    } finally {
      vi.useRealTimers();
    }
  });

  it('enqueues a fired night again when it never started (its job lost), until it starts or the next fire time', async () => {
    vi.useFakeTimers({ now: new Date('2027-05-01T02:59:00Z') });
    try {
      const fired: { runId: string; at: Date }[] = [];
      let lost = (runId: string) => runId === 'nightly-2027-05-01' && fired.length < 3;
      const scheduler = await startScheduler({
        cron: '0 3 * * *',
        tz: 'UTC',
        logger,
        now: () => new Date(),
        fire: async (runId, asOf) => {
          fired.push({ runId, at: asOf });
        },
        runExists: async () => false,
        runStart: async (runId) => ({ kind: lost(runId) ? 'never-started' : 'started' }),
        watchMs: 60_000,
      });
      await vi.advanceTimersByTimeAsync(30 * 60_000);
      // Fired at 03:00, lost twice (looked at each minute), started at the third enqueue: no more.
      expect(fired.map((f) => f.at.toISOString())).toEqual([
        '2027-05-01T03:00:00.000Z',
        '2027-05-01T03:01:00.000Z',
        '2027-05-01T03:02:00.000Z',
      ]);
      // A night that never starts is enqueued again up to the next fire time, then left to it.
      lost = () => true;
      fired.length = 0;
      await vi.advanceTimersByTimeAsync(2 * 24 * 3_600_000);
      const first = fired.filter((f) => f.runId === 'nightly-2027-05-02');
      expect(first.length).toBeGreaterThan(1_000);
      expect(first.at(-1)!.at.getTime()).toBeLessThan(new Date('2027-05-03T03:00:00Z').getTime());
      expect(fired.some((f) => f.runId === 'nightly-2027-05-03')).toBe(true);
      await scheduler.stop();
    } finally {
      vi.useRealTimers();
    }
  });

  it('refuses an invalid cron expression or time zone, naming the variable', async () => {
    const start = (cron: string, tz: string) =>
      startScheduler({
        cron,
        tz,
        logger,
        now: () => new Date(),
        fire: async () => {},
        runExists: async () => false,
      });
    await expect(start('every night', 'UTC')).rejects.toThrow(/SCHEDULE_CRON/);
    await expect(start('30 0 3 * * *', 'UTC')).rejects.toThrow(/SCHEDULE_CRON: .*minute precision/);
    await expect(start('0 3 L * *', 'UTC')).rejects.toThrow(/SCHEDULE_CRON: .*day of month/);
    await expect(start('0 3 * * *', 'Europe/Helsinky')).rejects.toThrow(
      /SCHEDULE_TZ: unknown time zone 'Europe\/Helsinky'/,
    );
  });
});
