/**
 * The offline compressor's stages: V1 in 30-50% of the conversation, in its language, with no role
 * label and each statement attributed; V2 shorter than V1, from its key points and most important
 * statements, and the V2 draft. What of a conversation it keeps: compressor-keeps.test.ts.
 */
import {
  detectLanguage,
  formatV1ForV2,
  measureLength,
  type V1Fields,
  type V1Result,
  type V2Fields,
  v2Target,
} from '@memfade/core';
import { describe, expect, it } from 'vitest';
import { OfflineCompressor } from './compressor.js';
import { compressor, request, share, stages } from './compressor-harness.js';

const ZH = [
  'user: 今天我去西湖边散步，看到一只特别可爱的小狗，心情一下子就好起来了。',
  'assistant: 听起来很治愈！那只小狗是什么颜色的？',
  'user: 是一只白色的小柯基，主人说它叫豆豆，才五个月大，特别喜欢追着落叶跑。',
  'system: [sticker:happy]',
  'assistant: 好可爱的名字，你是不是也想养一只？',
  'user: 有点想，不过我现在住的地方太小了，等明年三月搬家以后再说吧。最近工作压力也很大，有点担心照顾不过来。',
  'assistant: 嗯，搬家以后空间大了就方便多了，到时候我帮你查查养狗要准备什么，也可以先去宠物店看看。',
  'user: 好呀，谢谢你！对了，我下周六还要去看画展，是我最喜欢的莫奈。',
  'assistant: 太棒了，莫奈的睡莲系列很有名，你一定会很享受的。记得拍照给我看。',
].join('\n');
const EN = [
  'user: I finally visited the botanical garden today and the view from the hill was amazing.',
  'assistant: That sounds lovely! What was the best part of the visit?',
  'user: Watching the sunset with Olivia. We brought sandwiches and stayed until it got dark, around 8 pm.',
  'system: [sticker:heart]',
  'assistant: What a nice way to spend the evening. Did you take any photos?',
  'user: A few, but honestly I just wanted to enjoy the moment for once instead of staring at my phone.',
  'assistant: That is a good habit. Moments like that stay with you longer than photos do.',
  'user: I am a bit nervous though, because my job interview at the design studio is on Thursday.',
  'assistant: You have led projects before, so you have real examples to talk about. Want to practise tomorrow?',
].join('\n');

/** Every text a stage shows a reader. */
const shown = (v1: V1Fields, v2: V2Fields) => [
  v1.compressedContent,
  ...v1.keyPoints,
  ...v1.emotionalHighlights,
  v2.coreMemory,
  ...v2.coreMemoryPoints,
  ...v2.memoryTraces.clear,
  ...v2.memoryTraces.fuzzy,
  ...v2.memoryTraces.vague,
  ...v2.forgotten.details,
  v2.emotionalResidue.summary,
];

describe('OfflineCompressor', () => {
  for (const [language, text] of [
    ['zh', ZH],
    ['en', EN],
  ] as const) {
    it(`compresses a ${language} conversation into 30-50% of it, in ${language}, the same way every time`, async () => {
      const target = share(text);
      const { fields, usage } = await compressor.compressV1(request(text, language, target));
      const out = measureLength(fields.compressedContent);
      expect(out).toBeGreaterThanOrEqual(target.min);
      expect(out).toBeLessThanOrEqual(target.max);
      expect(detectLanguage(fields.compressedContent)).toBe(language);
      expect(fields.keyPoints.length).toBeGreaterThanOrEqual(3);
      expect(usage.inputTokens).toBe(0);
      expect((await compressor.compressV1(request(text, language, target))).fields).toEqual(fields);
    });

    it(`writes a ${language} memory without role labels, system turns or stickers, each statement attributed`, async () => {
      const { v1, v2 } = await stages(text, language);
      for (const piece of shown(v1, v2))
        expect(piece).not.toMatch(/\b(?:user|assistant|system)\s*[:：]|sticker/i);
      // Each line opens with who speaks (after a time, in Chinese): the user by convention (你 /
      // You), the companion (我 / I).
      for (const line of v1.compressedContent.split('\n'))
        expect(line).toMatch(/^(?:今天)?(?:你|我)|^(?:You|I)\b/u);
    });
  }

  it("writes the user's words as 你 / you and keeps the companion's 我 / I, so the two never fuse", async () => {
    const zh = (await stages(ZH, 'zh')).v1.compressedContent;
    expect(zh).toContain('今天你去西湖边散步');
    expect(zh).toContain('我帮你查查养狗要准备什么');
    expect(zh).toContain('你下周六还要去看画展，是你最喜欢的莫奈。');
    const en = (await stages(EN, 'en')).v1.compressedContent;
    expect(en).toContain('You finally visited the botanical garden today');
    expect(en).not.toMatch(/\bI finally visited\b|\bmy job interview\b/);
  });

  it('names the persona and the user where the role card gives them', async () => {
    const { v1 } = await stages(ZH, 'zh', { name: '小暖', userName: '林小雨' });
    expect(v1.compressedContent).toContain('今天林小雨去西湖边散步');
    // Only each speaker's own 我 is named; the companion's 你 is the user, as said (issue 36).
    expect(v1.compressedContent).toContain('小暖帮你查查');
    expect(v1.compressedContent).not.toMatch(/我/u);
  });

  it('makes V2 shorter than V1 and never a copy of it, a sentence or two when V1 is short', async () => {
    for (const [language, text] of [
      ['zh', ZH],
      ['en', EN],
      [
        'zh',
        'user: 我下周三去上海出差，住在浦东的香格里拉酒店。\nassistant: 记得带上身份证和笔记本电脑，出差一共三天。',
      ],
    ] as const) {
      const { v1, v2 } = await stages(text, language);
      expect(measureLength(v2.coreMemory)).toBeLessThan(measureLength(v1.compressedContent));
      expect(v2.coreMemory).not.toBe(v1.compressedContent);
      expect(v2.coreMemory).not.toMatch(/[?？]/u);
    }
    // Even a caller asking for a range as long as V1 (the rule stage.ts had) gets a shorter V2.
    const v1 = (await compressor.compressV1(request(ZH, 'zh', share(ZH)))).fields;
    const length = measureLength(v1.compressedContent);
    const v2 = (
      await compressor.compressV2(request(v1.compressedContent, 'zh', { min: length, max: length }))
    ).fields;
    expect(measureLength(v2.coreMemory)).toBeLessThan(length);
  });

  it('fills V1 to the middle of its range and a capped V2 to the room V1 leaves it', async () => {
    const range = share(ZH);
    const v1 = (await compressor.compressV1(request(ZH, 'zh', range))).fields;
    expect(measureLength(v1.compressedContent)).toBeGreaterThanOrEqual(
      Math.floor((range.min + range.max) / 2),
    );
    // A V1 of 392 characters: V2 at most 80% of it (313), the minimum stage.ts plans lowered to
    // 60% of that for a model's sake; the offline compressor still ends within the configured
    // range (250-500), with whole sentences, never a clause cut to fill ("I said certainly,").
    const text = [
      "Maya's name is Maya.",
      'Maya has a cat named Miso.',
      'Maya really enjoys painting, playing piano and tea tasting.',
      'I said certainly, there are many books about painting techniques, piano playing and tea knowledge that I can recommend to Maya.',
      'Maya prefers artistic works, like "The Great Gatsby" which is full of charm.',
      'I recommend "The Little Prince" and "Pride and Prejudice".',
      'Maya will take a look.',
    ].join('\n');
    const max = Math.floor(measureLength(text) * 0.8);
    const v2 = (await compressor.compressV2(request(text, 'en', { min: Math.floor(max * 0.6), max }))).fields;
    expect(measureLength(v2.coreMemory)).toBeGreaterThanOrEqual(250);
    expect(measureLength(v2.coreMemory)).toBeLessThanOrEqual(max);
    expect(v2.coreMemory).not.toMatch(/certainly\./);
  });

  it("builds V2 of a V1 summarised in many chunks from those chunks' key points only", async () => {
    // A V1 merged from 3 chunks (stage.ts mergeV1): 15 key points, and statements none of them holds.
    const lines = Array.from(
      { length: 15 },
      (_, i) => `Maya visited museum number ${i + 1} in Lisbon on day ${i + 1}.`,
    );
    const minor = Array.from({ length: 30 }, (_, i) => `Maya had lunch ${i + 1} times.`);
    const v1 = {
      compressedContent: [...lines, ...minor].join('\n'),
      keyPoints: lines,
      emotionalHighlights: [],
      personalityAdjustment: { emphasized: [], deemphasized: [] },
    } as unknown as V1Result;
    const v2 = (await compressor.compressV2(request(formatV1ForV2(v1, 'en'), 'en', { min: 250, max: 500 })))
      .fields;
    const sentences = v2.coreMemory.split(/(?<=\.)\s+/u).filter(Boolean);
    expect(sentences.length).toBeGreaterThan(3);
    for (const s of sentences) expect(lines).toContain(s);
  });

  it('reads a conversation labelled by its own speakers (明天, 我 / 你) as one when V2 is asked of it', async () => {
    // The pipeline asks V2 of the conversation where V2 from V1 failed: its labels were written as prose.
    for (const [a, b] of [
      ['明天', '天天'],
      ['我', '你'],
    ]) {
      const text = `${a}: 我今天去了公园，看到一只小狗。\n${b}: 真好！\n${a}: 我们班要选班长，我想报名。`;
      const asked = { ...request(text, 'zh', { min: 10, max: 60 }), speakers: [a!, b!] };
      const { coreMemory } = (await compressor.compressV2(asked)).fields;
      expect(coreMemory).toMatch(/^(?:你|明天).*(?:公园|班长)/);
      expect(coreMemory).not.toMatch(new RegExp(`(?:${a}|${b})[:：]`));
    }
  });

  it('builds V2 from the most important V1 statements of a long memory, with no orphan fragment', async () => {
    const day = (n: number) => [
      `user: 第${n}天我们去了第${n}个景点，门票是${20 + n}元，我拍了很多照片。`,
      `assistant: 那里开放时间是早上${8 + (n % 3)}点。`,
      'user: 而且它的风景特别好，也很安静。',
      `assistant: ${n * 10}元。`,
    ];
    const text = Array.from({ length: 120 }, (_, i) => day(i + 1).join('\n')).join('\n');
    const { v2 } = await stages(text, 'zh');
    const sentences = v2.coreMemory.split(/(?<=[。！？])/u).filter(Boolean);
    expect(sentences.length).toBeGreaterThan(1);
    for (const s of sentences) {
      expect(s).not.toMatch(/^(?:而且|它|也|\d+元。$)/u);
      expect(s).not.toMatch(/^[\d\s元。]+$/u);
    }
  });

  it.each(['zh', 'en'] as const)(
    '%s: writes the V2 draft asked with V1 to the target V2 would have from that V1, from the whole conversation',
    async (language) => {
      const text = language === 'zh' ? ZH : EN;
      const range = language === 'zh' ? { min: 100, max: 200 } : { min: 250, max: 500 };
      // The pipeline's target for the draft assumes a V1 in the middle of its range; this one is asked
      // for a draft far below what its V1 allows, which it must not take for V2's target.
      const asked = { targetLength: { min: 10, max: 20 }, range };
      const drafting = new OfflineCompressor({ drafts: true });
      const reply = await drafting.compressV1({ ...request(text, language, share(text)), draft: asked });
      const draft = reply.draft?.coreMemory ?? '';
      const target = v2Target(measureLength(reply.fields.compressedContent), range);
      expect(measureLength(draft)).toBeGreaterThan(asked.targetLength.max);
      expect(measureLength(draft)).toBeLessThanOrEqual(target.max);
    },
  );
});
