import { type Reading, unlabelled } from './reading.js';
import { clip, type Finding, type MeasureStage } from './types.js';

const WEEKDAY = 'monday|tuesday|wednesday|thursday|friday|saturday|sunday';
const MONTH = 'january|february|march|april|may|june|july|august|september|october|november|december';
/** Dates that only mean something next to the day they were said on. */
const RELATIVE_EN = new RegExp(
  `\\b(?:today|tonight|tomorrow|yesterday|this (?:morning|afternoon|evening|week|weekend|month|year)|(?:last|next) (?:night|week|weekend|month|year|${WEEKDAY})|(?:a|one|two|three|four|five|six|\\d+) (?:days?|weeks?|months?|years?) ago|the other day)\\b`,
  'i',
);
const RELATIVE_ZH =
  /今天|明天|昨天|后天|前天|今晚|昨晚|明晚|今早|明早|今年|明年|去年|前年|(?:下|上|这|本)(?:个)?(?:周|星期|礼拜)[一二三四五六日天末]?|(?:下|上|这)个?月|[一两三四五六七八九十\d]+(?:天|周|个月|年)(?:前|后)/u;
/** A date a reader can place: a year, a month with its day, or a weekday with a date. */
const ABSOLUTE_EN = new RegExp(
  `\\b(?:(?:19|20)\\d{2}|\\d{1,2}(?:st|nd|rd|th)? (?:${MONTH})|(?:${MONTH}) \\d{1,2})\\b`,
  'i',
);
const ABSOLUTE_ZH =
  /\d{4}\s*年|\d{1,2}\s*月\s*\d{1,2}\s*[日号]|[一二三四五六七八九十]+月[一二三四五六七八九十]+[日号]/u;

const relative = (text: string) => RELATIVE_EN.test(text) || RELATIVE_ZH.test(text);
const absolute = (text: string) => ABSOLUTE_EN.test(text) || ABSOLUTE_ZH.test(text);

/**
 * Time anchoring: where the memory's date is known and the conversation says "tomorrow" or
 * "下周二", a stage that keeps such a word places it (a date in the same sentence); read weeks
 * later, "tomorrow" means nothing. Applies when the date is known and raw has a relative date.
 */
export function time(reading: Reading, stage: MeasureStage): Finding | undefined {
  const text = reading.view[stage]?.text;
  if (text === undefined || !reading.view.date || !relative(reading.rawText)) return undefined;
  const loose = reading.split(text).filter((s) => relative(s) && !absolute(s));
  return {
    measure: 'time',
    stage,
    ok: loose.length === 0,
    ...(loose.length && {
      severity: loose.length,
      quote: clip(unlabelled(reading, loose[0]!)),
      note: `${loose.length} relative date${loose.length === 1 ? '' : 's'} left unanchored`,
    }),
  };
}
