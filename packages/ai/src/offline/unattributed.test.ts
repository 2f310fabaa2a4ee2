import { formatV1ForV2, inventedSpans, measureLength, type V1Result } from '@memfade/core';
import { describe, expect, it } from 'vitest';
import { compressor, request, share } from './compressor-harness.js';

/** Issue 36, deliver 5: a memory stored as one string has no speaker, so none is invented for it. */
describe('a memory stored as one string', () => {
  const STRING = {
    zh: '今天我和妈妈去公园放风筝了，风筝飞得好高，是红色的，上面画着一条龙。后来下雨了，我们跑到亭子里躲雨。妈妈说下周我们再去一次，我好开心。我还想带上我的好朋友乐乐一起去，她也喜欢放风筝。回家以后我画了一幅画，画的就是今天的风筝。爸爸说我画得很好，要把它挂在墙上。不过我有点担心下周又会下雨。',
    en: 'Today I went to the park with my mom and we flew a kite. The kite was red with a dragon on it and it went really high. Then it started raining so we ran under a shelter. My mom said we can go again next week and I am so happy. I want to bring my best friend Leo too because he loves kites. When we got home I drew a picture of the kite and my dad said he will hang it on the wall. I am a bit worried it will rain again next week though.',
  };
  for (const language of ['zh', 'en'] as const) {
    it(`is attributed to nobody: no 你说 / "You said", its 我 / "I" as written, nothing the gate refuses (${language})`, async () => {
      const text = STRING[language];
      const extra = { name: language === 'zh' ? '小满' : 'Mia' };
      const v1 = (
        await compressor.compressV1({ ...request(text, language, share(text), extra), unattributed: true })
      ).fields;
      const input = formatV1ForV2(v1 as V1Result, language);
      const target = {
        min: Math.floor(measureLength(v1.compressedContent) * 0.4),
        max: Math.floor(measureLength(v1.compressedContent) * 0.8),
      };
      const v2 = (
        await compressor.compressV2({ ...request(input, language, target, extra), unattributed: true })
      ).fields;
      const source = { language, turns: [{ text }], names: [extra.name] };
      for (const stage of [v1.compressedContent, v2.coreMemory, ...v1.keyPoints]) {
        expect(stage).not.toMatch(
          language === 'zh' ? /[你小满]|说：|聊到了/u : /\b(?:you|your|Mia|talked)\b/iu,
        );
        expect(inventedSpans(stage, source)).toEqual([]);
      }
      expect(v1.compressedContent).toMatch(language === 'zh' ? /我/u : /\bI\b/u);
      // The same text as one turn of the user's is the user's: 你 / "you" (the convention stays where a speaker is known).
      const theirs = (await compressor.compressV1(request(`user: ${text}`, language, share(text), extra)))
        .fields;
      expect(theirs.compressedContent).toMatch(language === 'zh' ? /你/u : /\b[Yy]ou\b/u);
    });
  }

  it('reads a transcript stored on one line ("User: … Juno: …") as turns: no label in its stages', async () => {
    const text =
      "User: I had a rough day, my boss yelled at me in front of everyone. Juno: I'm sorry, that sounds awful. " +
      "User: Yeah. I'm thinking about quitting. I've been there three years. Juno: What's holding you back? " +
      'User: Money mostly. My rent went up last month.';
    const v1 = (
      await compressor.compressV1({
        ...request(text, 'en', share(text), { name: 'Juno' }),
        unattributed: true,
      })
    ).fields.compressedContent;
    expect(v1).not.toMatch(/\b(?:User|Juno):/u);
    expect(v1).toContain('quitting');
    const zh =
      '我：今天好累啊，老板又让我加班到十点。小暖：辛苦了，要不要先休息一下？我：不行，明天还要交报告。';
    const v1zh = (
      await compressor.compressV1({ ...request(zh, 'zh', share(zh), { name: '小暖' }), unattributed: true })
    ).fields.compressedContent;
    expect(v1zh).not.toMatch(/我：|小暖：/u);
  });
});
