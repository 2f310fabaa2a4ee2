import { describe, expect, it } from 'vitest';
import { emotionsIn } from './lexicon.js';

describe('emotionsIn', () => {
  it('reads a Chinese question asked both ways as no feeling, nor its negation', () => {
    // "有没有喜欢的作者" asks; it said no sadness (a user asking the companion read as "担心"), and no joy: a child's
    // "他问我喜不喜欢踢足球。" was the residue of a day whose feeling was "我有点害怕" (a written one-string memory).
    expect(emotionsIn('你有没有喜欢的作者或者书籍？', 'zh')).toEqual([]);
    expect(emotionsIn('他问我喜不喜欢踢足球。', 'zh')).toEqual([]);
    expect(emotionsIn('你今天开不开心？', 'zh')).toEqual([]);
    // A negated joy is still sadness.
    expect(emotionsIn('我今天不开心。', 'zh')).toContain('sadness');
    expect(emotionsIn('我没有喜欢的书。', 'zh')).toContain('sadness');
  });

  it('reads no feeling of the speaker in a story\'s plot ("It\'s about a woman who… after her mom dies")', () => {
    expect(emotionsIn("It's about a woman who goes back to her hometown after her mom dies.", 'en')).toEqual(
      [],
    );
    expect(emotionsIn('讲的是福贵一家的故事，家人一个个都去世了。', 'zh')).toEqual([]);
    expect(emotionsIn('My mom died last spring.', 'en')).toContain('grief');
  });

  it('reads no feeling in a title ("《伤心太平洋》")', () => {
    expect(emotionsIn('我昨天看了《伤心太平洋》。', 'zh')).toEqual([]);
    expect(emotionsIn('我看完《伤心太平洋》哭了。', 'zh')).toContain('sadness');
  });

  it('reads 走了 as a death, not as leaving', () => {
    expect(emotionsIn('奶奶上个月走了。', 'zh')).toContain('grief');
    expect(emotionsIn('这样就可以带着猫走了。', 'zh')).not.toContain('grief');
    expect(emotionsIn('不早了，我先走了。', 'zh')).not.toContain('grief');
  });
});
