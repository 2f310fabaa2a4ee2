/**
 * Statements as the offline compressor reads them: which cannot stand alone, and what they lean on (a bare number,
 * an opener needing what came before, an aside, an echo, a reply, an agreement). How kept statements are written:
 * written-statements.test.ts; a question as the concern behind it: questions-written.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { readConversation } from './read.js';
import { conversationClauses } from './segment.js';
import { atoms, bare, ended, joinClauses, leansBack, standalone } from './statements.js';

describe('statements that cannot stand alone', () => {
  it('knows a bare number or date, and an opener that needs what came before', () => {
    for (const text of ['40元。', '2小时 - 4小时。', 'At 8 pm.', '177，254万']) expect(bare(text)).toBe(true);
    for (const text of ['门票价格是40元。', 'I paid 40 euros.']) expect(bare(text)).toBe(false);
    for (const text of [
      '它是2001年上映的。',
      '也是北京的时尚地标之一。',
      'It was Matt.',
      'They loved it.',
      '我说是北京市东城区。',
      // A name is no verb, whatever it ends with: the answer to "Have you found a vet yet?".
      'Paws & Claws on Fifth Avenue.',
      // Nothing of its own but a pronoun: "Juno loves it." said what "it" was nowhere (issue 36).
      'I love it.',
      'Juno loves it.',
      // Up to eight words ending on their only thing, a pronoun, or on "too": what, only the sentence before says.
      'Jolene has been wanting to try it.',
      'Frank will try to practice and implement them.',
      'I love watching movies too.',
    ])
      expect(leansBack(text)).toBe(true);
    // A feeling is said whatever it is about.
    expect(leansBack('I feel so alone with this.')).toBe(false);
    for (const text of [
      '这周末我去爬山。',
      '如果我考不好，妈妈会不高兴的。',
      'I went to the museum.',
      'But I went anyway.',
      'Mel paints every weekend.',
      'I love the pottery class.',
    ])
      expect(leansBack(text)).toBe(false);
  });

  it('keeps what a clause introduces ("一道新的菜，") with the clause after it, its name or what it was like', () => {
    const texts = (text: string) => atoms(conversationClauses(`user: ${text}`), true).map((a) => a.text);
    expect(texts('今天我还学了一道新的菜，毛血旺，味道还不错。')).toEqual([
      '今天我还学了一道新的菜，毛血旺，',
      '味道还不错。',
    ]);
    // A list's tail and a run of its items go with its head (chained past MAX_CHAIN, "摄影。" was an orphan).
    for (const list of ['周边有天安门广场，天坛等多个景点呢。', '我喜欢唱歌跳舞，健身，旅游，电影，摄影。'])
      expect(texts(list)).toEqual([list]);
    expect(texts('Hi，小丽。')).toHaveLength(2);
  });

  it('keeps an aside after a dash as a statement of its own, leaning on the sentence', () => {
    const text =
      'Melanie: Hi!\nMelanie: I took the kids to the museum - it was so cool seeing their eyes light up!';
    const [, head, aside] = atoms(conversationClauses(text), false, { upTo: 200 });
    expect(head!.text).toBe('I took the kids to the museum -');
    expect(aside!.needs).toBe(head);
    const reader = readConversation(text, { language: 'en', roleCard: {} });
    expect(reader.writer.lines([reader.clauses[0]!])).toEqual(['Melanie took the kids to the museum.']);
    // A few words with no subject after the dash are the sentence's: alone, "Excited and nervous." is nobody's.
    const feeling = 'user: When I got it, I felt a mix of emotions - excited and nervous. But now I love it!';
    const [felt, mixed] = atoms(conversationClauses(feeling), false);
    expect(mixed!.text).toBe('excited and nervous.');
    expect(mixed!.needs).toBe(felt);
    // One with its own subject stands alone.
    const own = atoms(
      conversationClauses('user: We tried scuba diving - maybe one day I will be a diver.'),
      false,
    );
    expect(own[1]!.needs).toBeUndefined();
    // A dash inside a word or a number range is no aside.
    const plain = atoms(conversationClauses('user: I run 5-10 km on well-lit paths every day.'), false);
    expect(plain).toHaveLength(1);
  });

  it("keeps a Chinese yes said by echoing the question's word with its question, in a conversation and a stage", () => {
    // A written film chat: "喜欢，" alone, after its question was dropped, was a feeling of nothing.
    const chat = 'assistant: 图恒宇那条线你喜欢吗？\nuser: 喜欢，他为了女儿把意识上传到数字生命里。';
    const [question, yes] = atoms(conversationClauses(chat), true);
    expect(yes!.text).toBe('喜欢，');
    expect(yes!.needs).toBe(question);
    const stage = '小满问：“图恒宇那条线你喜欢吗？”\n林小雨说喜欢，他为了女儿把意识上传到数字生命里。';
    const [asked, said] = atoms(conversationClauses(stage), false);
    expect(said!.needs).toBe(asked);
    // A feeling the question did not name is the speaker's own ("很难过" after "你看完觉得怎么样？").
    const [, felt] = atoms(conversationClauses('assistant: 你看完觉得怎么样？\nuser: 很难过。'), true);
    expect(felt!.needs).toBeUndefined();
  });

  it('keeps the rest of a question a stage reported with it, and a statement said after it apart', () => {
    // _check_ (姚国栋/2023-05-03 of seed 3018's reading): V2 kept "你有没有什么好的电影…推荐给姚国栋。" alone.
    const stage =
      '姚国栋问除了这些，你有没有什么好的电影推荐给姚国栋。\n我问它的具体地址，你说是北京市东城区。';
    const [asked, rest, where, answer] = atoms(conversationClauses(stage), false);
    expect(rest!.text).toBe('你有没有什么好的电影推荐给姚国栋。');
    expect(rest!.needs).toBe(asked);
    expect(answer!.text).toBe('你说是北京市东城区。');
    expect(answer!.needs).toBe(where); // a bare answer, as before: "是北京市东城区" leans on its question
  });

  it('keeps a reply of a few words with its question, and words fronted before a clause in it', () => {
    const clauses = conversationClauses(
      'assistant: Has something been testing your patience lately?\nuser: Work, mostly.\n' +
        'user: My team lead changed three times this year.\n' +
        'assistant: Pottery and gardening, you are building a whole routine.',
    );
    const [question, reply, statement, praise] = atoms(clauses, true, { upTo: 0 });
    expect(reply!.needs).toBe(question);
    expect(statement!.needs).toBeUndefined();
    // "Pottery and gardening," is the next clause's, not a statement of its own.
    expect(praise!.text).toBe('Pottery and gardening, you are building a whole routine.');
    // A reply of more words says something of its own.
    const long = atoms(conversationClauses('assistant: Any plans?\nuser: I booked a trip to Rome.'), true);
    expect(long[1]!.needs).toBeUndefined();
  });

  it('keeps a bare answer with its question after a long run, and a bare address as a bare answer', () => {
    // Four statements lean on each other before the question: the question starts over, so "也就2小时 - 4小时吧"
    // is kept with it, never alone after the price ("门票40元。也就2小时 - 4小时吧。" read as the price's hours).
    const run = atoms(
      conversationClauses(
        'assistant: 门票40元，不算贵。\nuser: 还真就挺便宜的，那这个能玩多长时间啊？\nassistant: 也就2小时 - 4小时吧。',
      ),
      true,
    );
    const [asked, hours] = run.slice(-2);
    expect(hours!.needs).toBe(asked);
    expect(hours!.orphan).toBe(false);
    const [where, address] = atoms(
      conversationClauses('assistant: 那具体地址是哪里啊？\nuser: 海淀区圆明园遗址公园北侧。'),
      true,
    );
    expect(address!.needs).toBe(where);
  });

  it('closes a clause of digits alone in the memory\'s language: never "010-62793001.1小时", a new number', () => {
    const clauses = conversationClauses('assistant: 010-62793001，这是它的电话。1小时就能游完。');
    const [phone, , hours] = clauses;
    expect(joinClauses([phone!, hours!], 'zh')).toBe('010-62793001。1小时就能游完。');
  });

  it('keeps a request as said: no "told you to" (issue 36: a rewriting rule removed)', () => {
    const reader = readConversation(
      'user: The seeds arrive Friday.\nassistant: Send me a picture of the first tomato!\n' +
        "user: I will.\nassistant: Don't water them at noon.",
      { language: 'en', roleCard: { name: 'Juno' } },
    );
    const lines = reader.writer.lines(reader.clauses.slice(1));
    // Juno's own "me" is Juno: the one pronoun whose person is certain (issue 36).
    // Its first word keeps its capital before a name ("Paws & Claws", lines.ts attributed()).
    expect(lines[0]).toBe('Juno said send Juno a picture of the first tomato!');
    expect(lines.at(-1)).toBe("Juno said don't water them at noon.");
  });

  it('ends a clause cut before an aside once: "…this weekend. -" is no "weekend.."', () => {
    expect(ended('Mom says we visit grandma this weekend (31 October). -', 'en')).toBe(
      'Mom says we visit grandma this weekend (31 October).',
    );
    expect(ended('我们周末去外婆家。，', 'zh')).toBe('我们周末去外婆家。');
    expect(ended('I went to the park,', 'en')).toBe('I went to the park.');
  });

  it('drops a connective left hanging, not the statement', () => {
    expect(standalone('而且门票只要40元。')).toBe('门票只要40元。');
    // A bare 但 too (never "我说但需凭有效证件…"), but not the 但 of 但愿 ("may it").
    expect(standalone('但需凭有效证件领取免费参观券入馆。')).toBe('需凭有效证件领取免费参观券入馆。');
    expect(standalone('但愿明天不下雨。')).toBe('但愿明天不下雨。');
    expect(standalone('but I went anyway.')).toBe('I went anyway.');
  });

  it('keeps a statement that leans back only with the one it leans on', () => {
    const clauses = conversationClauses(
      'user: 那它的门票是怎么收费的？\nassistant: 40元。\nuser: 我下周去。',
    );
    const [question, answer, plan] = atoms(clauses, true);
    expect(answer!.needs).toBe(question);
    expect(plan!.needs).toBeUndefined();
    // In a stage's prose each line says who speaks: a line's opening statement needs nothing.
    const prose = atoms(conversationClauses('你问门票。\n它很贵。', { speakers: false }), false);
    expect(prose[1]!.orphan).toBe(true);
  });

  it('keeps what leans on an agreement alone with what was agreed with ("肯定不错啊,这可是…", "Yeah. It was…")', () => {
    const chat = 'assistant: 我觉得附近的天安门广场就很不错。\nuser: 肯定不错啊,这可是位于北京的中轴线上。';
    const [proposal, agreement, fact] = atoms(conversationClauses(chat), true);
    // The half-width comma between Han characters cuts as "，" does.
    expect(agreement!.text).toBe('肯定不错啊,');
    expect(fact!.needs).toBe(agreement);
    expect(agreement!.needs).toBe(proposal);
    const [idea, yeah, it_] = atoms(
      conversationClauses('assistant: Try the pottery class.\nuser: Yeah. It was amazing.'),
      true,
    );
    expect(it_!.needs).toBe(yeah);
    expect(yeah!.needs).toBe(idea);
  });

  it('keeps a short clause closing a sentence with the clause before it, when it names nobody of its own', () => {
    const [plan, aim, other] = atoms(
      conversationClauses('user: 周末我想在家里做做瑜伽，放松一下心情。我也很开心。'),
      true,
    );
    // "放松一下心情" alone does not say who, nor what brings it.
    expect(aim!.needs).toBe(plan);
    expect(other!.needs).toBeUndefined();
    // A number is a fact of its own ("一共三天").
    const [, days] = atoms(conversationClauses('assistant: 记得带上身份证，出差一共三天。'), true);
    expect(days!.needs).toBeUndefined();
  });
});
