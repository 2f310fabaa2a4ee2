import { describe, expect, it } from 'vitest';
import { nameOwner, speakerKind, Voice } from './voice.js';

const turns = (...labels: string[]) => labels.map((label) => ({ label, text: '' }));

describe("Voice: who said what, in the memory's words", () => {
  it('tells roles from names', () => {
    expect(speakerKind('user')).toBe('user');
    expect(speakerKind('用户')).toBe('user');
    expect(speakerKind('Assistant')).toBe('companion');
    expect(speakerKind('system')).toBe('system');
    expect(speakerKind('Caroline')).toBe('named');
  });

  describe('Chinese: the companion is 我, the user 你, by convention', () => {
    const voice = new Voice('zh', turns('user', 'assistant'), {});

    it("turns the user's 我 into 你 and their 你 (the companion) into 我, in one pass", () => {
      expect(voice.rewrite('我今天去西湖边散步，你知道吗？', 'user')).toBe('你今天去西湖边散步，我知道吗？');
      expect(voice.rewrite('我们点了毛肚。', 'user')).toBe('你们点了毛肚。');
      // The companion's own words are already in its voice.
      expect(voice.rewrite('我帮你查查，我们一起去。', 'assistant')).toBe('我帮你查查，我们一起去。');
    });

    it('keeps words that only contain a pronoun, and thanks without a "谢谢我"', () => {
      expect(voice.rewrite('恭王府是我国保存最完整的王府。', 'user')).toBe('恭王府是我国保存最完整的王府。');
      expect(voice.rewrite('你好呀，谢谢你！', 'user')).toBe('你好呀，谢谢！');
    });

    it("writes the persona's name (role card `name`) and the user's (`userName`) where the card has them", () => {
      const named = new Voice('zh', turns('user', 'assistant'), { name: '小暖', userName: '林小雨' });
      expect(named.rewrite('我帮你查查，咱们一起去。', 'assistant')).toBe(
        '小暖帮林小雨查查，林小雨和小暖一起去。',
      );
      expect(named.rewrite('我想养一只狗。', 'user')).toBe('林小雨想养一只狗。');
    });

    it('names a person once a sentence: where a clause starts the name goes, before 的 it is 自己', () => {
      const named = new Voice('zh', turns('user', 'assistant'), { name: '小暖', userName: '刘琳' });
      expect(named.rewrite('今天我想谈论一下我的写作。我最近很忙。', 'user')).toBe(
        '今天刘琳想谈论一下自己的写作。刘琳最近很忙。',
      );
      expect(named.rewrite('如果你想试试，你可以去参加课程，与其他人分享你的爱好。', 'assistant')).toBe(
        '如果刘琳想试试，可以去参加课程，与其他人分享自己的爱好。',
      );
      // Someone else between the two: the name stays ("小暖给自己的建议" would be 小暖's own).
      expect(named.rewrite('我会尝试你给我的建议的，谢谢你的支持。', 'user')).toBe(
        '刘琳会尝试小暖给刘琳的建议的，谢谢小暖的支持。',
      );
      // Introducing oneself says the name once: not "刘琳叫刘琳".
      expect(named.rewrite('我叫刘琳，很高兴认识你。', 'user')).toBe('刘琳很高兴认识小暖。');
      // Already named by the line ("刘琳说…"): the first 我 of the sentence is that name again.
      expect(named.rewrite('其实我最近一直在考虑工作。', 'user', true)).toBe('其实最近一直在考虑工作。');
    });
  });

  describe('English: the companion is "I", the user "you"', () => {
    const voice = new Voice('en', turns('user', 'assistant'), {});

    it("rewrites the user's first person with its verbs, and their 'you' as the companion, subject or object", () => {
      expect(voice.rewrite("I'm nervous about my interview, and I was scared.", 'user')).toBe(
        "You're nervous about your interview, and you were scared.",
      );
      expect(voice.rewrite('Are you sure? I think you are right.', 'user')).toBe(
        'Am I sure? You think I am right.',
      );
      expect(voice.rewrite('Can you help me? I told you already.', 'user')).toBe(
        'Can I help you? You told me already.',
      );
      expect(voice.rewrite('We buried her in the garden. Thank you so much!', 'user')).toBe(
        'You buried her in the garden. Thanks so much!',
      );
      // The user and others ("us") after the user as subject: not "you signed you up".
      expect(voice.rewrite('I signed us up for a course. Sam invited us.', 'user')).toBe(
        'You signed yourselves up for a course. Sam invited you.',
      );
    });

    it("names a persona with a 3rd-person verb, once a sentence, then 'they'", () => {
      const mia = new Voice('en', turns('user', 'assistant'), { name: 'Mia' });
      expect(mia.rewrite("I think you loved her, and I've been there.", 'assistant')).toBe(
        'Mia thinks you loved her, and they have been there.',
      );
      expect(mia.rewrite('I really love your photos. I know.', 'assistant')).toBe(
        'Mia really loves your photos. Mia knows.',
      );
    });

    it("writes two named speakers by name, each one's 'you' as the other, their 'we' as 'they'", () => {
      const locomo = new Voice('en', turns('Caroline', 'Melanie'), {});
      expect(
        locomo.rewrite('I went to a support group yesterday. Have you been? We loved it.', 'Caroline'),
      ).toBe('Caroline went to a support group yesterday. Has Melanie been? They loved it.');
    });
  });

  it('reads whose name the card gives when it has no userName: a user who introduces themself with it owns it', () => {
    expect(nameOwner('Emily', 'My name is Emily.', 'Nice to meet you!')).toBe('user');
    expect(nameOwner('Mia', 'Thanks, Mia!', "I'm Mia, your companion.")).toBe('companion');
    expect(nameOwner('Gary', 'I love cooking.', 'Gary, you can start with easy dishes.')).toBe('user');
    expect(nameOwner('Mia', 'Hello!', 'Hello!')).toBe('companion');
  });
});
