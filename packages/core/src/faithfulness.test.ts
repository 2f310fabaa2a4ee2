/**
 * The faithfulness check (docs/design.md §5, 16): the spans of a stage no speaker said, issue 36's
 * examples of them and the faithful forms of the same lines, the gate that refuses such a stage, the
 * check asked again, and the frame the compressor writes. Chats mixing the two languages:
 * faithfulness-mixed-languages.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { FaithfulnessGateError, faithfulnessGate, inventedSpans } from './faithfulness.js';
import type { FaithfulnessSource } from './faithfulness-match.js';
import { en, zh } from './faithfulness-sources.js';

/** Issue 36's examples of words nobody said, each flagged; and the faithful forms of the same lines, not. */
describe('invented spans', () => {
  it('a film title rewritten with the companion name (《阿光要复仇》 from 《我要复仇》)', () => {
    const source = zh(
      [
        ['user', '你看过什么好电影吗？'],
        ['assistant', '我最近看了《我要复仇》，我很喜欢。'],
      ],
      ['阿光'],
    );
    expect(inventedSpans('阿光说最近看了《阿光要复仇》，阿光很喜欢。', source)).toEqual(['《阿光要复仇》']);
    expect(inventedSpans('阿光说最近看了《我要复仇》，阿光很喜欢。', source)).toEqual([]);
  });

  it('a quote is its speaker\'s words: "I told you" inside it names no new speaker', () => {
    // Jon is the user (LoCoMo's first speaker): outside a quote, "I" would be Gina.
    const source = {
      ...en([
        ['Jon', 'Remember the festival I told you about? It was awesome.'],
        ['Gina', 'Tell me more!'],
      ]),
      userRole: 'Jon',
    };
    expect(inventedSpans('Jon asked, "Remember the festival I told you about?"', source)).toEqual([]);
  });

  it("a Chinese quote is its speaker's words as said: their 我 and 你 stay; one they did not say is flagged", () => {
    const source = zh([
      ['user', '我知道，你不用一直和我强调哦，我要去冲杯咖啡喝。'],
      ['assistant', '去吧，我说过我等你。'],
    ]);
    expect(inventedSpans('你说：“你不用一直和我强调哦，我要去冲杯咖啡喝”。', source)).toEqual([]);
    // 我说 inside the user's quote names no new speaker; the companion's words quoted as the user's are not theirs.
    expect(inventedSpans('你说：“我知道，你不用一直和我强调哦”。', source)).toEqual([]);
    expect(inventedSpans('你说：“我说过我等你”。', source)).not.toEqual([]);
  });

  it('a negative question reported: "Why doesn\'t he ever visit?" is "why he doesn\'t ever visit"', () => {
    const source = en([['Mary', "Why doesn't he ever visit? Didn't I try hard enough? Isn't she coming?"]]);
    expect(
      inventedSpans(
        "Mary wondered why he doesn't ever visit. Mary asked whether Mary didn't try hard enough. Mary asked whether she isn't coming.",
        { ...source, names: ['Mary'], userRole: 'Mary' },
      ),
    ).toEqual([]);
    // The words still come from the turn: another person's is flagged.
    expect(
      inventedSpans("Mary wondered why she doesn't ever visit.", { ...source, names: ['Mary'] }),
    ).not.toEqual([]);
  });

  it('a quote closed after its question mark is whole, the next sentence straight after it', () => {
    const source = zh([['user', '不过我妈又问我：“你什么时候结婚？”我不想回答她。']]);
    expect(inventedSpans('你说你妈又问你：“你什么时候结婚？”你不想回答她。', source)).toEqual([]);
    // Its words are the quoted person's as said: rewritten, they are flagged.
    expect(inventedSpans('你说你妈又问你：“她什么时候结婚？”你不想回答她。', source)).not.toEqual([]);
    // A name right after a closing curly quote opens its speaker's words (a Chinese line in an English memory).
    const mixed = en([
      ['May', '妈妈又问我：“你什么时候结婚？”我不想回答她呢？'],
      ['Will', 'My cat died.'],
    ]);
    expect(
      inventedSpans('May said 妈妈又问我：“你什么时候结婚？” May asked, "我不想回答她呢?"', mixed),
    ).toEqual([]);
    const english = en([['user', 'My mom asked me, "When are you getting married?" I did not answer her.']]);
    expect(
      inventedSpans(
        'You said your mom asked you, "When are you getting married?" You did not answer her.',
        english,
      ),
    ).toEqual([]);
  });

  it('a named speaker\'s "I\'d fixed it" is "Dave had fixed it", never "Dave would fix"', () => {
    const source = en([['Dave', "I thought I'd fixed it, but it broke again."]]);
    expect(inventedSpans('Dave thought Dave had fixed it.', source)).toEqual([]);
    expect(inventedSpans('Dave thought Dave would fix it.', source)).toEqual(['fix']);
  });

  it('a statement\'s left-out "I" may be written as its speaker, only before a past tense', () => {
    const source = en([['Nate', 'I was busy too - went to a meetup. Sounds great.']], ['Nate']);
    expect(inventedSpans('Nate went to a meetup.', source)).toEqual([]);
    // "Sounds great" left out "it", not "I": "Nate sounds great" was never said.
    expect(inventedSpans('Nate sounds great.', source)).toEqual(['Nate sounds']);
  });

  it('我俩 is not 小满俩', () => {
    const source = zh(
      [
        ['user', '周末想去哪里玩？'],
        ['assistant', '我俩可以一起去公园，我带上风筝。'],
      ],
      ['小满'],
    );
    expect(inventedSpans('小满说小满俩可以一起去公园。', source)).toEqual(['小满俩']);
    expect(inventedSpans('小满说我俩可以一起去公园，小满带上风筝。', source)).toEqual([]);
  });

  it('"your furry friends" is not "Andrew\'s furry friends"', () => {
    const source = en(
      [
        ['Andrew', 'How are your furry friends doing?'],
        ['Audrey', 'They are great, I took them to the beach.'],
      ],
      ['Audrey', 'Andrew'],
    );
    expect(inventedSpans("Andrew asked how Andrew's furry friends are doing.", source)).toEqual([
      "Andrew's furry",
    ]);
    expect(inventedSpans('Andrew asked how your furry friends are doing.', source)).toEqual([]);
  });

  it('"our kids" is not "your kids"; the user\'s own "my" is "your"', () => {
    const source = en([
      ['user', "My husband says our kids don't have the proper stuff for camping."],
      ['assistant', 'What do they need?'],
    ]);
    expect(inventedSpans("You said your kids don't have the proper stuff for camping.", source)).toEqual([
      'your kids',
    ]);
    expect(inventedSpans("You said your husband says our kids don't have the proper stuff.", source)).toEqual(
      [],
    );
  });

  it('"I feel you" is not "they feel you"', () => {
    const source = en(
      [
        ['Andrew', 'Work was rough today.'],
        ['Audrey', 'Oh I feel you! Mine too.'],
      ],
      ['Audrey', 'Andrew'],
    );
    expect(inventedSpans('Audrey said oh they feel you!', source)).toEqual(['they feel']);
    expect(inventedSpans('Audrey said oh Audrey feels you!', source)).toEqual([]);
    expect(inventedSpans('Audrey said oh I feel you!', source)).toEqual([]);
  });

  it("a name ending in s takes its possessive as the compressor writes it (James' life)", () => {
    const source = en([['James', 'My life changed when I got my dogs.']], ['James']);
    expect(inventedSpans("James said James' life changed when James got James' dogs.", source)).toEqual([]);
    expect(inventedSpans("James said James' cats are fine.", source)).toEqual(["James' cats are fine"]);
  });

  it("the companion's name in another script opens its words (小暖 said)", () => {
    const source = en(
      [
        ['assistant', 'We both went to the lake.'],
        ['user', 'It was so cute.'],
      ],
      ['小暖'],
    );
    expect(inventedSpans('小暖 said we both went to the lake. You said it was so cute.', source)).toEqual([]);
    // Words after the marker are read as words said: "went to the lake" by nobody is flagged.
    expect(inventedSpans('小暖 said we both went to the zoo.', source)).toEqual(['zoo']);
  });

  it('a Chinese quote holds its words in order: marks may differ and a marked gap leave words out, a splice not', () => {
    const source = zh([['user', '嗯我是你的朋友，，，，我们周末去爬山吧。然后还要去吃火锅']]);
    expect(inventedSpans('你说：“嗯我是你的朋友，我们周末去爬山吧”。', source)).toEqual([]);
    expect(inventedSpans('你说：“我是你的朋友……还要去吃火锅”。', source)).toEqual([]);
    expect(inventedSpans('你说：“我是你的朋友，还要去吃火锅”。', source)).not.toEqual([]);
  });

  it('a sentence copied whole whose opener was dropped ("However, it may…" as "It may…") is said', () => {
    const source = en([
      ['user', 'I am learning a new skill.'],
      ['assistant', 'However, it may take time, and you may encounter some difficulties during the process.'],
    ]);
    const stage =
      'You said you are learning a new skill. It may take time, and you may encounter some difficulties during the process.';
    expect(inventedSpans(stage, source)).toEqual([]);
  });

  it('the companion\'s sentence copied whole after 我说 holds its own 你说 ("我说你说的故事…"), its capital as it was', () => {
    const companion = '看来这是一部好电影。你说的故事可以启发人们相信自己的梦想并为之奋斗。';
    expect(
      inventedSpans('我说你说的故事可以启发人们相信自己的梦想。', zh([['assistant', companion]])),
    ).toEqual([]);
    const english = en([
      ['assistant', 'Sounds great. The story you mentioned can inspire people to believe in dreams.'],
    ]);
    expect(
      inventedSpans('I said the story you mentioned can inspire people to believe in dreams.', english),
    ).toEqual([]);
  });

  it('"I visualize" is "John visualizes": a verb ending in -ze, -ch, -sh, -x takes its -s as one ending in -s', () => {
    const source = en([
      ['Tim', 'Exams this week.'],
      ['John', 'I visualize my goals for focus.'],
    ]);
    expect(inventedSpans("John visualizes John's goals for focus.", source)).toEqual([]);
  });

  it("a Chinese line's 。 ends its sentence in an English memory: the next is not the same speaker's", () => {
    const source = en(
      [
        ['user', '我知道这里，地处北京市东北部。'],
        ['assistant', "I'm always on the lookout for new routines."],
      ],
      ['Juno'],
    );
    expect(
      inventedSpans('You said 地处北京市东北部。 Juno is always on the lookout for new routines.', source),
    ).toEqual([]);
  });

  it('a reporting verb inside a reported question ("…when you shared it with them") names no new speaker', () => {
    const source = en(
      [
        [
          'Jolene',
          'How did your fish taste, and what did your friends think of it when you shared it with them?',
        ],
        ['Deborah', 'They loved it.'],
      ],
      [],
    );
    const stage =
      'Jolene wondered how did your fish taste, and what did your friends think of it when you shared it with them, and Deborah said they loved it.';
    expect(inventedSpans(stage, source)).toEqual([]);
  });

  it("a Latin name glued to a number in Chinese is the speaker's own 我 (大概可以我3小时 → 大概可以Deborah3小时)", () => {
    const source = zh([
      ['Jolene', '那游玩时间是多久？'],
      ['Deborah', '大概可以我3小时 - 4小时。'],
    ]);
    expect(inventedSpans('Deborah说大概可以Deborah3小时 - 4小时。', source)).toEqual([]);
  });

  it('a statement whose "I" was left out after an opening adverb may be written with its speaker before it', () => {
    const source = en([
      ['user', 'These are amazing!'],
      ['assistant', 'I love sunsets. Just got this one recently, check this out!'],
    ]);
    expect(
      inventedSpans('Juno just got this one recently, check this out!', { ...source, names: ['Juno'] }),
    ).toEqual([]);
  });

  it('words given to a speaker with no turn are all unsaid, never a crash of the check', () => {
    // Turns labelled by name, no user role given: "you" names nobody who spoke.
    const source = en([
      ['Deborah', 'A friend wrote this to me.'],
      ['Jolene', 'That is a good reminder.'],
    ]);
    expect(inventedSpans('You said a friend wrote this to you.', source)).toEqual(['a friend wrote this']);
  });

  it('words from another speaker, or out of order, are invented; anchored dates and the frame are not', () => {
    const source = en([
      ['user', "I'm seeing the doctor tomorrow. I'm nervous."],
      ['assistant', 'Have you told your sister?'],
    ]);
    expect(inventedSpans("You're seeing the doctor tomorrow (9 May). You're nervous.", source)).toEqual([]);
    expect(inventedSpans('I asked whether you have told your sister.', source)).toEqual([]);
    expect(inventedSpans('You said you have told your sister.', source)).toEqual([
      'you have told your sister',
    ]);
    expect(inventedSpans("You're nervous about the doctor.", source)).toEqual(['about']);
  });

  it('a memory stored as one string was said by nobody: no 你说, no 你 for its 我', () => {
    const source: FaithfulnessSource = {
      language: 'zh',
      turns: [{ text: '今天我和妈妈去了动物园。' }],
      names: ['小暖'],
    };
    expect(inventedSpans('今天我和妈妈去了动物园。', source)).toEqual([]);
    expect(inventedSpans('你说今天你和妈妈去了动物园。', source)).toEqual(['你说', '你和']);
  });
});

describe('the faithfulness gate', () => {
  const spent = {
    usage: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 },
    model: 'offline',
  };
  const source = en([['user', 'Our kids love the beach.']]);

  it('refuses a stage holding words nobody said, naming counts only, never the words', () => {
    expect(() => faithfulnessGate('v2', 'm-1', 'Your kids love the beach.', source, spent)).toThrow(
      FaithfulnessGateError,
    );
    try {
      faithfulnessGate('v2', 'm-1', 'Your kids love the beach.', source, spent);
    } catch (error) {
      expect((error as Error).message).toBe(
        'memory m-1: faithfulness: V2 holds 1 span no speaker said; not written',
      );
    }
    expect(() => faithfulnessGate('v2', 'm-1', 'Our kids love the beach.', source, spent)).not.toThrow();
  });
});

/** The gate and `memfade eval` check the same stage: the second is answered from the first (issue 36, CPU). */
describe('the check, asked again', () => {
  it('answers a conversation by its content: the same turns in a new object agree, an edited turn is read again', () => {
    const turns: [string, string][] = [
      ['user', 'Our kids do not have the proper stuff for camping.'],
      ['assistant', 'I can send you a list.'],
    ];
    const stage = 'You said your kids do not have the proper stuff for camping.';
    expect(inventedSpans(stage, en(turns))).toEqual(['your kids']);
    // A new source object with the same content: the same answer, and a copy the caller may change.
    const again = inventedSpans(stage, en(turns));
    expect(again).toEqual(['your kids']);
    again.pop();
    expect(inventedSpans(stage, en(turns))).toEqual(['your kids']);
    // The user's turn edited to say it: nothing is invented now (a cache keyed by the stage alone would say otherwise).
    const edited: [string, string][] = [
      ['user', 'My kids do not have the proper stuff for camping.'],
      turns[1]!,
    ];
    expect(inventedSpans(stage, en(edited))).toEqual([]);
    // A user role the USER pattern names is the same source as none; another user label is not.
    expect(inventedSpans(stage, { ...en(turns), userRole: 'user' })).toEqual(['your kids']);
    const named = en([['Sam', turns[0]![1]], turns[1]!]);
    expect(inventedSpans(stage, { ...named, userRole: 'Sam' })).toEqual(['your kids']);
  });
});

/** What the check misread as words nobody said (issue 36's tune halves): each is what was said. */
describe('the frame, read as the compressor writes it', () => {
  it('the topic line "X和我聊到了…" / "X and I talked about…" names both speakers, not the companion alone', () => {
    const z = zh(
      [
        ['user', '你好。今天我想和你聊聊关于旅游的事情。'],
        ['assistant', '好啊，旅游可以让我们走出舒适区。'],
      ],
      ['张曼婷'],
    );
    expect(inventedSpans('张曼婷和我聊到了关于旅游。', z)).toEqual([]);
    const e = en(
      [
        ['user', 'Do you know how to make noodles?'],
        ['assistant', 'I would love to master the skill of making them.'],
      ],
      ['Sunny'],
    );
    expect(inventedSpans('Sunny and I talked about how to make noodles.', e)).toEqual([]);
    // The companion alone did not say it: still flagged.
    expect(inventedSpans('I said how to make noodles.', e)).toEqual(['how to make noodles']);
  });

  it('a reporting verb inside words copied whole ("找不到你问一下路人") is those words, not a new speaker', () => {
    const z = zh([
      ['user', '清华大学在哪？'],
      ['assistant', '在海淀区双清路30号，找不到你问一下路人也可以，北京人应该没有人不知道的。'],
    ]);
    expect(
      inventedSpans('我说在海淀区双清路30号，找不到你问一下路人也可以，北京人应该没有人不知道的。', z),
    ).toEqual([]);
  });
});
