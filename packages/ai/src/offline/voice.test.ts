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

  describe("Chinese: the companion is 我, the user 你, by convention; only the speaker's own 我 changes", () => {
    const voice = new Voice('zh', turns('user', 'assistant'), {});

    it("turns the user's own 我 into 你, and leaves every other pronoun as said (issue 36)", () => {
      expect(voice.rewrite('我今天去西湖边散步，你知道吗？', 'user')).toBe('你今天去西湖边散步，你知道吗？');
      // 我们, 我俩 are the user and others: as said, not 你们.
      expect(voice.rewrite('我们点了毛肚。我俩都爱吃。', 'user')).toBe('我们点了毛肚。我俩都爱吃。');
      // The companion's own words are already in its voice.
      expect(voice.rewrite('我帮你查查，我们一起去。', 'assistant')).toBe('我帮你查查，我们一起去。');
    });

    it('keeps words that only contain a pronoun, and thanks as said', () => {
      expect(voice.rewrite('恭王府是我国保存最完整的王府。', 'user')).toBe('恭王府是我国保存最完整的王府。');
      expect(voice.rewrite('你好呀，谢谢你！', 'user')).toBe('你好呀，谢谢你！');
    });

    it("writes the persona's name (role card `name`) and the user's (`userName`) for their own 我 only", () => {
      const named = new Voice('zh', turns('user', 'assistant'), { name: '小暖', userName: '林小雨' });
      expect(named.rewrite('我帮你查查，咱们一起去。', 'assistant')).toBe('小暖帮你查查，咱们一起去。');
      expect(named.rewrite('我想养一只狗。', 'user')).toBe('林小雨想养一只狗。');
      // A title is what was said: 《我要复仇》 is not 《小暖要复仇》; nor is 我俩 小暖俩.
      expect(named.rewrite('我俩去看了《我要复仇》。', 'assistant')).toBe('我俩去看了《我要复仇》。');
      // A song named without 《》 too (DuLeMon tune /8): "月亮代表你的心" is no song.
      const user = new Voice('zh', turns('user', 'assistant'), {});
      expect(user.rewrite('我表白的时候就唱了一首月亮代表我的心。', 'user')).toBe(
        '你表白的时候就唱了一首月亮代表我的心。',
      );
      expect(user.rewrite('我唱了一首歌给我妈听。', 'user')).toBe('你唱了一首歌给你妈听。');
      // A film's too, a 我 straight after its count word (a written film chat), but not a film one likes.
      expect(user.rewrite('我想带她去看那部新上映的我和我的父辈。', 'user')).toBe(
        '你想带她去看那部新上映的我和我的父辈。',
      );
      expect(user.rewrite('昨天我看了一部我很喜欢的电影。', 'user')).toBe('昨天你看了一部你很喜欢的电影。');
    });

    it('names a person once a sentence: where a clause starts the name goes, elsewhere it stays (no 自己)', () => {
      const named = new Voice('zh', turns('user', 'assistant'), { name: '小暖', userName: '刘琳' });
      expect(named.rewrite('今天我想谈论一下我的写作。我最近很忙。', 'user')).toBe(
        '今天刘琳想谈论一下刘琳的写作。刘琳最近很忙。',
      );
      expect(named.rewrite('我会尝试你给我的建议的，谢谢你的支持。', 'user')).toBe(
        '刘琳会尝试你给刘琳的建议的，谢谢你的支持。',
      );
      // A possessor's 我 before a word for a person stays: "因为妈去年走了" is nobody's mother.
      expect(named.rewrite('我看的时候哭了，因为我妈去年走了。', 'user')).toBe(
        '刘琳看的时候哭了，因为刘琳妈去年走了。',
      );
      // Introducing oneself goes whole: not "刘琳叫刘琳", nor "刘琳很高兴" (two words joined that were not).
      expect(named.rewrite('我叫刘琳，很高兴认识你。', 'user')).toBe('很高兴认识你。');
      // Already named by the line ("刘琳说…"): the first 我 of the sentence is that name again.
      expect(named.rewrite('其实我最近一直在考虑工作。', 'user', true)).toBe('其实最近一直在考虑工作。');
      // After a verb of thinking or feeling, its clause's subject is the same person: "刘琳觉得在写作上…".
      expect(named.rewrite('我觉得我在写作上遇到了障碍，感觉我写不出来。', 'user')).toBe(
        '刘琳觉得在写作上遇到了障碍，感觉写不出来。',
      );
      // A possessor is no subject to drop: "的食物耗尽了" would say nobody's.
      expect(named.rewrite('在山上的时候，我的水喝完了。', 'user', true)).toBe(
        '在山上的时候，刘琳的水喝完了。',
      );
    });
  });

  describe('English: the companion is "I", the user "you"; only the speaker\'s own "I" changes', () => {
    const voice = new Voice('en', turns('user', 'assistant'), {});

    it("rewrites the user's first person with its verbs, and leaves 'you', 'we', 'our' as said", () => {
      expect(voice.rewrite("I'm nervous about my interview, and I was scared.", 'user')).toBe(
        "You're nervous about your interview, and you were scared.",
      );
      expect(voice.rewrite('Can you help me? I told you already.', 'user')).toBe(
        'Can you help you? You told you already.',
      );
      // "my husband and I are" agrees with both; a clause of its own after "and" agrees with its "I".
      const named = new Voice('en', turns('Mia', 'Juno'), { name: 'Juno' });
      expect(named.rewrite('My husband and I are taking a trip, and I am happy.', 'Mia')).toBe(
        "Mia's husband and Mia are taking a trip, and Mia is happy.",
      );
      // An adverb between the subject and its verb is no verb: "Susan quites like", "rathers enjoy" were written.
      const susan = new Voice('en', turns('user', 'assistant'), { userName: 'Susan' });
      expect(
        susan.rewrite('I quite like guitar, I rather enjoy painting and I occasionally write poems.', 'user'),
      ).toBe('Susan quite likes guitar, Susan rather enjoys painting and Susan occasionally writes poems.');
      // A title's capital "Me" is the title's (a written chat about Coco): "the Remember Susan song" is no song.
      expect(susan.rewrite('I cried at the Remember Me song. My abuela sang it.', 'user')).toBe(
        "Susan cried at the Remember Me song. Susan's abuela sang it.",
      );
      // "our kids" is not "your kids" (issue 36): the user and others, as said.
      expect(voice.rewrite("We buried her in the garden. Our kids don't know. Thank you!", 'user')).toBe(
        "We buried her in the garden. Our kids don't know. Thank you!",
      );
    });

    it('names a persona with a 3rd-person verb, each time (never "they")', () => {
      const mia = new Voice('en', turns('user', 'assistant'), { name: 'Mia' });
      expect(mia.rewrite("I think you loved her, and I've been there.", 'assistant')).toBe(
        'Mia thinks you loved her, and Mia has been there.',
      );
      expect(mia.rewrite('I really love your photos. Oh I feel you!', 'assistant')).toBe(
        'Mia really loves your photos. Oh Mia feels you!',
      );
      // An adverb misspelt ("absolutley") is no verb: never "absolutleys", a word nobody said.
      expect(mia.rewrite('I absolutley love DIYs.', 'assistant')).toBe('Mia absolutley love DIYs.');
      // A mark inside a word ("woŕry", a combining accent composed) keeps it one word: never "Mia wos ŕry".
      expect(mia.rewrite('I wo\u0155ry it will rain.', 'assistant')).toBe('Mia wo\u0155ry it will rain.');
      // Two subjects opening a clause keep their plural verb; "…home and I love" is a clause of its own.
      expect(mia.rewrite('Max and I love walks. My wife and I like tea.', 'assistant')).toBe(
        "Max and Mia love walks. Mia's wife and Mia like tea.",
      );
      expect(mia.rewrite('I went home and I love it.', 'assistant')).toBe('Mia went home and Mia loves it.');
      // After a modal, inverted ("should I go"), the verb stays as said: never "should Mia goes".
      expect(mia.rewrite('Should I stay or should I go?', 'assistant')).toBe(
        'Should Mia stay or should Mia go?',
      );
      // "cannot" is a modal as "can't" is: never "Mia cannots", a word nobody said.
      expect(mia.rewrite('I cannot celebrate with my family.', 'assistant')).toBe(
        "Mia cannot celebrate with Mia's family.",
      );
      // Nor "wanna" (LoCoMo tune, conv-26: "Caroline wannas help make a difference").
      expect(mia.rewrite('I wanna help make a difference.', 'assistant')).toBe(
        'Mia wanna help make a difference.',
      );
    });

    it("writes two named speakers by name for their own 'I'; 'you' and 'we' as said", () => {
      const locomo = new Voice('en', turns('Caroline', 'Melanie'), {});
      expect(
        locomo.rewrite('I went to a support group yesterday. Have you been? We loved it.', 'Caroline'),
      ).toBe('Caroline went to a support group yesterday. Have you been? We loved it.');
    });
  });

  it('reads whose name the card gives when it has no userName: a user who introduces themself with it owns it', () => {
    expect(nameOwner('Emily', 'My name is Emily.', 'Nice to meet you!')).toBe('user');
    expect(nameOwner('Mia', 'Thanks, Mia!', "I'm Mia, your companion.")).toBe('companion');
    // Addressed by the companion ("Of course, Luna."), the user's; the companion speaking of itself is not that.
    expect(nameOwner('Luna', 'I feel down.', 'Of course, Luna. What do you want to talk about?')).toBe(
      'user',
    );
    expect(nameOwner('Juno', 'I want to run.', 'Juno would love to go too.')).toBe('companion');
    expect(nameOwner('小暖', '我想去。', '小暖也想去呢。')).toBe('companion');
    expect(nameOwner('Gary', 'I love cooking.', 'Gary, you can start with easy dishes.')).toBe('user');
    expect(nameOwner('Mia', 'Hello!', 'Hello!')).toBe('companion');
  });
});
