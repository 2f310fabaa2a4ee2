import { describe, expect, it } from 'vitest';
import { detectLanguage, measureLength } from './text.js';

describe('text measures', () => {
  it('counts code points, so a Chinese character or an emoji is one', () => {
    expect(measureLength('你好😀')).toBe(3);
    expect('你好😀'.length).toBe(4);
  });

  it('detects Chinese even with some English words in it, and English otherwise', () => {
    expect(detectLanguage('我昨天买了一部新的iPhone，很开心')).toBe('zh');
    expect(detectLanguage('I bought a new phone yesterday, 很开心')).toBe('en');
    expect(detectLanguage('')).toBe('en');
  });
});
