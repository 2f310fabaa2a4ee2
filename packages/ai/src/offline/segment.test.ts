import { describe, expect, it } from 'vitest';
import { conversationClauses, conversationSentences, splitClauses, splitSentences } from './segment.js';
import { leansBack } from './statements.js';

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

  it('ends a Chinese sentence at an ellipsis written with dots, and not at ；', () => {
    expect(splitSentences('我觉得...还行吧。先去北京；再去上海。')).toEqual([
      '我觉得...',
      '还行吧。',
      '先去北京；再去上海。',
    ]);
  });

  it('ends no sentence at the mark inside a title ("《摔跤吧！爸爸》"), only where its 》 closes', () => {
    expect(splitSentences('是一部叫做《摔跤吧！爸爸》的电影，讲的是摔跤。我哭了！《你好')).toEqual([
      '是一部叫做《摔跤吧！爸爸》的电影，讲的是摔跤。',
      '我哭了！',
      '《你好',
    ]);
  });

  it('splits English without breaking abbreviations, initials or decimals', () => {
    expect(splitSentences('Dr. Smith paid 3.5 dollars. Was it worth it? Yes! See e.g. the menu.')).toEqual([
      'Dr. Smith paid 3.5 dollars.',
      'Was it worth it?',
      'Yes!',
      'See e.g. the menu.',
    ]);
    // "Tim said rowling that Tim really likes…" came of a sentence cut after "J.K.".
    expect(splitSentences('A quote by J.K. Rowling that I like. Have you read George R. R. Martin?')).toEqual(
      ['A quote by J.K. Rowling that I like.', 'Have you read George R. R. Martin?'],
    );
  });

  it('ends an English sentence before a Chinese title or quote after a space (a Chinese memory V2 reads again)', () => {
    expect(splitSentences('I like it. 《银河补习班》很好看。I like it. “好”')).toEqual([
      'I like it.',
      '《银河补习班》很好看。',
      'I like it.',
      '“好”',
    ]);
  });

  it('opens a sentence at an ellipsis right after a sentence end (words going on from a piece left out)', () => {
    expect(splitSentences("Juno's cat died. …went to the lake.")).toEqual([
      "Juno's cat died.",
      '…went to the lake.',
    ]);
    expect(splitSentences('你去了公园。……去了杭州。')).toEqual(['你去了公园。', '……去了杭州。']);
    // Elsewhere an ellipsis ends its sentence, as before.
    expect(splitSentences('……我很难过。我觉得……还行吧。')).toEqual([
      '……',
      '我很难过。',
      '我觉得……',
      '还行吧。',
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

describe('splitClauses', () => {
  it('cuts Chinese at ， and ；, keeping each mark with its clause', () => {
    expect(splitClauses('我明天去北京，后天回来；你呢？')).toEqual([
      '我明天去北京，',
      '后天回来；',
      '你呢？',
    ]);
  });

  it('cuts English before and / but / so, the clause after it leaning back where its thing is "it"', () => {
    const [pieces, tail] = splitClauses(
      "I've been learning some piano pieces, but I find it kind of hard to master.",
    );
    expect(tail).toBe('but I find it kind of hard to master.');
    expect(pieces).toMatch(/piano pieces,$/);
    // Alone, "Luna finds it kind of difficult" said what nobody knew (_check_): it goes with the pieces.
    expect(leansBack(tail!)).toBe(true);
    // A time before its clause is no short reply: an orphan so, V2 left out the girlfriend it told of (_check_).
    expect(leansBack('James said yesterday (3 September),')).toBe(false);
  });

  it('never cuts at 、: an enumeration is one clause, its items no statements of their own', () => {
    expect(splitClauses('分为中、东、西三路建筑，每路各有三个院落。')).toEqual([
      '分为中、东、西三路建筑，',
      '每路各有三个院落。',
    ]);
    // Cut at 、, V2 kept "# 长春园和# 绮春园三块区域组成。" without what it was made of (issue 36).
    expect(splitClauses('圆明园由圆明园、长春园和绮春园三块区域组成，有“万园之园”的美誉。')).toEqual([
      '圆明园由圆明园、长春园和绮春园三块区域组成，',
      '有“万园之园”的美誉。',
    ]);
  });

  it('never cuts inside quotes or title marks', () => {
    expect(splitClauses('他说“我喜欢你，但是不行”，然后走了。')).toEqual([
      '他说“我喜欢你，但是不行”，',
      '然后走了。',
    ]);
    expect(splitClauses('故有「一座恭王府，半部清代史」的说法，很有名。')).toEqual([
      '故有「一座恭王府，半部清代史」的说法，',
      '很有名。',
    ]);
    expect(splitClauses('我在读《你好，旧时光》，很好看。')).toEqual([
      '我在读《你好，旧时光》，',
      '很好看。',
    ]);
  });

  it('cuts English at a comma only where a new clause starts, not in a list or after a name', () => {
    expect(splitClauses('I went to the support group yesterday, and it was so powerful.')).toEqual([
      'I went to the support group yesterday,',
      'and it was so powerful.',
    ]);
    expect(splitClauses('I love painting, pottery, and hiking with my kids.')).toEqual([
      'I love painting, pottery, and hiking with my kids.',
    ]);
    expect(splitClauses('Thanks, Maria!')).toEqual(['Thanks, Maria!']);
    expect(splitClauses('Wow, I finally finished the painting last night.')).toEqual([
      'Wow,',
      'I finally finished the painting last night.',
    ]);
    // A phrase leading a question is no statement: kept alone, it read "Gary said besides painting and…".
    expect(
      splitClauses('Besides painting and going on a trip, do you have any other suggestions?'),
    ).toHaveLength(1);
  });

  it('tags clauses with their sentence and speaker', () => {
    const clauses = conversationClauses('user: 我明天去北京，后天回来。好的。');
    expect(clauses.map((c) => [c.speaker, c.sentence, c.first, c.text])).toEqual([
      ['user', 0, true, '我明天去北京，'],
      ['user', 0, false, '后天回来。'],
      ['user', 1, true, '好的。'],
    ]);
  });

  it('keeps a number grouped by a full-width comma whole, and a condition with its clause', () => {
    expect(splitClauses('票房达到177，254万元，创下纪录。')).toEqual([
      '票房达到177，254万元，',
      '创下纪录。',
    ]);
    expect(splitClauses('如果我考不好，妈妈会不高兴的。')).toEqual(['如果我考不好，妈妈会不高兴的。']);
    expect(splitClauses('你担心如果考不好，妈妈会不高兴。')).toEqual(['你担心如果考不好，妈妈会不高兴。']);
  });

  it('cuts a run-on clause no stage could hold at commas, then between words', () => {
    const long = `If you are a beginner, ${'you can start with some basic dishes such as soup '.repeat(8)}etc.`;
    const pieces = splitClauses(long);
    expect(pieces.length).toBeGreaterThan(1);
    for (const piece of pieces) expect([...piece].length).toBeLessThanOrEqual(240);
    expect(pieces.join(' ').replace(/\s+/g, ' ')).toBe(long.replace(/\s+/g, ' '));
  });

  it('reads a label as a speaker when it opens two lines or is a role, continues a turn on an unlabelled line, and drops stickers', () => {
    const sentences = conversationSentences(
      'user: 我明天去北京。\n注意：带身份证。\n还要带充电器。\nsystem: [sticker:happy]\nassistant: 好的[表情]。',
    );
    expect(sentences.map((s) => [s.speaker, s.text])).toEqual([
      ['user', '我明天去北京。'],
      ['user', '注意：带身份证。'],
      ['user', '还要带充电器。'],
      ['assistant', '好的。'],
    ]);
    // A stage's prose has no speakers: "你说：" stays text.
    expect(conversationSentences('你说：好的。', { speakers: false })[0]!.speaker).toBeUndefined();
  });

  it("reads the turns' own roles as the only labels where they are known: a turn's second line is its text", () => {
    const sentences = conversationSentences(
      'user: 第一\n第二：我明天去上海\nassistant: 好的\nuser: 第二：还有',
      {
        known: ['user', 'assistant'],
      },
    );
    expect(sentences.map((s) => [s.speaker, s.text])).toEqual([
      ['user', '第一'],
      ['user', '第二：我明天去上海'],
      ['assistant', '好的'],
      ['user', '第二：还有'],
    ]);
  });

  it('reads every label as a speaker where each line opens with one: two turns of two named speakers', () => {
    const sentences = conversationSentences('小雨：我昨天去了故宫。\n阿光：故宫的门票是60元。');
    expect(sentences.map((s) => [s.speaker, s.text])).toEqual([
      ['小雨', '我昨天去了故宫。'],
      ['阿光', '故宫的门票是60元。'],
    ]);
    // One line without a label: a label seen once stays text, as before.
    expect(conversationSentences('小雨：我昨天去了故宫。\n门票60元。')[0]!.speaker).toBeUndefined();
  });

  it('cuts a run-on clause by length never inside a Latin word, a link or a quote, its frame with its quote', () => {
    const zh = `我们去了北京然后又去了上海然后去了杭州西湖边上走了很久很久一直走到天黑才回酒店休息第二天一早又去了灵隐寺烧香拜佛我今天用iPhone拍了照片看https://example.com/a?b=1`;
    const pieces = splitClauses(zh);
    expect(pieces.length).toBeGreaterThan(1);
    expect(pieces.join('')).toBe(zh);
    for (const word of ['iPhone', 'https://example.com/a?b=1'])
      expect(pieces.some((p) => p.includes(word))).toBe(true);
    // Nor inside a name of the role card, or what brackets hold (an anchored date).
    const long = '我们去了北京然后又去了上海'.repeat(6);
    for (const kept of ['小暖', '（11月21日）']) {
      const text = `${long.slice(0, 79)}${kept}今天去了公园`;
      expect(splitClauses(text, ['小暖']).some((p) => p.includes(kept))).toBe(true);
    }
    // Nor inside a person word that is no speaker's own 我: "…我" and "们俩…" apart, the first 我
    // would be rewritten ("小暖们俩").
    expect(splitClauses(`${long}去我们俩一起去`).at(-1)).toBe('我们俩一起去');
    const quote = `"${'we went to the lake and then we drove all the way back home '.repeat(5).trim()}"`;
    const framed = splitClauses(`You said, ${quote}`);
    expect(framed).toEqual([`You said, ${quote}`]);
  });

  it('keeps a speaker frame with the words it frames when a run-on clause is cut ("Juno said -" is no piece)', () => {
    const long =
      'call mom we went to the lake and then we drove all the way back home because it was late '.repeat(3);
    for (const [frame, words] of [
      ['Juno said - ', long],
      [
        '小暖说：',
        '我们去了北京然后又去了上海然后去了杭州西湖边上走了很久很久一直走到天黑才回酒店休息'.repeat(2),
      ],
    ] as const) {
      const pieces = splitClauses(`${frame}${words.trim()}`, ['Juno', '小暖']);
      expect(pieces.length).toBeGreaterThan(1);
      // The frame opens the first piece, with words after it.
      expect(pieces[0]!.startsWith(frame.trim())).toBe(true);
      expect(pieces[0]!.length).toBeGreaterThan(frame.length + 1);
    }
  });

  it('keeps the marks ending a run-on clause with its words when it is cut by length (no piece "……" alone)', () => {
    const long = `${'我们去了北京然后又去了上海'.repeat(6)}它特……`;
    const pieces = splitClauses(long);
    expect(pieces.join('')).toBe(long);
    for (const piece of pieces) expect(piece).toMatch(/\p{L}/u);
    expect(pieces.at(-1)).toMatch(/它特……$/u);
  });

  it('never cuts a long clause between the digits of a time (issue 36: "00(最晚离园时间…" was one)', () => {
    const hours =
      '你说4月1日-10月31日6:30-18:00;11月1日-次年3月31日7:00-17:00.园中园开放时间4月1日-10月31日8:30-17:00(最晚离园时间20:00);11月1日-次年3月31日9:00-16:00(最晚离园时间19:00)。';
    const clauses = conversationClauses(hours, { speakers: false }).map((c) => c.text);
    expect(clauses.length).toBeGreaterThan(1);
    for (const clause of clauses) expect(clause).not.toMatch(/^\d{2}\(/);
    expect(clauses.join('')).toBe(hours);
  });

  it('nor between the digits of a time written with a full-width colon (kdconv/70: "（大门15。")', () => {
    const hours =
      '你说旺季(4月1日—10月31日）8:00-17:30（大门16：00止售联票）,淡季(11月1日—次年3月31日) 8:00-17:00（大门15：30止售联票）。';
    const clauses = conversationClauses(hours, { speakers: false }).map((c) => c.text);
    expect(clauses.length).toBeGreaterThan(1);
    for (const clause of clauses) expect(clause).not.toMatch(/^\d{2}止售/u);
    expect(clauses.join('')).toBe(hours);
  });
});
