import { type CompressionRequest, detectLanguage, measureLength, type RoleCard } from '@memfade/core';
import { describe, expect, it } from 'vitest';
import { OfflineCompressor } from './offline-compressor.js';

const ZH = [
  'user: 今天我去西湖边散步，看到一只特别可爱的小狗，心情一下子就好起来了。',
  'assistant: 听起来很治愈！那只小狗是什么颜色的？',
  'user: 是一只白色的小柯基，主人说它叫豆豆，才五个月大，特别喜欢追着落叶跑。',
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
  'assistant: What a nice way to spend the evening. Did you take any photos?',
  'user: A few, but honestly I just wanted to enjoy the moment for once instead of staring at my phone.',
  'assistant: That is a good habit. Moments like that stay with you longer than photos do.',
  'user: I am a bit nervous though, because my job interview at the design studio is on Thursday.',
  'assistant: You have led projects before, so you have real examples to talk about. Want to practise tomorrow?',
].join('\n');

const card = (language: 'zh' | 'en'): RoleCard =>
  language === 'zh'
    ? { userId: 'u', personality: '温柔细腻', hobbies: '画画，养狗', language }
    : { userId: 'u', personality: 'warm, curious', hobbies: 'gardening, photography', language };

function request(
  text: string,
  language: 'zh' | 'en',
  targetLength: { min: number; max: number },
): CompressionRequest {
  return { memoryId: 'm', language, personality: '', roleCard: card(language), text, targetLength };
}

const compressor = new OfflineCompressor();

describe('OfflineCompressor', () => {
  for (const [language, text] of [
    ['zh', ZH],
    ['en', EN],
  ] as const) {
    it(`compresses a ${language} conversation into 30-50% of it, in ${language}`, async () => {
      const length = measureLength(text);
      const target = { min: Math.ceil(length * 0.3), max: Math.floor(length * 0.5) };
      const { fields, usage } = await compressor.compressV1(request(text, language, target));
      const out = measureLength(fields.compressedContent);
      expect(out).toBeGreaterThanOrEqual(target.min);
      expect(out).toBeLessThanOrEqual(target.max);
      expect(detectLanguage(fields.compressedContent)).toBe(language);
      expect(fields.keyPoints.length).toBeGreaterThanOrEqual(3);
      expect(fields.emotionalHighlights.length).toBeGreaterThan(0);
      expect(usage.inputTokens).toBe(0);
      // Deterministic: the same input gives the same output.
      expect((await compressor.compressV1(request(text, language, target))).fields).toEqual(fields);
    });
  }

  it('keeps what the persona cares about', async () => {
    const { fields } = await compressor.compressV1(request(ZH, 'zh', { min: 100, max: 200 }));
    expect(fields.personalityAdjustment.emphasized).toContain('养狗');
  });

  it('makes a V2 core memory within the Chinese 100-200 character target, with an emotional residue', async () => {
    const { fields } = await compressor.compressV2(request(ZH, 'zh', { min: 100, max: 200 }));
    const length = measureLength(fields.coreMemory);
    expect(length).toBeGreaterThanOrEqual(100);
    expect(length).toBeLessThanOrEqual(200);
    expect(detectLanguage(fields.coreMemory)).toBe('zh');
    expect(fields.coreMemory).not.toMatch(/user:|assistant:/);
    expect(fields.emotionalResidue.dominantEmotion).toBe('喜悦');
    expect(fields.emotionalResidue.intensity).toBeGreaterThan(0);
    expect(fields.forgotten.reason).toMatch(/[\u4e00-\u9fff]/);
  });

  it('makes an English V2 core memory within 250-500 characters', async () => {
    const { fields } = await compressor.compressV2(request(EN, 'en', { min: 250, max: 500 }));
    const length = measureLength(fields.coreMemory);
    expect(length).toBeGreaterThanOrEqual(250);
    expect(length).toBeLessThanOrEqual(500);
    expect(fields.emotionalResidue.dominantEmotion).not.toBe('');
  });
});
