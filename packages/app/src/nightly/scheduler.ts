import { type ParsedFields, parse } from 'node-cron';
import type { Logger } from 'pino';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
/**
 * The longest single wait. setTimeout holds at most 2^31-1 ms (~24.8 days); waking every hour to
 * compare the clock again also bounds how late a wall-clock jump (NTP, a suspended VM) makes a fire.
 */
const MAX_WAIT_MS = HOUR;
/** As far ahead as node-cron looks: an expression like `0 3 29 2 1` (29 February, a Monday) recurs rarely. */
const MAX_DAYS_AHEAD = 366 * 100;
/** How often a fired night is looked at until a producer has started it (SchedulerOptions.runStart). */
const WATCH_MS = 30_000;

/** The nightly run's id for the day `at` falls on in `tz`: every replica and every fire of that day agrees on it. */
export function nightlyRunId(at: Date, tz: string): string {
  const day = new Intl.DateTimeFormat('en-CA', {
    timeZone: tz,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
  });
  return `nightly-${day.format(at)}`;
}

/** SCHEDULE_CRON read once: the local wall times it names, in SCHEDULE_TZ. */
export interface CronSchedule {
  cron: string;
  tz: string;
  minutes: number[];
  hours: number[];
  days: Set<number>;
  months: Set<number>;
  weekdays: Set<number>;
}

/** Parses and validates SCHEDULE_CRON (node-cron's syntax) and SCHEDULE_TZ; the errors name the setting. */
export function parseSchedule(cron: string, tz: string): CronSchedule {
  const fields = parseCron(cron);
  if (typeof fields === 'string') throw new Error(`SCHEDULE_CRON: ${fields}`);
  const tzProblem = timeZoneProblem(tz);
  if (tzProblem) throw new Error(`SCHEDULE_TZ: ${tzProblem}`);
  return fields(tz);
}

/**
 * What is wrong with SCHEDULE_CRON, if anything, including an expression that never fires: the
 * configuration refuses it with every other bad setting, before anything is created or connected
 * (setup/env-schema.ts).
 */
export function cronProblem(cron: string): string | undefined {
  const fields = parseCron(cron);
  if (typeof fields === 'string') return fields;
  try {
    nextFireTime(fields('UTC'), new Date());
  } catch (err) {
    return (err as Error).message.replace(/^SCHEDULE_CRON: /, '');
  }
  return undefined;
}

/** What is wrong with SCHEDULE_TZ, if anything. */
export function timeZoneProblem(tz: string): string | undefined {
  try {
    wallFormatter(tz);
    return undefined;
  } catch {
    return `unknown time zone '${tz}'`;
  }
}

/** The cron expression's wall times (to be placed in a zone), or what is wrong with it. */
function parseCron(cron: string): ((tz: string) => CronSchedule) | string {
  let fields: ParsedFields;
  try {
    fields = parse(cron);
  } catch (err) {
    return `invalid cron expression '${cron}' (${(err as Error).message})`;
  }
  if (fields.second.length !== 1 || fields.second[0] !== 0)
    return `'${cron}' names seconds; the schedule has minute precision (use 5 fields)`;
  for (const [values, field] of [
    [fields.dayOfMonth, 'day of month'],
    [fields.dayOfWeek, 'day of week'],
  ] as const)
    if (values.some((value) => typeof value !== 'number'))
      return `'${cron}' uses L, W or # in the ${field} field, which is not supported`;
  const ascending = (values: number[]) => [...values].sort((a, b) => a - b);
  return (tz) => ({
    cron,
    tz,
    minutes: ascending(fields.minute),
    hours: ascending(fields.hour),
    days: new Set(fields.dayOfMonth as number[]),
    months: new Set(fields.month),
    // 7 is Sunday too.
    weekdays: new Set((fields.dayOfWeek as number[]).map((day) => day % 7)),
  });
}

/**
 * The first instant strictly after `after` at which the schedule fires; the scheduler arms its
 * timer with it. Each local wall time the expression matches fires at the first instant the zone's
 * clock reaches it (invariant 11): a nonexistent time (spring forward) at the next valid minute, an
 * ambiguous one (fall back, the hour happens twice) at its first occurrence only. Like node-cron,
 * day of month and day of week must both match.
 */
export function nextFireTime(schedule: CronSchedule, after: Date): Date {
  const shown = wallClock(after.getTime(), schedule.tz);
  let day = Math.floor(shown / DAY) * DAY;
  for (let i = 0; i < MAX_DAYS_AHEAD; i++, day += DAY) {
    const date = new Date(day);
    if (
      !schedule.months.has(date.getUTCMonth() + 1) ||
      !schedule.days.has(date.getUTCDate()) ||
      !schedule.weekdays.has(date.getUTCDay())
    )
      continue;
    for (const hour of schedule.hours)
      for (const minute of schedule.minutes) {
        const wall = day + hour * HOUR + minute * MINUTE;
        // The clock already showed this time at or before `after`: it fired then, or it is behind us.
        if (wall <= shown) continue;
        // Ascending wall times reach their first instants in order, so the first one past `after` wins;
        // one still behind it is a time the clock showed before falling back.
        const at = firstReached(wall, schedule.tz);
        if (at > after.getTime()) return new Date(at);
      }
  }
  throw new Error(`SCHEDULE_CRON: '${schedule.cron}' never fires in the next 100 years`);
}

export interface SchedulerOptions {
  cron: string;
  tz: string;
  logger: Logger;
  now: () => Date;
  /** Enqueues the run; must be idempotent per run id (it is: the run id is the job id). */
  fire: (runId: string, asOf: Date) => Promise<void>;
  /** Whether a run with this id already exists (catch-up must not start a finished run again). */
  runExists: (runId: string) => Promise<boolean>;
  /**
   * Where a fired night stands (run-now.ts runStart): watched until it has started, so a night
   * whose job is lost before any producer takes it (Redis restarted without its data, every attempt
   * failed with MongoDB away) is enqueued again, up to the next fire time, instead of skipped.
   */
  runStart?: (
    runId: string,
  ) => Promise<{ kind: 'started' | 'waiting' } | { kind: 'never-started'; reason?: string }>;
  /** How often a fired night is looked at until it has started (default 30 s). */
  watchMs?: number;
  /**
   * CATCH_UP: whether a start after today's fire time runs the missed night (`after-first-run`:
   * only when `scheduledBefore` says a scheduled night has run on this database). Default `always`.
   */
  catchUp?: 'never' | 'after-first-run' | 'always';
  scheduledBefore?: () => Promise<boolean>;
}

export interface Scheduler {
  /** The fire time this start-up caught up on, if it found today's run missed. */
  caughtUp?: Date;
  stop(): Promise<void>;
}

/**
 * Fires the nightly run at SCHEDULE_CRON in SCHEDULE_TZ from a timer armed at `nextFireTime`
 * (node-cron only parses: its own timer matches local minutes, so a fire time that does not exist
 * on the spring-forward day never fired). Several replicas may run this: they all enqueue the same
 * run id, and BullMQ keeps one job. On start, a run whose fire time passed today without a run
 * record (the worker was down at 03:00) is enqueued at once.
 */
export async function startScheduler(options: SchedulerOptions): Promise<Scheduler> {
  const { tz, logger } = options;
  const schedule = parseSchedule(options.cron, tz);
  const enqueue = async (fireTime: Date) => {
    // Named after the fire time, not the clock: a timer woken a little late past midnight still enqueues its own day.
    const runId = nightlyRunId(fireTime, tz);
    await options.fire(runId, options.now());
    logger.info({ runId }, 'nightly run enqueued');
    watch(runId, fireTime);
  };
  let timer: NodeJS.Timeout | undefined;
  let watching: NodeJS.Timeout | undefined;
  let stopped = false;
  // One fire at a time (as node-cron's noOverlap did); stop() waits for the one in flight.
  let firing: Promise<void> = Promise.resolve();

  // The night fired last is looked at until it has started; a newer fire replaces the watch.
  const watch = (runId: string, fireTime: Date) => {
    clearTimeout(watching);
    if (stopped || !options.runStart) return;
    const look = async () => {
      const start = await options.runStart!(runId).catch((err) => {
        logger.warn({ err, runId }, 'could not tell whether the nightly run has started');
        return { kind: 'waiting' as const };
      });
      if (start.kind === 'started' || stopped) return;
      const now = options.now();
      if (start.kind === 'never-started') {
        // Its memories are due again at the next run anyway: from the next fire time on, that is it.
        if (nextFireTime(schedule, fireTime) <= now) {
          logger.error(
            { runId, reason: start.reason },
            'nightly run never started; its memories wait for the next run',
          );
          return;
        }
        logger.warn(
          { runId, reason: start.reason ?? 'its job is gone from the queue (Redis lost its data?)' },
          'nightly run never started; enqueued again',
        );
        await options.fire(runId, now);
      }
      later();
    };
    // In line with the fires, so stop() waits for a look in flight too.
    const later = () => {
      watching = setTimeout(() => {
        firing = firing
          .then(look)
          .catch((err) => logger.error({ err, runId }, 'could not enqueue the nightly run again'));
      }, options.watchMs ?? WATCH_MS);
    };
    later();
  };

  const waitFor = (next: Date) => {
    if (stopped) return;
    const wait = next.getTime() - options.now().getTime();
    if (wait > 0) {
      timer = setTimeout(() => waitFor(next), Math.min(wait, MAX_WAIT_MS));
      return;
    }
    // A process that slept through several fire times enqueues the latest one (today's), not each missed night.
    const now = options.now();
    const due = lastFireBetween(schedule, next, now) ?? next;
    firing = firing
      .then(() => enqueue(due))
      .catch((err) => logger.error({ err }, 'could not enqueue the nightly run'));
    arm(now);
  };
  const arm = (after: Date) => {
    const next = nextFireTime(schedule, after);
    logger.info({ at: next, runId: nightlyRunId(next, tz) }, 'next nightly run');
    waitFor(next);
  };

  const scheduler: Scheduler = {
    stop: async () => {
      stopped = true;
      clearTimeout(timer);
      clearTimeout(watching);
      await firing;
    },
  };
  const now = options.now();
  const missed = lastFireBetween(schedule, startOfDay(now, tz), now);
  if (missed && (await mayCatchUp(options)) && !(await options.runExists(nightlyRunId(missed, tz)))) {
    logger.info({ missed }, 'catching up on a missed nightly run');
    await enqueue(missed);
    scheduler.caughtUp = missed;
  }
  arm(now);
  return scheduler;
}

/**
 * A missed night is caught up on start unless CATCH_UP says no: never, or not on a database no
 * scheduled night has run on yet (docs/design.md invariant 10: its first night is the scheduled one).
 */
async function mayCatchUp(options: SchedulerOptions): Promise<boolean> {
  const catchUp = options.catchUp ?? 'always';
  if (catchUp === 'never') return false;
  if (catchUp === 'always') return true;
  const before = (await options.scheduledBefore?.()) ?? false;
  if (!before)
    options.logger.info(
      'no missed night caught up: no scheduled night has run on this database yet (CATCH_UP=after-first-run)',
    );
  return before;
}

/** The latest fire time in [from, to], if any. */
function lastFireBetween(schedule: CronSchedule, from: Date, to: Date): Date | undefined {
  let last: Date | undefined;
  for (
    let at = nextFireTime(schedule, new Date(from.getTime() - 1));
    at <= to;
    at = nextFireTime(schedule, at)
  )
    last = at;
  return last;
}

/** The first instant of the local day `at` falls on (midnight, or the end of a gap that swallowed it). */
function startOfDay(at: Date, tz: string): Date {
  return new Date(firstReached(Math.floor(wallClock(at.getTime(), tz) / DAY) * DAY, tz));
}

/**
 * The first minute at which the clock in `tz` shows `wall` or later: the first occurrence of an
 * ambiguous time, the end of the gap for a nonexistent one. Within a day of `wall` the zone's offset
 * is one of the two found a day before and after it (no zone changes its offset twice in two days).
 */
function firstReached(wall: number, tz: string): number {
  const widest = Math.max(wallClock(wall - DAY, tz) - (wall - DAY), wallClock(wall + DAY, tz) - (wall + DAY));
  let at = wall - widest;
  // Steps only through a gap (usually 60 minutes); without a change the first step already shows `wall`.
  while (wallClock(at, tz) < wall) at += MINUTE;
  return at;
}

const formatters = new Map<string, Intl.DateTimeFormat>();
function wallFormatter(tz: string): Intl.DateTimeFormat {
  let formatter = formatters.get(tz);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone: tz,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(tz, formatter);
  }
  return formatter;
}

/** What the clock in `tz` shows at instant `at`, as milliseconds on the UTC time line (Date.UTC of the local fields). */
function wallClock(at: number, tz: string): number {
  const part: Partial<Record<Intl.DateTimeFormatPartTypes, number>> = {};
  for (const { type, value } of wallFormatter(tz).formatToParts(at)) part[type] = Number(value);
  const { year = 0, month = 1, day = 1, hour = 0, minute = 0, second = 0 } = part;
  return Date.UTC(year, month - 1, day, hour % 24, minute, second) + (at - Math.floor(at / 1000) * 1000);
}
