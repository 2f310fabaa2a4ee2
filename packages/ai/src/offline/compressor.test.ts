import {
  type CompressionRequest,
  detectLanguage,
  formatV1ForV2,
  measureLength,
  type RoleCard,
  type V1Fields,
  type V1Result,
  type V2Fields,
  v2Target,
} from '@memfade/core';
import { describe, expect, it } from 'vitest';
import { OfflineCompressor } from './compressor.js';

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

const card = (language: 'zh' | 'en', extra: Partial<RoleCard> = {}): RoleCard =>
  language === 'zh'
    ? { userId: 'u', personality: '温柔细腻', hobbies: '画画，养狗', language, ...extra }
    : { userId: 'u', personality: 'warm, curious', hobbies: 'gardening, photography', language, ...extra };

const request = (
  text: string,
  language: 'zh' | 'en',
  targetLength: { min: number; max: number },
  extra: Partial<RoleCard> = {},
): CompressionRequest => ({
  memoryId: 'm',
  language,
  personality: '',
  roleCard: card(language, extra),
  text,
  targetLength,
});

const compressor = new OfflineCompressor();
const share = (text: string) => {
  const length = measureLength(text);
  return { min: Math.ceil(length * 0.3), max: Math.floor(length * 0.5) };
};

/** V1, then V2 on V1's text with the range stage.ts plans (the language's, at most 80% of V1). */
async function stages(text: string, language: 'zh' | 'en', extra: Partial<RoleCard> = {}) {
  const v1 = (await compressor.compressV1(request(text, language, share(text), extra))).fields;
  const range = language === 'zh' ? { min: 100, max: 200 } : { min: 250, max: 500 };
  const max = Math.min(range.max, Math.floor(measureLength(v1.compressedContent) * 0.8));
  const target = { min: range.min <= max ? range.min : Math.floor(max / 2), max };
  const input = formatV1ForV2(v1 as V1Result, language);
  const v2 = (await compressor.compressV2(request(input, language, target, extra))).fields;
  return { v1, v2 };
}

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
      "I'm Maya's AI companion.",
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

  it('names the topic the conversation opens with, in V1 and V2', async () => {
    const chat = [
      'user: 知道保利剧院吗？',
      'assistant: 知道呀，是首都重要的演出场所之一，常年会上演话剧和交响音乐会。',
      'user: 它的具体地址你知道吗？',
      'assistant: 知道，是北京市东城区东直门南大街14号保利大厦1层。',
      'user: 那门票大概多少钱？',
      'assistant: 看演出，普通场次180元左右，周末的场次会贵一些。',
    ].join('\n');
    const { v1, v2 } = await stages(chat, 'zh');
    expect(v1.compressedContent).toContain('保利剧院');
    expect(v2.coreMemory).toContain('保利剧院');
    // The bare answer travels with the question it answers.
    expect(v1.compressedContent).toContain(
      '你问它的具体地址，我说是北京市东城区东直门南大街14号保利大厦1层。',
    );
  });

  it("keeps the user's worry with its condition, as a statement", async () => {
    const chat = [
      'user: 明天就要期末数学考试了，我好紧张。',
      'assistant: 别紧张，你已经复习了很久了。',
      'user: 如果我考不好，妈妈会不高兴的吗？',
      'assistant: 妈妈更在乎你有没有努力，你每天都练习到九点，这些她都看到了。',
    ].join('\n');
    const { v1, v2 } = await stages(chat, 'zh');
    expect(v1.compressedContent).toContain('你担心如果你考不好，妈妈会不高兴的。');
    expect(v2.coreMemory).toContain('如果你考不好，妈妈会不高兴');
    expect(v2.emotionalResidue.dominantEmotion).toBe('焦虑');
  });

  it("keeps the user's request about themselves as a statement in V1 and V2", async () => {
    const chat = [
      'user: I started learning the cello in March and I practise every evening after work at the library.',
      'assistant: That is a lovely routine, I am so happy for you.',
      'user: Thanks! Do you have any good book recommendations for me?',
      'assistant: Sure! "The Inner Game of Music" is a classic, and many cellists like "Cello Practice Secrets".',
      'user: Great, I will order both this weekend. My recital is on 14 June at the community hall.',
      'assistant: Wonderful, I would love to hear how the recital goes. You have worked hard for it.',
      'assistant: Keep practising the hard passages slowly, and enjoy it.',
      'user: Haha, thank you so much, that is really kind of you to say, I appreciate it a lot!',
      'assistant: Of course, anytime. It is always so nice to chat with you like this in the evening.',
      'user: Same here, it is really nice, and thanks again for listening to me go on and on!',
    ].join('\n');
    const { v1 } = await stages(chat, 'en');
    // The user's "you" (the companion) is as said: only their own "I" / "me" is rewritten.
    expect(v1.compressedContent).toContain(
      'You asked whether you have any good book recommendations for you.',
    );
  });

  it("keeps no reported question in V2 but the user's worry (issue 36)", async () => {
    const input = [
      'You asked whether I have any good book recommendations for you.',
      'I asked whether you practised the hard passages today.',
      'You asked what happens if you forget the notes at the recital, you are so nervous about it.',
      'You said your recital is on 14 June at the community hall.',
      'You said you will order both books this weekend.',
    ].join('\n');
    const v2 = (await compressor.compressV2(request(input, 'en', { min: 40, max: 260 }))).fields;
    expect(v2.coreMemory).toContain('you are so nervous about it');
    expect(v2.coreMemory).toContain('14 June');
    expect(v2.coreMemory).not.toContain('book recommendations');
    expect(v2.coreMemory).not.toContain('I asked');
  });

  it("keeps the loss the user answered a companion's question with, and the question it answers (issue 36)", async () => {
    const chat = [
      'user: I finally visited the old harbour today and the view from the hill was amazing.',
      'assistant: That sounds lovely! Did you take any photos?',
      "user: It reminded me of the summers at my grandma's farm in Vermont.",
      'assistant: That sounds like a special memory. Do you still visit the farm?',
      'user: Not since she passed away in 2019.',
      'assistant: I am sorry.',
      'user: My team lead changed three times this year and every new one wants a different report format.',
      'assistant: That sounds exhausting. How are you coping with it?',
      'user: I started walking to work instead of taking the bus, and I signed up for a pottery class.',
      'assistant: Pottery, you are building a whole slow-living routine. I love it.',
    ].join('\n');
    const { v1, v2 } = await stages(chat, 'en', { name: 'Juno' });
    for (const stage of [v1.compressedContent, v2.coreMemory]) {
      expect(stage).toContain('you still visit the farm');
      expect(stage).toContain('not since she passed away in 2019');
      // The companion's "I love it." says what it loves nowhere.
      expect(stage).not.toMatch(/Juno loves it|I love it/);
    }
  });

  it("reports a companion's question about the user's fear as asked, never as a fact (issue 36)", async () => {
    const chat = [
      'user: 今天学校组织去科技馆参观了！看到了一个能模拟地震的房间，地震有7级那么大。',
      'assistant: 模拟地震！你害怕吗？',
      'user: 有一点，但是讲解员说遇到地震要躲在桌子下面，保护好头。',
      'assistant: 你记得真清楚，这个知识很重要。',
      'user: 我以后想当宇航员，去火星看看，我要好好学习数学和物理。',
    ].join('\n');
    const { v1 } = await stages(chat, 'zh', { name: '小暖' });
    expect(v1.compressedContent).not.toContain('小暖你害怕');
    expect(v1.compressedContent).toContain('小暖问你害怕');
  });

  it("takes the residue from the user, not the companion's reassurance", async () => {
    const chat = [
      'user: My cat Miso died this morning.',
      "assistant: Oh no, I'm so sorry. I'm happy to talk about her, it's wonderful that you had 14 great years.",
      'user: She had kidney disease for two years. My sister Dana is driving up on Saturday to help me bury her.',
      "assistant: I'm glad Dana will be with you. That's lovely.",
    ].join('\n');
    const { v2 } = await stages(chat, 'en');
    expect(v2.emotionalResidue.dominantEmotion).toBe('grief');
    expect(v2.emotionalResidue.summary).toBe('Your cat Miso died this morning.');
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
        'Your sister Olivia is getting married on June 14 in Lisbon.',
        'You are going to fly there on June 10',
        'Alfama district for 90 euros',
      ],
      ['Hey Sam', 'Wow', 'Thanks, Sam', 'Of course', 'lovely'],
    ],
    [
      'zh',
      CHAT_ZH,
      ['你表姐小雪5月20日要在杭州结婚了。', '你打算5月18日坐高铁过去'],
      ['哈哈', '嗯嗯', '那就好', '谢谢'],
    ],
  ] as const) {
    it(`keeps the date, the names and the plan of a ${language} chat and drops its small talk`, async () => {
      const { fields } = await compressor.compressV1(request(text, language, share(text)));
      for (const fact of kept) expect(fields.compressedContent).toContain(fact);
      for (const talk of filler) expect(fields.compressedContent).not.toContain(talk);
      // The key points are the facts, not the opening greetings.
      expect(fields.keyPoints.slice(0, 2).join('\n')).toContain(kept[0]);
      expect(fields.keyPoints.join('\n')).not.toContain(filler[0]);
    });
  }

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
