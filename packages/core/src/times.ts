/**
 * A stored time as an instant, the same in every process whatever its time zone: a number is epoch
 * milliseconds; a string with a zone (`Z`, `+08:00`, `GMT+0800`) or an ISO date alone is read as
 * Date reads it; a date and time without a zone ("2026-11-20T10:00:00", "2026-11-20 10:00:00", a
 * naive datetime's isoformat, a SQL DATETIME) is UTC. Date would read that one in the reading
 * process's zone, so a worker in New York and a CLI in Shanghai read two instants, and a stage
 * written by one read as an edit's by the other (docs/design.md §3).
 */
export function readTime(value: string | number): Date {
  if (typeof value === 'number') return new Date(value);
  const text = value.trim();
  const wall = WALL_TIME.exec(text);
  if (wall) {
    const [y, mo, d, h, mi, s] = wall.slice(1, 7).map((part) => Number(part ?? 0)) as number[];
    const ms = wall[7] ? Math.floor(Number(`0.${wall[7]}`) * 1000) : 0;
    return new Date(Date.UTC(y!, mo! - 1, d!, h!, mi!, s!, ms));
  }
  const date = new Date(text);
  if (Number.isNaN(date.getTime()) || ZONED.test(text) || ISO_DATE.test(text)) return date;
  // Another form without a zone ("Nov 20 2026 10:00"): Date read it as local time; the same wall time in UTC.
  return new Date(
    Date.UTC(
      date.getFullYear(),
      date.getMonth(),
      date.getDate(),
      date.getHours(),
      date.getMinutes(),
      date.getSeconds(),
      date.getMilliseconds(),
    ),
  );
}

/** A date and a time with no zone after them, ISO or SQL style. */
const WALL_TIME = /^(\d{4})[-/](\d{1,2})[-/](\d{1,2})[T ](\d{1,2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?$/;
/** Ends in a zone: Z, an offset, or GMT / UTC (with what Date.toString writes after it). */
const ZONED = /(?:\d[zZ]|[+-]\d{2}:?\d{2}|\b(?:GMT|UTC|UT)\b.*)$/;
/** An ISO date alone ("2026-11-20"), which Date reads as UTC. */
const ISO_DATE = /^\d{4}(?:-\d{2}(?:-\d{2})?)?$/;
