import { describe, expect, it } from 'vitest';
import { typedCase, withoutPlaceholders } from './typed-text.js';

describe('withoutPlaceholders', () => {
  it('leaves out emoticons typed as marks ("<3." kept alone read as the number 3), never a time or a link', () => {
    expect(withoutPlaceholders('Love you <3')).toBe('Love you');
    expect(withoutPlaceholders('Thanks :) see you ;-P')).toBe('Thanks see you');
    expect(withoutPlaceholders('It is 10:30 now, see http://x.com')).toBe(
      'It is 10:30 now, see http://x.com',
    );
    expect(withoutPlaceholders('I scored 2<3')).toBe('I scored 2<3');
    // Control characters are no one's words either.
    expect(withoutPlaceholders('hello \u0000 world\u0007')).toBe('hello world');
  });

  it('leaves out a model\'s markdown marks, never a word: "**Oh no, Mia!**" is an interjection, not news', () => {
    expect(withoutPlaceholders('assistant: **Oh no, Mia!** What happened?')).toBe(
      'assistant: Oh no, Mia! What happened?',
    );
    expect(withoutPlaceholders('## Tips: > rest ~~more~~')).toBe('Tips: rest more');
    // A mark that is no markdown stays: a product, a comparison, an apostrophe typed as a backtick.
    expect(withoutPlaceholders('I scored 5*3 > 12 at mom`s')).toBe('I scored 5*3 > 12 at mom`s');
  });

  it('reads a word as a reader sees it: no zero-width character splits it, an accent typed apart is one letter', () => {
    expect(withoutPlaceholders('I wo\u200brry\ufeff about Jose\u0301')).toBe('I worry about José');
  });
});

describe('typedCase', () => {
  it('writes English typed in lower case as sentences: its "i" is "I", each sentence opens on a capital', () => {
    expect(typedCase("i'm tired. i work nights, i.e. from 10pm. she is sick.")).toBe(
      "I'm tired. I work nights, i.e. from 10pm. She is sick.",
    );
    // Words with an i in them, and Chinese, stay as typed.
    expect(typedCase('my iPhone and wi-fi')).toBe('My iPhone and wi-fi');
    expect(typedCase('我用iPhone拍了照片')).toBe('我用iPhone拍了照片');
  });
});
