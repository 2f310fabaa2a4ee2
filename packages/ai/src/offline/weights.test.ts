import { describe, expect, it } from 'vitest';
import { readConversation } from './read.js';
import { analyse, namesIn, toTheOther } from './scoring.js';
import { atoms } from './statements.js';

/** What a statement weighs (scoring.ts analyse): the user's own words over the companion's, small talk as nothing. */
/** A conversation's statements as weighed (speakers user and assistant, the user's known). */
const unitsOf = (text: string, language: 'zh' | 'en') => {
  const reader = readConversation(text, { language, roleCard: {}, speakers: ['user', 'assistant'] });
  return analyse(atoms(reader.clauses, true), language, { isUser: reader.isUser });
};

describe("a statement's weight (issue 36 deliver 3)", () => {
  it('weighs the user\'s view ("I think…", "我觉得…") above the same words of the companion\'s', () => {
    for (const [language, view] of [
      ['en', 'I think the story is very tight and the bond between the two sisters is moving.'],
      ['zh', '我觉得这个故事很紧凑，两姐妹的感情很动人。'],
    ] as const) {
      const text = [`user: ${view}`, `assistant: ${view}`].join('\n');
      const [mine, theirs] = unitsOf(text, language);
      expect(mine!.bonus).toBeGreaterThanOrEqual(theirs!.bonus + 1);
    }
  });

  it('weighs what the user likes best ("My favorite genres are…") above the same words of the companion\'s', () => {
    const view = 'My favorite music genres are rock and pop.';
    const [mine, theirs] = unitsOf(`user: ${view}\nassistant: ${view}`, 'en');
    expect(mine!.bonus).toBeGreaterThan(theirs!.bonus);
  });

  it('weighs what the user says they are ("打篮球我是专业的") as a plan or an event of theirs, not "我是说…"', () => {
    const [am, ask] = unitsOf('user: 打篮球我是专业的\nuser: 我是说那个颜色', 'zh');
    expect(am!.bonus).toBeGreaterThanOrEqual(2);
    expect(ask!.bonus).toBeLessThan(2);
  });

  it('weighs taking advice in ("I\'ll give it a try.") as nothing: alone, its it is nobody\'s', () => {
    const text = [
      "user: Lately, I've noticed that I've been procrastinating.",
      'assistant: You could try breaking down tasks into smaller modules.',
      "user: I'll give it a try. Okay, I've taken note of that. I'll give my mom a call.",
    ].join('\n');
    const units = unitsOf(text, 'en');
    const unit = (words: string) => units.find((u) => u.text.includes(words))!;
    expect(unit('give it a try').filler).toBe(true);
    expect(unit('taken note').filler).toBe(true);
    expect(unit('procrastinating').filler).toBe(false);
    expect(unit('my mom a call').filler).toBe(false);
    // Told in V2's prose by the user's name, with a plan's "will": still no plan of theirs ("Lucy will give them a try.").
    const [told] = analyse(
      atoms(readConversation('Lucy will try them.', { language: 'en', roleCard: {} }).clauses, false),
      'en',
    );
    expect(told!.filler).toBe(true);
  });

  it("counts the user saying anything of themselves as more than small talk; 自我 or the companion's 我 is not that", () => {
    const text =
      'user: 要不是你一直支持我，可能我没有勇气开这个店\nassistant: 我没有勇气开店\nuser: 找到了自我';
    const reader = readConversation(text, { language: 'zh', roleCard: {}, speakers: ['user', 'assistant'] });
    const units = analyse(atoms(reader.clauses, true), 'zh', {
      isUser: reader.isUser,
      isCompanion: (s) => s !== undefined && !reader.isUser(s),
    });
    const unit = (text: string) => units.find((u) => u.text.includes(text))!;
    expect(unit('可能我没有勇气').filler).toBe(false);
    expect(unit('我没有勇气开店').filler).toBe(true);
    expect(unit('找到了自我').filler).toBe(true);
  });

  it('weighs the user saying how they feel as a feeling, where the emotion words do not know its word', () => {
    const text = [
      'user: Today is Tuesday, and I feel very listless and out of sorts at work.',
      'assistant: When you feel sad and lost, accept and acknowledge the emotion.',
      'user: 我最近感到很迷茫。',
    ].join('\n');
    const units = unitsOf(text, 'en');
    const unit = (part: string) => units.find((u) => u.text.includes(part))!;
    expect(unit('listless').emotional).toBe(true);
    expect(unit('迷茫').emotional).toBe(true);
    // The same words said to the user are not the user's feeling ("When you feel…" is known by "sad").
    const said = analyse(
      atoms(
        readConversation('assistant: You feel listless.', {
          language: 'en',
          roleCard: {},
          speakers: ['user', 'assistant'],
        }).clauses,
        true,
      ),
      'en',
      { isUser: () => false },
    );
    expect(said[0]!.emotional).toBe(false);
  });

  it("weighs the companion's advice as an aside even with a place or an 我 in it, and the user's event with a friend as an event", () => {
    const text = [
      'user: 我和朋友们去了一个新的公园，我最想去九寨沟看看。',
      'assistant: 我推荐你去看一下黄山，那里的日出特别美。你可以试试早上五点上山。我去年也去过黄山。',
      'assistant: I recommend you visit Yellow Mountain at dawn. I went there last year.',
    ].join('\n');
    const reader = readConversation(text, { language: 'zh', roleCard: {}, speakers: ['user', 'assistant'] });
    const units = analyse(atoms(reader.clauses, true), 'zh', {
      isUser: reader.isUser,
      isCompanion: (speaker) => speaker === 'assistant',
    });
    const unit = (part: string) => units.find((u) => u.text.includes(part))!;
    expect(unit('我推荐你去看一下黄山').aside).toBe(true);
    expect(unit('你可以试试').aside).toBe(true);
    expect(unit('I recommend you').aside).toBe(true);
    // The companion's own event is no advice.
    expect(unit('我去年也去过黄山').aside).toBe(false);
    expect(unit('I went there').aside).toBe(false);
    // "我和朋友们去了" is the user's event as "我去了" is.
    expect(unit('我和朋友们去了').bonus).toBeGreaterThanOrEqual(2);
  });

  it('says what day it is only with what the user said of it: "今天是星期二，" goes with the clause after it, alone it is small talk', () => {
    const text = [
      'user: 今天（5月5日）是星期二，我感觉很沮丧，没有什么动力去工作。',
      'assistant: 你可以试着找一些兴趣爱好来分散注意力，比如听音乐、看电影。',
      'user: 今天（5月6日）是星期三。我明天（5月7日）要去北京出差。',
    ].join('\n');
    const units = unitsOf(text, 'zh');
    expect(units.find((u) => u.text.includes('沮丧'))!.text).toContain('星期二');
    expect(units.find((u) => u.text.includes('星期三'))!.filler).toBe(true);
    expect(units.find((u) => u.text.includes('出差'))!.filler).toBe(false);
  });

  it('gives talk about the talk no worth from the date anchored in it ("我们明天（4月30日）再聊")', () => {
    const text = [
      'user: 今天（4月29日）的聊天非常愉快。',
      'assistant: 我们明天（4月30日）再聊。',
      'user: 昨天（4月28日）我又跑步了。',
    ].join('\n');
    const units = unitsOf(text, 'zh');
    const keys = (part: string) => [...units.find((u) => u.text.includes(part))!.keys.keys()];
    expect(keys('再聊')).not.toContain('#4月');
    expect(keys('聊天非常愉快')).not.toContain('#29日');
    // An event keeps its date.
    expect(keys('跑步')).toContain('#28日');
    // A greeting is talk about the talk too ("how are you doing today (20 November)?").
    const greeting = readConversation(
      'user: Hi how are you doing today (20 November)?\nassistant: Good, thanks.',
      { language: 'en', roleCard: {}, speakers: ['user', 'assistant'] },
    );
    const hello = analyse(atoms(greeting.clauses, true), 'en', { isUser: greeting.isUser });
    expect([...hello.find((u) => u.text.includes('how are you'))!.keys.keys()]).not.toContain('#20');
    // The user's fear in three words is no small talk; the companion's "好好休息" is.
    const more = readConversation('user: 跑到了一个陌生的地方，感觉有些害怕。\nassistant: 好好休息。', {
      language: 'zh',
      roleCard: {},
      speakers: ['user', 'assistant'],
    });
    const felt = analyse(atoms(more.clauses, true), 'zh', { isUser: more.isUser });
    expect(felt.find((u) => u.text.includes('害怕'))!.filler).toBe(false);
    expect(felt.find((u) => u.text.includes('休息'))!.filler).toBe(true);
  });

  it("takes a named user's praise of or reaction to the other as about the other, not the user's own", () => {
    for (const words of ["You've got guts and ambition.", 'looks delish!', 'Must feel so liberating!'])
      expect(toTheOther(words, 'Joanna', 'en')).toBe(true);
    for (const words of ['看起来很好吃！', '你真厉害'] as const)
      expect(toTheOther(words, '陆琳', 'zh')).toBe(true);
    // The user's own news, with a you in it; a user nobody named (then "you" is the user).
    for (const [words, name] of [
      ['I told you my sister got married last week.', 'Joanna'],
      ['looks delish!', undefined],
    ] as const)
      expect(toTheOther(words, name, 'en')).toBe(false);
    expect(toTheOther('我觉得你可以叫我小琳吧', '陆琳', 'zh')).toBe(false);
  });
});

describe('the names a text uses', () => {
  it('weighs no single capital letter as a name ("the 5K", "plan B"): a written chat\'s race weighed as a person', () => {
    const [unit] = unitsOf('user: She wants to walk the 5K with me, or plan B with Ana.', 'en');
    expect(unit!.keys.get('k')).toBeUndefined();
    expect(unit!.keys.get('b')).toBeUndefined();
    expect(unit!.keys.get('ana')).toBe(4);
  });

  it('takes no word of a title with a capital Me or My as a name ("the Remember Me song")', () => {
    const clauses = readConversation('user: I cried at the Remember Me song, and Lily sang along.', {
      language: 'en',
      roleCard: {},
    }).clauses;
    expect([...namesIn(clauses)]).toEqual(['Lily']);
  });
});
