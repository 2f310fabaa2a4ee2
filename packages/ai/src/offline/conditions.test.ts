import { describe, expect, it } from 'vitest';
import { compressor, request, share } from './compressor-harness.js';
import { conversationClauses } from './segment.js';
import { atoms } from './statements.js';

/**
 * A condition said before its main clause ("Unless the doctor says it's fine, I can't travel…",
 * "除非医生说没事，…") goes with it or not at all: dropped alone, it left the main clause said as if it
 * held anyway ("Sam can't travel to Sam's sister's wedding in May."), a claim nobody made.
 */
const CHATS = {
  en: [
    "user: Unless the doctor says it's fine, I can't travel to my sister's wedding in May. I've been looking forward to it all year.",
    'assistant: I hope the doctor has good news for you.',
    "user: Me too. Even if it rains, we'll hold it outside. She asked me to give a speech.",
    'assistant: What would you say in the speech?',
    'user: Probably how she took care of me when our dad left. She made me breakfast every day.',
  ].join('\n'),
  zh: [
    'user: 除非医生说没事，我不能去参加姐姐五月的婚礼。我盼了一整年了。',
    'assistant: 希望医生带来好消息。',
    'user: 我也希望。只要不下雨，婚礼就在户外办。她还让我在婚礼上致辞。',
    'assistant: 你打算说些什么呢？',
    'user: 大概会说爸爸离开以后她是怎么照顾我的。她每天都给我做早饭。',
  ].join('\n'),
};

describe('a condition before its main clause', () => {
  it('is never dropped from it (English: unless, even if)', async () => {
    const text = CHATS.en;
    const v1 = (
      await compressor.compressV1(request(text, 'en', share(text), { name: 'Juno', userName: 'Sam' }))
    ).fields.compressedContent;
    if (/can't travel/.test(v1)) expect(v1).toMatch(/[Uu]nless the doctor says it's fine, Sam can't travel/);
    if (/hold it outside/.test(v1)) expect(v1).toMatch(/[Ee]ven if it rains/);
    expect(v1).toMatch(/can't travel|hold it outside/);
  });

  it('is never dropped from it (Chinese: 除非, 只要)', async () => {
    const text = CHATS.zh;
    const v1 = (
      await compressor.compressV1(request(text, 'zh', share(text), { name: '小暖', userName: '阿杰' }))
    ).fields.compressedContent;
    if (/不能去参加/.test(v1)) expect(v1).toMatch(/除非医生说没事，(?:阿杰)?不能去参加/);
    if (/户外办/.test(v1)) expect(v1).toMatch(/只要不下雨/);
    expect(v1).toMatch(/不能去参加|户外办/);
  });

  it('writes no subject before "Provided that", which is no past tense ("Sam provided that…" said Sam provided)', async () => {
    const text = [
      'user: My back hurts again. Provided that the tests are fine, I will start running again next week.',
      'assistant: Fingers crossed for you.',
      'user: Whether or not I run, I will cheer for my brother at the marathon. He has trained all year.',
    ].join('\n');
    const v1 = (
      await compressor.compressV1(request(text, 'en', share(text), { name: 'Juno', userName: 'Sam' }))
    ).fields.compressedContent;
    expect(v1).not.toMatch(/Sam provided/);
    expect(v1).not.toMatch(/Whether or not Sam runs\./);
  });

  it('keeps an exception or condition after its clause in one statement with it (除非, 除了, unless, if)', () => {
    const statementOf = (text: string, part: string) =>
      atoms(conversationClauses(text), true).find((a) => a.text.includes(part))?.text;
    expect(statementOf('user: 我也不喝酒，除了在婚礼上。', '不喝酒')).toBe('我也不喝酒，除了在婚礼上。');
    expect(statementOf('user: 我不能去参加婚礼，除非医生说没事。', '不能去')).toBe(
      '我不能去参加婚礼，除非医生说没事。',
    );
    expect(statementOf("user: My sister will be upset, if I can't go.", 'upset')).toBe(
      "My sister will be upset, if I can't go.",
    );
  });
});
