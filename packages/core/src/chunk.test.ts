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

  it('cuts a single sentence longer than the budget by length', () => {
    const text = '啊'.repeat(450);
    const chunks = splitIntoChunks(text, 200);
    expect(chunks.map(measureLength)).toEqual([200, 200, 50]);
  });
});
