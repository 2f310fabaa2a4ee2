import { describe, expect, it } from 'vitest';
import { conversationSentences, splitSentences } from './segment.js';

describe('splitSentences', () => {
  it('splits Chinese at its own punctuation, keeping closing quotes with the sentence', () => {
    expect(splitSentences('今天天气很好。我们去公园吧！你说“好不好？”他笑了……然后走了')).toEqual([
      '今天天气很好。',
      '我们去公园吧！',
      '你说“好不好？”',
      '他笑了……',
      '然后走了',
    ]);
  });

  it('splits English without breaking abbreviations or decimals', () => {
    expect(splitSentences('Dr. Smith paid 3.5 dollars. Was it worth it? Yes! See e.g. the menu.')).toEqual([
      'Dr. Smith paid 3.5 dollars.',
      'Was it worth it?',
      'Yes!',
      'See e.g. the menu.',
    ]);
  });

  it('tags sentences with their speaker and drops section labels', () => {
    const sentences = conversationSentences(
      '【摘要】出去玩了。\nuser: 我很开心。你呢？\nassistant: I am glad.',
    );
    expect(sentences.map((s) => [s.speaker, s.text])).toEqual([
      [undefined, '出去玩了。'],
      ['user', '我很开心。'],
      ['user', '你呢？'],
      ['assistant', 'I am glad.'],
    ]);
  });
});
