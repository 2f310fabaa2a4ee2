import { type ScheduledTask, schedule, validate } from 'node-cron';
import type { Logger } from 'pino';

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

export interface SchedulerOptions {
  cron: string;
  tz: string;
  logger: Logger;
  now: () => Date;
  /** Enqueues the run; must be idempotent per run id (it is: the run id is the job id). */
  fire: (runId: string, asOf: Date) => Promise<void>;
  /** Whether a run with this id already exists (catch-up must not start a finished run again). */
  runExists: (runId: string) => Promise<boolean>;
}

export interface Scheduler {
  /** The fire time this start-up caught up on, if it found today's run missed. */
  caughtUp?: Date;
  stop(): Promise<void>;
}

/**
 * node-cron fires the nightly run in the configured time zone. Several replicas may run this:
 * they all enqueue the same run id, and BullMQ keeps one job. On start, a run whose fire time
 * passed today without a run record (the worker was down at 03:00) is enqueued at once.
 */
export async function startScheduler(options: SchedulerOptions): Promise<Scheduler> {
  if (!validate(options.cron)) throw new Error(`SCHEDULE_CRON: invalid cron expression '${options.cron}'`);
  const fire = async (asOf: Date) => {
    const runId = nightlyRunId(asOf, options.tz);
    await options.fire(runId, asOf);
    options.logger.info({ runId }, 'nightly run enqueued');
  };
  const task: ScheduledTask = schedule(
    options.cron,
    () =>
      fire(options.now()).catch((err) => options.logger.error({ err }, 'could not enqueue the nightly run')),
    { timezone: options.tz, name: 'memfade-nightly', noOverlap: true },
  );
  const scheduler: Scheduler = { stop: async () => task.destroy() };
  const missed = lastFireToday(task, options.now(), options.tz);
  if (missed && !(await options.runExists(nightlyRunId(missed, options.tz)))) {
    options.logger.info({ missed }, 'catching up on a missed nightly run');
    await fire(options.now());
    scheduler.caughtUp = missed;
  }
  return scheduler;
}

/** The latest minute today (in tz) at or before `now` that the cron expression matches. */
function lastFireToday(task: ScheduledTask, now: Date, tz: string): Date | undefined {
  const minute = 60_000;
  const today = nightlyRunId(now, tz);
  for (let t = Math.floor(now.getTime() / minute) * minute; ; t -= minute) {
    const at = new Date(t);
    if (nightlyRunId(at, tz) !== today) return undefined;
    if (task.match(at)) return at;
  }
}
