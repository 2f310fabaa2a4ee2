/**
 * The numbers of the Chinese pack's relative dates (zh relativeDate: "三天前", "下周二"), as
 * dates.ts spanZh counts them.
 */

/** A count before 天 / 周 / 个月 / 年. */
export const NUMBERS: Record<string, number> = {
  一: 1,
  两: 2,
  二: 2,
  三: 3,
  四: 4,
  五: 5,
  六: 6,
  七: 7,
  八: 8,
  九: 9,
  十: 10,
};
/** What a count before 天 / 周 / 个星期 / 个月 / 年 counts (dates.ts shifted). */
export const UNITS: Record<string, string> = {
  天: 'day',
  周: 'week',
  个星期: 'week',
  个月: 'month',
  年: 'year',
};
/** A weekday after 周 / 星期 / 礼拜, Monday 0 (天 and 日 are Sunday). */
export const WEEKDAYS: Record<string, number> = { 一: 0, 二: 1, 三: 2, 四: 3, 五: 4, 六: 5, 日: 6, 天: 6 };
/** Days from the memory's date of 今天, 明天, 后天, 昨天, 前天 (by their first character), 大后天 and 大前天. */
export const DAYS: Record<string, number> = { 今: 0, 明: 1, 后: 2, 昨: -1, 前: -2, 大后天: 3, 大前天: -3 };
/** Weeks or months from the memory's of 下 / 上 / 这 周 or 个月, and 下下 / 上上 (the one after next, before last). */
export const STEPS: Record<string, number> = { 下下: 2, 下: 1, 这: 0, 本: 0, 上: -1, 上上: -2 };
/** Years from the memory's of 今年, 明年, 去年, 前年 (by their first character), and 大前年. */
export const YEARS: Record<string, number> = { 今: 0, 明: 1, 去: -1, 前: -2, 大前年: -3 };

/** A count in digits or Chinese numerals up to 九十九 ("三", "十五", "二十"). */
export function countOf(text: string): number {
  if (!text.includes('十')) return NUMBERS[text] ?? Number(text);
  const [tens, ones] = text.split('十');
  return (tens ? NUMBERS[tens]! : 1) * 10 + (ones ? NUMBERS[ones]! : 0);
}
