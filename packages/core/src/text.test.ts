import { describe, expect, it } from 'vitest';
import {
  detectLanguage,
  estimateTokens,
  hanShare,
  inBothLanguages,
  measureLength,
  pairQuotes,
} from './text.js';

describe('text measures', () => {
  it('counts code points, so a Chinese character or an emoji is one', () => {
    expect(measureLength('你好😀')).toBe(3);
    expect('你好😀'.length).toBe(4);
  });

  it('detects Chinese even with some English words in it, and English otherwise', () => {
    expect(detectLanguage('我昨天买了一部新的iPhone，很开心')).toBe('zh');
    expect(detectLanguage('I bought a new phone yesterday, 很开心')).toBe('en');
    expect(detectLanguage('')).toBe('en');
    // A run of letters weighs a long word at most: three thousand a's in a Chinese chat are no English.
    expect(detectLanguage(`我今天去了公园，看到一只小狗。${'a'.repeat(3000)}我很开心。`)).toBe('zh');
  });

  it('knows a text in both languages by one band, wider where asked (the output gate)', () => {
    const mixed = 'I bought a new phone, 我很开心'; // Han share 4 / (4 + 16 / 4) = 0.5
    expect(inBothLanguages(mixed)).toBe(true);
    expect(inBothLanguages('我昨天买了一部新的iPhone，很开心')).toBe(false);
    expect(inBothLanguages('I bought a new phone yesterday and I am so happy, 开心')).toBe(false);
    // Han share 2 / (2 + 36 / 4) ≈ 0.18: under the compressor's band, inside the gate's.
    expect(inBothLanguages('I bought a new phone yesterday and I am happy 开心', 0.1)).toBe(true);
  });

  it('measures exactly as iterating code points and testing \\p{Script=Han} would, on every code point', () => {
    const han = /\p{Script=Han}/u;
    // Every code point once (lone surrogates included), in pieces mixed with Latin letters.
    for (let start = 0; start <= 0x10ffff; start += 0x1000) {
      const chars: string[] = [];
      for (let c = start; c < Math.min(start + 0x1000, 0x110000); c++)
        chars.push(String.fromCodePoint(c), 'a');
      const text = chars.join('');
      const points = [...text];
      const expectedHan = points.filter((ch) => han.test(ch)).length;
      const latin = points.filter((ch) => /[A-Za-z]/.test(ch)).length;
      expect(measureLength(text)).toBe(points.length);
      expect(hanShare(text)).toBe(expectedHan === 0 ? 0 : expectedHan / (expectedHan + latin / 4));
      expect(estimateTokens(text)).toBe(Math.ceil(expectedHan + (points.length - expectedHan) / 4));
    }
    // A surrogate pair split across the ends, and lone surrogates, count as the iterator counts them.
    for (const text of ['\ud83d', '\ude00', '\ude00\ud83d', 'a\ud83d\ude00b', '\ud840\udc00中'])
      expect(measureLength(text)).toBe([...text].length);
    expect(hanShare('\ud840\udc00')).toBe(1);
  });
});

describe('pairQuotes', () => {
  it('closes a curly quote left open at the sentence end, drops a closing one with none open, and a stray straight one', () => {
    expect(pairQuotes('你说妈妈又问你：“你什么时候结婚？')).toBe('你说妈妈又问你：“你什么时候结婚？”');
    expect(pairQuotes('”你不想回答她。')).toBe('你不想回答她。');
    expect(pairQuotes('知道，"大门门票15元。')).toBe('知道，大门门票15元。');
    expect(pairQuotes('他说：“好的。”你呢？')).toBe('他说：“好的。”你呢？');
  });
});
