import { describe, expect, it } from 'vitest';
import { OfflineCompressor } from './compressor.js';
import { anchorDates } from './dates.js';

// A Monday.
const MAY_8 = new Date('2023-05-08T13:56:00Z');

describe('anchorDates', () => {
  it('writes the day an English relative date meant beside it', () => {
    expect(anchorDates('I went hiking yesterday and I fly tomorrow.', MAY_8, 'en')).toBe(
      'I went hiking yesterday (7 May) and I fly tomorrow (9 May).',
    );
    expect(anchorDates('We met last Tuesday; next Friday is the party.', MAY_8, 'en')).toBe(
      'We met last Tuesday (2 May); next Friday (19 May) is the party.',
    );
    expect(anchorDates('Two weeks ago I moved, last month I quit, last year I married.', MAY_8, 'en')).toBe(
      'Two weeks ago (week of 24 April) I moved, last month (April 2023) I quit, last year (2022) I married.',
    );
  });

  it('anchors Chinese relative dates, weeks starting on Monday', () => {
    expect(anchorDates('我明天去北京，下周二回来，上个月刚搬家。', MAY_8, 'zh')).toBe(
      '我明天（5月9日）去北京，下周二（5月16日）回来，上个月（2023年4月）刚搬家。',
    );
    expect(anchorDates('三天前我们吵架了，下周一起去吧。', MAY_8, 'zh')).toBe(
      '三天前（5月5日）我们吵架了，下周（5月15日那周）一起去吧。',
    );
  });

  it('counts 大后天 and 大前天 three days, 下下 / 上上 two weeks or months: never the day 后天 or 下周 meant', () => {
    expect(anchorDates('大后天是我生日，大前天买了蛋糕。', MAY_8, 'zh')).toBe(
      '大后天（5月11日）是我生日，大前天（5月5日）买了蛋糕。',
    );
    expect(anchorDates('下下周出差，上上周感冒，下下个月考试，上上个月搬家。', MAY_8, 'zh')).toBe(
      '下下周（5月22日那周）出差，上上周（4月24日那周）感冒，下下个月（2023年7月）考试，上上个月（2023年3月）搬家。',
    );
  });

  it('counts a Chinese number whole ("十五天前" is fifteen days), and none inside a larger number or a range', () => {
    expect(anchorDates('十五天前吵架，二十三天前搬家，二十天后考试，大前年结婚。', MAY_8, 'zh')).toBe(
      '十五天前（4月23日）吵架，二十三天前（4月15日）搬家，二十天后（5月28日）考试，大前年（2020年）结婚。',
    );
    // "100天后" was "00天后" (today), "三四天前" four days: no day said, none written.
    expect(anchorDates('100天后见，三四天前感冒，两三个月前，几十天前。', MAY_8, 'zh')).toBe(
      '100天后见，三四天前感冒，两三个月前，几十天前。',
    );
  });

  it('anchors no English range ("3 or 4 days ago", "2-3 weeks ago"): it names no one day', () => {
    expect(anchorDates('3 or 4 days ago, 2-3 weeks ago, two to three weeks ago.', MAY_8, 'en')).toBe(
      '3 or 4 days ago, 2-3 weeks ago, two to three weeks ago.',
    );
  });

  it('anchors no date said as a figure of speech: "feels like just yesterday" was five years ago', () => {
    expect(anchorDates('5 years already! Feels like just yesterday I put this dress on.', MAY_8, 'en')).toBe(
      '5 years already! Feels like just yesterday I put this dress on.',
    );
    expect(anchorDates('毕业十年了，一切仿佛就在昨天。昨天我见了老同学。', MAY_8, 'zh')).toBe(
      '毕业十年了，一切仿佛就在昨天。昨天（5月7日）我见了老同学。',
    );
  });

  it('leaves a name of who speaks as written in V1\'s prose: "明天的猫…" is the user labelled 明天', async () => {
    const prose = '明天问门票多少钱。可是明天觉得不公平。天天说明天（5月9日）下雨。';
    expect(anchorDates(prose, MAY_8, 'zh', 'UTC', ['明天', '天天'])).toBe(prose);
    // V2 reads V1's prose with the turns' labels: it wrote "明天（5月9日）的猫团团死了", a day the check
    // lets pass as an anchor, and "明天（5月9日）问…", which it refused every night (the fuzz, seed 80).
    const text = '明天: 我的猫团团死了，我担心明天下雨。\n天天: 说说，别难过。\n明天: 门票多少钱？';
    const compressor = new OfflineCompressor();
    const base = { memoryId: 'm', language: 'zh' as const, personality: '', roleCard: { userId: 'u' } };
    const asked = { ...base, createdAt: MAY_8, speakers: ['明天', '天天'] };
    const v1 = await compressor.compressV1({ ...asked, text, targetLength: { min: 20, max: 40 } });
    const v2 = await compressor.compressV2({
      ...asked,
      text: v1.fields.compressedContent,
      targetLength: { min: 10, max: 30 },
    });
    expect(v2.fields.coreMemory).toContain('明天的猫团团死了');
  });

  it("leaves a speaker's label as written: a companion called 明天 is no date", () => {
    expect(anchorDates('明天: 你明天去哪？\n用户：明天去北京', MAY_8, 'zh')).toBe(
      '明天: 你明天（5月9日）去哪？\n用户：明天（5月9日）去北京',
    );
    expect(anchorDates('tomorrow: what about tomorrow?', MAY_8, 'en')).toBe(
      'tomorrow: what about tomorrow (9 May)?',
    );
  });

  it('gives the year of a day in another year, and anchors once', () => {
    const newYear = new Date('2024-01-01T10:00:00Z');
    expect(anchorDates('I saw her yesterday.', newYear, 'en')).toBe(
      'I saw her yesterday (31 December 2023).',
    );
    const once = anchorDates('我明天去。', MAY_8, 'zh');
    expect(anchorDates(once, MAY_8, 'zh')).toBe(once);
  });

  it('anchors to the calendar day where the product is (SCHEDULE_TZ), not the UTC one', () => {
    // 07:30 on 2 January in Shanghai is 23:30 UTC on the 1st: the user's 今天 is the 2nd.
    const morning = new Date('2026-01-01T23:30:00Z');
    expect(anchorDates('我今天去了公园，昨天在家。', morning, 'zh', 'Asia/Shanghai')).toBe(
      '我今天（1月2日）去了公园，昨天（1月1日）在家。',
    );
    expect(anchorDates('我今天去了公园。', morning, 'zh')).toBe('我今天（1月1日）去了公园。');
  });

  it('leaves the text as it is without a date', () => {
    expect(anchorDates('See you tomorrow.', undefined, 'en')).toBe('See you tomorrow.');
  });
});

describe('the offline compressor with the memory date', () => {
  it('keeps relative dates anchored in V1 and V2', async () => {
    const text = [
      'user: 我明天要去医院复查，医生说上周的检查结果有点问题，我有点担心。',
      'assistant: 别太担心，复查完告诉我结果好吗？',
      'user: 好的，下周二还要去公司面试，是一家做人工智能的公司，在上海浦东。',
      'assistant: 那你先好好休息，面试前我们一起准备一下。',
    ].join('\n');
    const compressor = new OfflineCompressor();
    const base = {
      memoryId: 'm1',
      language: 'zh' as const,
      personality: '',
      roleCard: { userId: 'u' },
      createdAt: MAY_8,
    };
    const v1 = await compressor.compressV1({ ...base, text, targetLength: { min: 60, max: 110 } });
    expect(v1.fields.compressedContent).toContain('明天（5月9日）');
    const v2 = await compressor.compressV2({
      ...base,
      text: v1.fields.compressedContent,
      targetLength: { min: 30, max: 80 },
    });
    expect(v2.fields.coreMemory).not.toMatch(/(?:明天|下周二)(?!（)/u);
    // Where the product's nights are in Shanghai, 23:00 UTC on 8 May is 07:00 on the 9th: 明天 is the 10th.
    const shanghai = new OfflineCompressor({ timeZone: 'Asia/Shanghai' });
    const late = { ...base, createdAt: new Date('2023-05-08T23:00:00Z') };
    const local = await shanghai.compressV1({ ...late, text, targetLength: { min: 60, max: 110 } });
    expect(local.fields.compressedContent).toContain('明天（5月10日）');
  });
});
