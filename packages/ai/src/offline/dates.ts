import type { Language } from '@memfade/core';
import { calendarDay } from '../calendar-day.js';
import { MONTHS_EN } from '../prompts/context.js';
import { DAYS_FROM_TODAY, NUMBERS as NUMBERS_EN, WEEKDAYS as WEEKDAYS_EN } from './rules/en/index.js';
import { RULES } from './rules/index.js';
import * as zhDates from './rules/zh/dates.js';

/**
 * Relative dates anchored to the memory's date: read weeks later, "tomorrow" or "下周二" means nothing, so the offline
 * compressor writes the day it meant beside it ("tomorrow (9 May)", "下周二（5月16日）"; the year only when it is not the
 * memory's). The relative words stay: what was said, and facts the retention gate looks for (docs/design.md §6). Weeks
 * start on Monday; "next Friday" / "下周五" is next week's, "this Friday" this week's, "last Friday" the latest.
 */

const DAY_MS = 86_400_000;

/** What a relative date points at: a day, the week starting on a day, a month, a year. */
type Span = { day: Date } | { week: Date } | { month: Date } | { year: number };

/** The day `n` days after `day` (UTC: a memory's date is a calendar day). */
const plusDays = (day: Date, n: number) => new Date(day.getTime() + n * DAY_MS);
/** The calendar day of `at` where the product's nights are, as a UTC date (the arithmetic above). */
const dayOf = (at: Date, timeZone: string) => {
  const { year, month, day } = calendarDay(at, timeZone);
  return new Date(Date.UTC(year, month - 1, day));
};
/** 0 for Monday … 6 for Sunday. */
const weekday = (day: Date) => (day.getUTCDay() + 6) % 7;
const monday = (day: Date) => plusDays(day, -weekday(day));
const plusMonths = (day: Date, n: number) =>
  new Date(Date.UTC(day.getUTCFullYear(), day.getUTCMonth() + n, 1));

function render(span: Span, language: Language, today: Date): string {
  // A day of the memory's own year is placed by its month and day (short); its stored date gives the year.
  const year = (x: Date, after: string, before = '') =>
    x.getUTCFullYear() === today.getUTCFullYear() ? '' : `${before}${x.getUTCFullYear()}${after}`;
  if (language === 'zh') {
    const d = (x: Date) => `${year(x, '年')}${x.getUTCMonth() + 1}月${x.getUTCDate()}日`;
    if ('day' in span) return d(span.day);
    if ('week' in span) return `${d(span.week)}那周`;
    if ('month' in span) return `${span.month.getUTCFullYear()}年${span.month.getUTCMonth() + 1}月`;
    return `${span.year}年`;
  }
  const d = (x: Date) => `${x.getUTCDate()} ${MONTHS_EN[x.getUTCMonth()]}${year(x, '', ' ')}`;
  if ('day' in span) return d(span.day);
  if ('week' in span) return `week of ${d(span.week)}`;
  if ('month' in span) return `${MONTHS_EN[span.month.getUTCMonth()]} ${span.month.getUTCFullYear()}`;
  return String(span.year);
}

/** The day of weekday `w` (0 = Monday) in the week `offset` weeks from the one of `today`. */
const inWeek = (today: Date, w: number, offset: number) => plusDays(monday(today), offset * 7 + w);

/** The day, week, month or year (`unit`, a year where it is none of the others) `n` of them from `today`'s. */
function shifted(today: Date, unit: string, n: number): Span {
  if (unit === 'day') return { day: plusDays(today, n) };
  if (unit === 'week') return { week: plusDays(monday(today), 7 * n) };
  if (unit === 'month') return { month: plusMonths(today, n) };
  return { year: today.getUTCFullYear() + n };
}

function spanEn(match: RegExpMatchArray, today: Date): Span | undefined {
  const [all, word, part, which, unit, count, units] = match;
  const lower = all!.toLowerCase();
  if (word) return { day: plusDays(today, DAYS_FROM_TODAY[lower]!) };
  if (part) return { day: today };
  if (lower === 'last night') return { day: plusDays(today, -1) };
  if (which && unit) {
    const offset = { last: -1, next: 1, this: 0 }[which.toLowerCase() as 'last' | 'next' | 'this'];
    const u = unit.toLowerCase();
    if (u === 'weekend') return { day: inWeek(today, 5, offset) };
    if (u === 'week' || u === 'month' || u === 'year') return shifted(today, u, offset);
    const w = WEEKDAYS_EN.indexOf(u);
    if (offset === -1) return { day: plusDays(today, -(((weekday(today) - w + 6) % 7) + 1)) };
    return { day: inWeek(today, w, offset) };
  }
  if (!count || !units) return undefined;
  const n = NUMBERS_EN[count.toLowerCase()] ?? Number(count);
  return shifted(today, units.toLowerCase().replace(/s$/, ''), -n);
}

function spanZh(match: RegExpMatchArray, today: Date): Span | undefined {
  const [, word, which, day, month, count, unit, direction] = match;
  if (word?.endsWith('年'))
    return { year: today.getUTCFullYear() + (zhDates.YEARS[word] ?? zhDates.YEARS[word[0]!]!) };
  if (word) return { day: plusDays(today, zhDates.DAYS[word] ?? zhDates.DAYS[word[0]!]!) };
  if (which) {
    const offset = zhDates.STEPS[which]!;
    if (day === '末') return { day: inWeek(today, 5, offset) };
    if (day) return { day: inWeek(today, zhDates.WEEKDAYS[day]!, offset) };
    return shifted(today, 'week', offset);
  }
  if (month) return { month: plusMonths(today, zhDates.STEPS[month]!) };
  if (!count || !unit || !direction) return undefined;
  const n = zhDates.countOf(count) * (direction === '前' ? -1 : 1);
  return shifted(today, zhDates.UNITS[unit]!, n);
}

const MONTH_NAMES = MONTHS_EN.join('|');
/** The date anchorDates writes after a relative date ("今天（4月29日）", "yesterday (10 May)"), as render writes it. */
export const ANCHOR = new RegExp(
  `（(?:\\d{4}年)?\\d{1,2}月(?:\\d{1,2}日(?:那周)?)?）|（\\d{4}年）|` +
    ` \\((?:week of )?\\d{1,2} (?:${MONTH_NAMES})(?: \\d{4})?\\)| \\((?:${MONTH_NAMES}) \\d{4}\\)| \\(\\d{4}\\)`,
  'gu',
);

/** An anchor already written after a relative date (this text was anchored before, or said it). */
const ANCHORED_AFTER = /^\s*[(（]/u;
const FIGURATIVE = [RULES.en.figurativeDay.pattern, RULES.zh.figurativeDay.pattern];

/**
 * `text` with each relative date followed by the date it meant on `date`, in brackets, but `names` (who speaks:
 * "明天问…"); unchanged without a date. Both languages' words are read: a Chinese chat may say "tomorrow" too.
 */
export function anchorDates(
  text: string,
  date: Date | undefined,
  language: Language,
  timeZone = 'UTC',
  names: readonly (string | undefined)[] = [],
): string {
  if (!date || Number.isNaN(date.getTime())) return text;
  // The user's today is the day where the product is: a chat at 07:30 in Shanghai on 2 January
  // is 23:30 UTC on the 1st, and its 今天 the 2nd (SCHEDULE_TZ, as the models' date line).
  const today = dayOf(date, timeZone);
  const [open, close] = language === 'zh' ? ['（', '）'] : [' (', ')'];
  const anchor = (pattern: RegExp, span: (m: RegExpMatchArray, d: Date) => Span | undefined) => (s: string) =>
    s.replace(pattern, (...args) => {
      const m = args.slice(0, -2) as unknown as RegExpMatchArray;
      const [at, whole] = args.slice(-2) as [number, string];
      const after = whole.slice(at + m[0]!.length);
      const label = (at === 0 || whole[at - 1] === '\n') && /^\s*[:：]/u.test(after); // "明天: …": a speaker
      const before = whole.slice(Math.max(0, at - 30), at); // "feels like just yesterday": a figure, no day
      if (ANCHORED_AFTER.test(after) || label || FIGURATIVE.some((r) => r.test(before))) return m[0]!;
      if (names.includes(m[0]!)) return m[0]!;
      const found = span(m, today);
      return found ? `${m[0]}${open}${render(found, language, today)}${close}` : m[0]!;
    });
  // English relativeDate not before a possessive: "yesterday's class" is no "yesterday (3 February)'s".
  return anchor(RULES.zh.relativeDate.pattern, spanZh)(anchor(RULES.en.relativeDate.pattern, spanEn)(text));
}
