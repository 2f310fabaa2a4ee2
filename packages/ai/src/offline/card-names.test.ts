/**
 * Role cards whose names a product may well give: a word ("Hope", "Will", "May"), a role word
 * ("Assistant"), marks ("J.J.", "O'Neil"), the user's own name given to the companion too. Every
 * stage passes the faithfulness check (core faithfulness.ts) as the gate reads it: on the code before,
 * such cards left a third to all of a set's memories refused by the gate, never compressed.
 */
import { faithfulnessSource, formatV1ForV2, inventedSpans, type V1Result } from '@memfade/core';
import { describe, expect, it } from 'vitest';
import { compressor, request, share, stages } from './compressor-harness.js';

const CHAT = {
  en: [
    "user: Hi! I will try baking bread this weekend. I hope it turns out well, I'm a bit nervous about it.",
    'assistant: That sounds fun! I baked bread with my sister in Lyon in 2019, it took us 6 hours.',
    'user: My grandma used to bake every Sunday. I miss her a lot since she passed away last spring.',
    'assistant: She must have been wonderful. Baking her bread could be a lovely way to remember her.',
    "user: Yes, I still have her recipe card. I'll follow it exactly and bring a loaf to my mom.",
  ].join('\n'),
  zh: [
    'user: 这周末我想试着烤面包，有点紧张。',
    'assistant: 听起来很有意思！我可以给你一些建议，我也想试试。',
    'user: 我外婆以前每个星期天都烤面包，她去年春天走了，我很想她。',
    'assistant: 她一定很好。按她的方法烤面包，也是一种纪念。',
    'user: 是啊，我还留着她写的配方，我会照着做，再给妈妈带一个。',
  ].join('\n'),
};

const faithful = async (language: 'zh' | 'en', name: string, userName: string) => {
  const { v1, v2 } = await stages(CHAT[language], language, { name, userName });
  const turns = CHAT[language].split('\n').map((line) => {
    const [role, ...text] = line.split(': ');
    return { role: role!, text: text.join(': ') };
  });
  const memory = { content: { raw: turns } } as Parameters<typeof faithfulnessSource>[0];
  const source = faithfulnessSource(memory, { userId: 'u', name, userName, language }, language);
  for (const stage of [v1.compressedContent, v2.coreMemory]) expect(inventedSpans(stage, source)).toEqual([]);
  return { v1: v1.compressedContent, v2: v2.coreMemory };
};

describe('role card names', () => {
  it.each([
    ['May', 'Will'],
    ['Sunny', 'Hope'],
    ['Assistant', 'Emily'],
    ["O'Neil", "D'Angelo"],
    ['Dr. Ava', 'Mr. Li'],
  ])('%s and %s: every stage as said', async (name, userName) => {
    const { v1 } = await faithful('en', name, userName);
    expect(v1).toContain(`${userName} `);
  });

  it('a name with marks keeps its capitals where a reported sentence opens on it ("J.J. said J.J. may…")', async () => {
    const { v1 } = await faithful('en', 'J.J.', 'Emily');
    expect(v1).not.toMatch(/j\.J\./u);
  });

  it('a companion named as its user is I / 我: two speakers of one name would read as one', async () => {
    // "Juno baked bread with Juno's sister", "小暖也想试试" read as the user's own.
    const en = await faithful('en', 'Juno', 'Juno');
    expect(en.v1).toContain('I baked bread with my sister in Lyon');
    expect(en.v1).toContain("Juno's grandma");
    const zh = await faithful('zh', '小暖', '小暖');
    expect(zh.v1).toContain('我也想试试');
    expect(zh.v1).toContain('小暖外婆');
  });

  it('speakers labelled with marks ("Dr. Ava:", "O\'Neil:") are read as speakers, never left in a stage', async () => {
    const text = [
      "O'Neil: I lost my job as a banker yesterday, so I'm going to start my own dance studio.",
      "Dr. Ava: Sorry about your job, O'Neil! I opened my clinic in 2019 and it was scary too.",
      "O'Neil: Thanks. I found a room near the ocean and I bought a few yoga mats.",
      'Dr. Ava: That sounds perfect. I would love to visit it next Friday.',
    ].join('\n');
    const req = { ...request(text, 'en', share(text)), userRole: "O'Neil", speakers: ["O'Neil", 'Dr. Ava'] };
    const v1 = (await compressor.compressV1(req)).fields.compressedContent;
    expect(v1).not.toMatch(/(?:Dr\. Ava|O'Neil):/u);
    const turns = text.split('\n').map((line) => {
      const at = line.indexOf(': ');
      return { role: line.slice(0, at), text: line.slice(at + 2) };
    });
    expect(inventedSpans(v1, { language: 'en', turns, names: [], userRole: "O'Neil" })).toEqual([]);
  });

  it('a name that opens a longer one ("J", a speaker "Jon") speaks for no line of the longer', async () => {
    const text = [
      "Jon: Hey Gina! I'm getting ready for a dance comp near me next month. Super stoked!",
      'Gina: Jon, you have got this! Your moves are amazing.',
      "Jon: Thanks! I'll do my best to make you proud! I've been practicing every night for two hours.",
      'Gina: That is dedication. My store opened last week, the glass entrance came out great.',
      'Jon: Must have taken you ages to design it.',
      'Gina: Three months! But it was worth it, customers love it.',
    ].join('\n');
    const ask = (input: string, max: number) => ({
      ...request(input, 'en' as const, { min: 100, max }, { name: 'Juno', userName: 'J' }),
      userRole: 'Jon',
      speakers: ['Jon', 'Gina'],
    });
    const v1 = (await compressor.compressV1(ask(text, 300))).fields;
    const v2 = (await compressor.compressV2(ask(formatV1ForV2(v1 as V1Result, 'en'), 240))).fields;
    // "J said super stoked! Jon said Jon has been practicing…": Jon's line read as a user called J's.
    expect(v2.coreMemory).not.toMatch(/\bJ said\b|Jon said Jon/u);
  });
});
