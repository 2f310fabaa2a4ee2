/** A question as the offline compressor writes it: the concern behind it, reported in the memory's voice. */
import { describe, expect, it } from 'vitest';
import { attributed } from './lines.js';
import { readConversation } from './read.js';

describe('questions as the concern behind them', () => {
  const write = (language: 'zh' | 'en', text: string) => {
    const reader = readConversation(text, { language: language, roleCard: {} });
    return reader.writer.lines(reader.clauses);
  };

  it("keeps a worried user's condition and says whose worry it is", () => {
    expect(write('zh', 'user: 如果我考不好，妈妈会不高兴的吗？')).toEqual([
      '你担心如果你考不好，妈妈会不高兴的。',
    ]);
    expect(write('zh', 'user: 为什么朵朵今天不跟我玩了？')).toEqual(['你不明白为什么朵朵今天不跟你玩了。']);
    // The one who worries is not named twice ("王峰担心王峰该怎么办"), nor 自己 (a word not said).
    const named = readConversation('user: 我该怎么办？', { language: 'zh', roleCard: { userName: '王峰' } });
    expect(named.writer.lines(named.clauses)).toEqual(['王峰担心该怎么办。']);
    // The user's "你有什么…" asks the companion: reported, its 你 read as the companion's trouble.
    const asks = (text: string) => readConversation(text, { language: 'zh', roleCard: { userName: '李雪' } });
    const own = asks('user: 最近压力好大，你有什么好的方法来缓解压力吗？');
    expect(own.writer.lines(own.clauses).join('')).toMatch(/李雪担心有什么好的方法来缓解压力/);
    // The companion's 你 is the user, and one asking what the companion did ("你有没有看过…") stays.
    const theirs = asks('user: 我在学画画。\nassistant: 你有什么喜欢的画家吗？');
    expect(theirs.writer.lines(theirs.clauses).join('')).toMatch(/我问你有什么喜欢的画家/);
    // A worry of the asker's after other words is reported as asked: framed, it was "你担心妈妈说你担心…",
    // and V2 reading that framed it again ("你担心妈妈说你担心妈妈说…"), words nobody said.
    expect(write('zh', 'user: 妈妈说我担心明天下雨呢？')).toEqual(['你问妈妈说你担心明天下雨。']);
    // The worrier's name goes before the words; their 的 stays: "你担心的猫会不会死了" said nobody's cat.
    expect(write('zh', 'user: 我的猫会不会死了？')).toEqual(['你担心你的猫会不会死了。']);
    // A statement with a mark (disbelief) asks nothing to worry about: "你担心你的猫团团死了" says what was not said.
    expect(write('zh', 'user: 我的猫团团死了？')).toEqual(['你问：“我的猫团团死了？”']);
  });

  it('asks only what is fronted before "你知道吗" ("…，很便宜的，地址你知道吗？"): no "你问10元…，很便宜的，地址"', () => {
    expect(write('zh', 'user: 10元，很便宜的，地址你知道吗？').join('')).toMatch(
      /很便宜的，你问(?:起)?地址/u,
    );
  });

  it('tells the statement before a question turning to ask ("…了，不知道有没有…？"): no "你问最近你…了"', () => {
    expect(
      write('zh', 'user: 最近我对赛车比赛越来越感兴趣了，不知道有没有什么好的赛事值得我去看一下？'),
    ).toEqual(['最近你对赛车比赛越来越感兴趣了，你说：“不知道有没有什么好的赛事值得我去看一下”。']);
  });

  it('reports a Chinese question about a place as what was asked, not as 知道 or 有了解', () => {
    expect(write('zh', 'user: 知道中国古代佛造像艺术馆在哪吗？')).toEqual(['你问中国古代佛造像艺术馆在哪。']);
    expect(write('zh', 'user: 你对正乙祠戏楼有了解吗？')).toEqual(['你问起正乙祠戏楼。']);
  });

  it('reports an English question as indirect speech, in the memory voice', () => {
    expect(write('en', "user: Why isn't Jimmy paying attention to me anymore?")).toEqual([
      "You wondered why Jimmy isn't paying attention to you anymore.",
    ]);
    expect(write('en', 'user: Should I tell my mom? She will panic.')).toEqual([
      'You worried whether you should tell your mom. She will panic.',
    ]);
    // "does" carries the person the verb after it lacks: it stays, never "how it look"; a "do" is
    // dropped ("what you think"), a "didn't" reads well as it is.
    expect(write('en', 'assistant: How does it look now?')).toEqual(['I wondered how it does look now.']);
    expect(write('en', 'assistant: Does it hurt?')).toEqual(['I asked whether it does hurt.']);
    expect(write('en', 'assistant: What do you think of it?')).toEqual(['I wondered what you think of it.']);
    expect(write('en', "user: Why didn't he call me?")).toEqual(["You wondered why he didn't call you."]);
  });

  it('gives no subject to the later piece of a run-on cut by length: its subject was in the piece left out', () => {
    expect(attributed('had to work the next morning.', 'Juno', 'en', new Set())).toBe(
      'Juno had to work the next morning.',
    );
    expect(attributed('had to work the next morning.', 'Juno', 'en', new Set(), true)).toBe(
      'Juno said …had to work the next morning.',
    );
  });

  it('writes the subject a past tense left out when its "my" is already the speaker\'s name, not for a short -ed word', () => {
    // "Painted my room…" reaches the writer as "Painted Sam's room…".
    expect(attributed("Painted Sam's room blue.", 'Sam', 'en', new Set(['Sam']))).toBe(
      "Sam painted Sam's room blue.",
    );
    // The faithfulness check reads no "Sam dyed" in "Dyed my hair": the stage keeps it as said.
    expect(attributed("Dyed Sam's hair.", 'Sam', 'en', new Set(['Sam']))).toBe("Sam said dyed Sam's hair.");
    // A name's possessive without its s keeps the name's capital: never "James said james' dog…".
    expect(attributed("James' dog came to see me.", 'James', 'en', new Set(['James']))).toBe(
      "James said James' dog came to see me.",
    );
  });

  it('puts a question and the answer leaning on it in one line, each attributed', () => {
    expect(write('zh', 'user: 知道保利剧院吗？\nassistant: 知道呀，地址是东直门南大街14号。')).toEqual([
      '你问起保利剧院。',
      '我说地址是东直门南大街14号。',
    ]);
    expect(write('zh', 'assistant: 那里面能游玩多长时间？\nuser: 2小时 - 4小时。')).toEqual([
      '我问那里面能游玩多长时间，你说2小时 - 4小时。',
    ]);
  });

  it('says a number told before a question in one sentence, then reports the question', () => {
    expect(write('zh', 'user: 地址是湖滨路8号，开门要几点？')).toEqual([
      '你说地址是湖滨路8号，你问开门要几点。',
    ]);
    // So is an exclamation: "你问那挺适合你去玩的呀，…" said it was asked.
    expect(write('zh', 'user: 这里真安静啊，晚上几点关门？')).toEqual([
      '你说这里真安静啊，你问晚上几点关门。',
    ]);
    // A number in a clause that asks is asked, not told.
    expect(write('zh', 'user: 8号馆在哪里，远吗？')).toEqual(['你问8号馆在哪里，远。']);
    // Told further back than the clause before the question (kdconv/142 of the tune half: "我问这里可以玩…").
    expect(write('zh', 'assistant: 这里可以玩0.5小时 - 1小时，时间并不长，这里是什么时间开放的呢？')).toEqual(
      ['我说这里可以玩0.5小时 - 1小时，时间并不长，我问这里是什么时间开放的。'],
    );
  });
});
