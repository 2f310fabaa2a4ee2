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

  // Small talk around three facts: a date, a name (and a place), a plan.
  const CHAT_EN = [
    'user: Hey Sam!',
    'assistant: Hi! How are you doing today?',
    'user: Wow, thanks for asking, Sam!',
    'assistant: Of course! It is always good to hear from you.',
    'user: My sister Olivia is getting married on June 14 in Lisbon.',
    'assistant: Oh wow, that is so great to hear!',
    'user: Yeah, it really is.',
    'user: I am going to fly there on June 10 and stay with her for a week.',
    'user: We booked a small hotel near the Alfama district for 90 euros a night.',
    'assistant: That sounds really lovely, honestly.',
    'user: Thanks, Sam!',
  ].join('\n');
  const CHAT_ZH = [
    'user: 哈哈，你好呀！',
    'assistant: 你好你好，今天过得怎么样呀？',
    'user: 还行吧，嗯嗯。',
    'assistant: 那就好，那就好。',
    'user: 我表姐小雪5月20日要在杭州结婚了。',
    'assistant: 哇，真的吗？太好了！',
    'user: 是呀是呀，真的。',
    'user: 我打算5月18日坐高铁过去，住在西湖边上那家我们小时候一起去过的又安静又漂亮的老旅馆里。',
    'assistant: 嗯嗯，好的好的。',
    'user: 谢谢你呀！',
  ].join('\n');

  for (const [language, text, kept, filler] of [
    [
      'en',
      CHAT_EN,
      [
        'My sister Olivia is getting married on June 14 in Lisbon.',
        'I am going to fly there on June 10',
        'Alfama district for 90 euros',
      ],
      ['Hey Sam', 'Wow', 'Thanks, Sam', 'Of course', 'lovely'],
    ],
    [
      'zh',
      CHAT_ZH,
      ['我表姐小雪5月20日要在杭州结婚了。', '我打算5月18日坐高铁过去'],
      ['哈哈', '嗯嗯', '那就好', '谢谢'],
    ],
  ] as const) {
    it(`keeps the date, the names and the plan of a ${language} chat and drops its small talk`, async () => {
      const length = measureLength(text);
      const target = { min: Math.ceil(length * 0.3), max: Math.floor(length * 0.5) };
      const { fields } = await compressor.compressV1(request(text, language, target));
      for (const fact of kept) expect(fields.compressedContent).toContain(fact);
      for (const talk of filler) expect(fields.compressedContent).not.toContain(talk);
      // The key points are the facts, said by whom, not the opening greetings.
      expect(fields.keyPoints.slice(0, 2).join('\n')).toContain(kept[0]);
      expect(fields.keyPoints.join('\n')).toContain(`user: ${kept[1]}`);
      expect(fields.keyPoints.join('\n')).toContain(`user: ${kept[0]}`);
      expect(fields.keyPoints.join('\n')).not.toContain(filler[0]);
    });
  }

  it('keeps the densest facts in V2 and traces whole clauses, never a cut phrase', async () => {
    const { fields } = await compressor.compressV2(request(CHAT_ZH, 'zh', { min: 30, max: 60 }));
    expect(fields.coreMemory).toContain('5月20日');
    expect(fields.coreMemory).toContain('5月18日');
    expect(fields.coreMemory).not.toMatch(/哈哈|嗯嗯|谢谢/);
    const traces = [...fields.memoryTraces.clear, ...fields.memoryTraces.fuzzy, ...fields.memoryTraces.vague];
    expect(traces.length).toBeGreaterThan(0);
    for (const trace of traces) {
      const clause = trace.replace(/^user: |^assistant: /, '').replace(/[。？！]$/, '');
      // Each trace is a clause of the input, ending where the input's clause ends.
      expect(CHAT_ZH).toMatch(new RegExp(`${clause}[，。！？]`));
    }
  });

  it('reports no emotion for a conversation without emotion words, and the sentence that carries one otherwise', async () => {
    const flat = [
      'user: 我下周三去上海出差，住在浦东的酒店。',
      'assistant: 记得带上身份证和笔记本电脑，出差一共三天。',
    ].join('\n');
    const none = (await compressor.compressV2(request(flat, 'zh', { min: 20, max: 40 }))).fields
      .emotionalResidue;
    expect(none).toEqual({ dominantEmotion: '', intensity: 0, summary: '' });

    // Glad once, then sad twice: the residue is sadness, carried by a sad sentence, not the first feeling.
    const sad = [
      'user: 谢谢你昨天陪我聊天，我很开心。',
      'assistant: 不客气，我也很高兴。',
      'user: 我的猫上周走了，我一直很难过。',
      'assistant: 它陪了你十二年，想念它是很自然的。',
      'user: 我打算周末把它的照片洗出来，心里还是很伤心。',
    ].join('\n');
    const felt = (await compressor.compressV2(request(sad, 'zh', { min: 20, max: 60 }))).fields
      .emotionalResidue;
    expect(felt.dominantEmotion).toBe('悲伤');
    // Every sentence carries a feeling.
    expect(felt.intensity).toBe(1);
    expect([
      '我的猫上周走了，我一直很难过。',
      '它陪了你十二年，想念它是很自然的。',
      '我打算周末把它的照片洗出来，心里还是很伤心。',
    ]).toContain(felt.summary);
  });
});
