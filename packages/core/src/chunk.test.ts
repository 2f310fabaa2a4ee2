import { describe, expect, it } from 'vitest';
import { splitIntoChunks } from './chunk.js';
import { measureLength } from './text.js';

describe('splitIntoChunks', () => {
  it('keeps short text whole', () => {
    expect(splitIntoChunks('短文本。', 100)).toEqual(['短文本。']);
  });

  it('splits long Chinese and English text within the budget and loses nothing', () => {
    const zh = '今天我们去了公园，看到了很多樱花。'.repeat(40);
    const en = 'We walked to the park. The cherry trees were in bloom!\n'.repeat(40);
    for (const text of [zh, en, `${zh}\n${en}`]) {
      const chunks = splitIntoChunks(text, 200);
      expect(chunks.length).toBeGreaterThan(1);
      expect(chunks.join('')).toBe(text);
      for (const chunk of chunks) expect(measureLength(chunk)).toBeLessThanOrEqual(200);
    }
  });

  it('cuts a sentence longer than the budget between words, before a subject where one is near', () => {
    // A voice transcript with no stop: cut mid-word ("fl" + "owers") or before a verb ("saw many…", written
    // "You saw…"), a chunk opened on words nobody said in that order.
    const text = 'i went to the park and saw many flowers and '.repeat(30);
    const chunks = splitIntoChunks(text, 200);
    expect(chunks.join('')).toBe(text);
    for (const chunk of chunks.slice(1)) expect(chunk).toMatch(/^i went /);
    for (const chunk of chunks) expect(measureLength(chunk)).toBeLessThanOrEqual(200);
    // No subject near: between words still, never inside one.
    const words = splitIntoChunks('saw many flowers '.repeat(30), 100);
    for (const chunk of words.slice(1)) expect(chunk).toMatch(/^(?:saw|many|flowers) /);
  });

  it('cuts a single sentence longer than the budget by length', () => {
    const text = '啊'.repeat(450);
    const chunks = splitIntoChunks(text, 200);
    expect(chunks.map(measureLength)).toEqual([200, 200, 50]);
  });
});
