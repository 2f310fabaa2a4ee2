/**
 * Statements as the offline compressor writes them: who said what in chat without punctuation, clauses kept with a
 * gap, a greeting or term of address, a turn in the other language. Which statements stand alone: statements.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { readConversation } from './read.js';
import { conversationClauses } from './segment.js';
import { atoms, joinClauses, joinPieces, withoutAddress } from './statements.js';

describe('who said it, in chat written without punctuation', () => {
  const write = (language: 'zh' | 'en', text: string, card = {}) => {
    const reader = readConversation(text, { language: language, roleCard: card });
    return reader.writer.lines(reader.clauses);
  };

  it('reads a question that ends on what it asks for as a question, after the statement it follows', () => {
    // Its 你 is the companion, the user's 你 in the memory: quoted as asked, with the mark V2 drops a
    // question by (not "你问你喜欢看什么剧", nor "你说：“你喜欢看什么剧”", kept in V2 as a statement).
    expect(write('zh', 'user: 我在看大侦探波罗，你喜欢看什么剧')).toEqual([
      '你在看大侦探波罗，你问：“你喜欢看什么剧？”',
    ]);
    expect(write('zh', 'assistant: 布玛真可爱，那你跟着父母搬到北京的话，布玛怎么办')).toEqual([
      '我说布玛真可爱，我问你跟着父母搬到北京的话，布玛怎么办。',
    ]);
    // The question word stays in what was asked; a statement that only holds one is no question.
    expect(write('zh', 'assistant: 那你现在在干什么呢')).toEqual(['我问你现在在干什么。']);
    // A clause turning to ask ("那这个…", "对了，…") opens the question: what came before it was said.
    expect(write('zh', 'user: 确实值得一去，那这个能玩多长时间？')).toEqual([
      '你说确实值得一去，你问那这个能玩多长时间。',
    ]);
    expect(write('zh', 'user: 我不知道该怎么办，觉得很无助')).toEqual(['你不知道该怎么办，觉得很无助。']);
    expect(write('zh', 'user: 我没什么事')).toEqual(['你没什么事。']);
  });

  it('writes no line for a sentence with nothing left to say (a greeting and the name a speaker gave)', () => {
    const lines = write('zh', 'user: 你好，我叫周立。今天我去游泳了。\nassistant: 你好周立！', {
      userName: '周立',
    });
    expect(lines[0]).toBe('今天周立去游泳了。');
    expect(lines.join('')).not.toContain('周立说。');
    // Marks with no words say nothing either.
    expect(write('zh', 'assistant: ？？\nuser: 我去了公园。')).toEqual(['你去了公园。']);
    expect(write('en', 'assistant: ??\nuser: I went to the park.')).toEqual(['You went to the park.']);
    const en = write('en', 'user: My name is Jack. I went swimming today.', { userName: 'Jack' });
    expect(en).toEqual(['Jack went swimming today.']);
    // A past tense without -ed, or one that is past and present alike, stays as said.
    expect(write('en', 'user: I sold the car and I put the money aside.', { userName: 'Dave' })).toEqual([
      'Dave sold the car and Dave put the money aside.',
    ]);
  });

  it("quotes the user's words that hold their 你 / you (the companion), so they do not read as said to the user", () => {
    // In the memory's voice 你 / "you" is the user: "你说你真聪明" would praise the user, and
    // "你说你的后座载不动你" says nothing. Quoted as said, their 我 / "I" is theirs (issue 36).
    expect(write('zh', 'user: 你真聪明，我每周都得去')).toEqual(['你说：“你真聪明，我每周都得去”。']);
    expect(write('zh', 'user: 我的后座载不动你。')).toEqual(['你说：“我的后座载不动你”。']);
    expect(write('en', 'user: I like sci-fi. If you like, you can go see it.')).toEqual([
      'You like sci-fi. You said, "If you like, you can go see it."',
    ]);
    expect(
      write('en', 'user: I was hoping to get some advice from you.\nassistant: Sure.', { userName: 'Frank' }),
    ).toEqual(['Frank said, "I was hoping to get some advice from you."']);
  });
});

describe('clauses of a sentence kept with a gap between them', () => {
  it('mark what was left out: joined with a comma they would make a sentence nobody said', () => {
    const zh = conversationClauses(
      'user: 比如喜欢自然和远足，可以选择去黄山，喜欢历史文化和艺术，可以选择去故宫博物院。',
    );
    expect(joinClauses([zh[0]!, zh[3]!], 'zh')).toBe('比如喜欢自然和远足……可以选择去故宫博物院。');
    expect(joinClauses([zh[2]!, zh[3]!], 'zh')).toBe('喜欢历史文化和艺术，可以选择去故宫博物院。');
    // A connective alone ("另外，") before a kept clause of another sentence leaves no comma behind.
    const alone = conversationClauses('user: 选择淡季出行。另外，还可以寻找优惠券。');
    expect(joinClauses([alone[0]!, alone[1]!, alone[2]!], 'zh')).toBe('选择淡季出行。还可以寻找优惠券。');
    const en = conversationClauses(
      'user: For hiking you could try Huangshan; the lake is calm; for history, try the museum.',
    );
    expect(joinClauses([en[0]!, en[2]!], 'en')).toBe(
      'For hiking you could try Huangshan… for history, try the museum.',
    );
  });

  it("keep an answer's sentence in its line, and what goes on after the gap leans on what came before", () => {
    const reader = readConversation(
      'assistant: 那只小狗是什么颜色的？\nuser: 是一只白色的小柯基，主人说它叫豆豆，才五个月大，特别喜欢追着落叶跑。',
      { language: 'zh', roleCard: {} },
    );
    const kept = reader.clauses.filter((c) => !c.text.includes('才五个月大'));
    const lines = reader.writer.lines(kept);
    expect(lines.at(-1)).toContain('主人说它叫豆豆……特别喜欢追着落叶跑。');
    expect(lines.join('')).not.toContain('你说特别喜欢');
    const [said, goesOn] = atoms(conversationClauses('你说主人说它叫豆豆……特别喜欢追着落叶跑。'), false);
    expect(goesOn!.needs).toBe(said);
    // A time clause goes with the clause it dates: never "在养老院工作的时候。" alone.
    const [dated] = atoms(conversationClauses('user: 在养老院工作的时候，他们都说我胖。'), true);
    expect(dated!.text).toBe('在养老院工作的时候，他们都说我胖。');
    // So does a cause said after a clause of its own ("…, but because of the pandemic,"): never
    // "Leo does feel very lonely, but because of the pandemic." alone.
    const [lonely] = atoms(
      conversationClauses("user: I do feel very lonely, but because of the pandemic, I'm afraid to go out."),
      true,
    );
    expect(lonely!.text).toBe("I do feel very lonely, but because of the pandemic, I'm afraid to go out.");
  });
});

describe('a greeting and a term of address', () => {
  it('is who is spoken to, not what is said: left out of the clause it opens, names only before a mark', () => {
    const withoutAddressOf = withoutAddress(['小度', 'Juno']);
    expect(withoutAddressOf('AI伴侣。')).toBe('');
    expect(withoutAddressOf('你好啊AI伴侣，今天我去了公园散步')).toBe('今天我去了公园散步');
    expect(withoutAddressOf('亲爱的AI伴侣，今天想和你聊聊')).toBe('今天想和你聊聊');
    // "我的AI伴侣。我今天有点郁闷" was "陈阳的AI伴侣。" opening a V2.
    expect(withoutAddressOf('我的AI伴侣。')).toBe('');
    expect(withoutAddressOf('我的AI伴侣坏了。')).toBe('我的AI伴侣坏了。');
    expect(withoutAddressOf('小度，你在干嘛')).toBe('你在干嘛');
    expect(withoutAddressOf('Hi AI companion, I had a long day.')).toBe('I had a long day.');
    expect(withoutAddressOf('Juno, I went home.')).toBe('I went home.');
    // A name that is the subject stays.
    expect(withoutAddressOf('小度是我的好朋友')).toBe('小度是我的好朋友');
    expect(withoutAddressOf('Juno is great')).toBe('Juno is great');
    expect(withoutAddressOf('My AI companion app crashed.')).toBe('My AI companion app crashed.');
  });

  it('never reaches a memory: "张曼婷说AI伴侣。" was how V1 opened', () => {
    const reader = readConversation('user: 你好，AI伴侣。今天我学了一道新的菜。\nassistant: 真棒！', {
      language: 'zh',
      roleCard: { name: '小暖', userName: '张曼婷' },
    });
    expect(reader.clauses.map((c) => c.text).join('')).not.toContain('AI伴侣');
  });
});

/** Chats whose turns mix the two languages (remixed-chats.test.ts, REMIX_OTHER_SHARE; docs/eval, tenth round). */
describe('a turn in the other language', () => {
  const write = (language: 'zh' | 'en', text: string, card = {}) => {
    const reader = readConversation(text, { language: language, roleCard: card });
    return reader.writer.lines(reader.clauses);
  };

  it("keeps a shared photo's caption as said in a Chinese memory: the photo line is English prose", () => {
    // "你 shared a photo of a dog." was the English rule in a Chinese memory.
    expect(write('zh', 'user: Look at this! [shares a photo: a photo of a dog]')).toEqual([
      '你说Look at this! [shares a photo: a photo of a dog].',
    ]);
    expect(write('en', 'user: Look at this! [shares a photo: a photo of a dog]')).toEqual([
      'You said look at this! You shared a photo of a dog.',
    ]);
  });

  it('sets an English sentence apart from the next Latin word in a Chinese memory: never "workspace.That\'s"', () => {
    expect(
      write('zh', "user: Cool! Wall lighting adds beauty to your workspace.\nuser: That's so inspiring."),
    ).toEqual(["你说Wall lighting adds beauty to your workspace. That's so inspiring."]);
    expect(joinPieces(['last night（11月20日）.', 'You know I love live music.'], 'zh')).toBe(
      'last night（11月20日）. You know I love live music.',
    );
    // After an English sentence a digit opens a new one ("5月1日", no number "cost-effective.5");
    // a Chinese clause goes on as it was, whatever mark it ends on.
    expect(joinPieces(['more cost-effective.', '5月1日开放。'], 'zh')).toBe(
      'more cost-effective. 5月1日开放。',
    );
    expect(joinPieces(['20:00(最晚离园时间20:00);', '11月1日'], 'zh')).toBe(
      '20:00(最晚离园时间20:00);11月1日',
    );
    expect(joinPieces(['我很好。', 'You know.'], 'zh')).toBe('我很好。You know.');
    // After an English sentence, before anything: V2 reads V1 again, and "machines.\"大门…\"" was one sentence.
    expect(joinPieces(['at the slot machines.', '"大门门票10元"。'], 'zh')).toBe(
      'at the slot machines. "大门门票10元"。',
    );
    expect(joinPieces(['[shares a photo: a dog].', '9:00-17:00。'], 'zh')).toBe(
      '[shares a photo: a dog]. 9:00-17:00。',
    );
    expect(joinPieces(['down today（11月21日）.', '9:30-16:00。'], 'zh')).toBe(
      'down today（11月21日）. 9:30-16:00。',
    );
  });

  it("drops a turn's stray quote mark: it would open a quote the next line closes", () => {
    expect(
      write(
        'zh',
        'user: 说起这个还有点小复杂的。"大门门票10元，西洋楼遗址景区15元。\nassistant: 好的，谢谢你。',
      ),
    ).toEqual(['你说说起这个还有点小复杂的。大门门票10元，西洋楼遗址景区15元。', '我说谢谢你。']);
  });

  it('follows a question with its answer in one English line only where the answer opens on its subject as a word', () => {
    // "…, and you'd love that!" was read as the asker's words.
    expect(
      write(
        'en',
        "assistant: Can you tell me about some challenges you have faced?\nuser: I'd love that! Work was hard.",
      ),
    ).toEqual([
      'I asked whether you can tell me about some challenges you have faced.',
      "You'd love that! Work was hard.",
    ]);
  });

  it('follows a question with its answer in one Chinese line only where the answer says who answers', () => {
    // "我问起大观园，你去过…" reads as the asker's words.
    expect(write('zh', 'assistant: 你对大观园有了解吗？\nuser: 我去过，知道它也称北堂。')).toEqual([
      '我问起大观园。',
      '你去过，知道它也称北堂。',
    ]);
  });
});
