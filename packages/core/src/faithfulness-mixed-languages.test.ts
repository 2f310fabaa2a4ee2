/**
 * The faithfulness check on chats whose turns mix Chinese and English: where a sentence of the other
 * script ends, which words are free for being in it (none), and where a speaker's words start. The
 * check on chats of one language: faithfulness.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { inventedSpans } from './faithfulness.js';
import { en, zh } from './faithfulness-sources.js';

/** Chats whose turns mix the two languages (remixed-chats.test.ts, REMIX_OTHER_SHARE; docs/eval, tenth round). */
describe('invented spans, in a chat mixing Chinese and English turns', () => {
  it("an English line's full stop ends its sentence in a Chinese memory, where Chinese or a space follows", () => {
    const source = zh([
      ['阿光', 'Today is another busy day and I feel exhausted.'],
      ['小雨', '不贵，淡季10元。'],
      ['阿光', '其实我比较喜欢弹吉他，听摇滚音乐。'],
    ]);
    expect(
      inventedSpans('阿光说Today is another busy day and I feel exhausted.听摇滚音乐。', source),
    ).toEqual([]);
    expect(
      inventedSpans('阿光说Today is another busy day and I feel exhausted. 听摇滚音乐。', source),
    ).toEqual([]);
    expect(
      inventedSpans('阿光说Today is another busy day and I feel exhausted.听古典音乐。', source),
    ).toEqual(['古典']);
  });

  it('a sentence opening on words a turn holds whole ("你说的故事…", the companion\'s) is said', () => {
    const source = zh(
      [
        ['user', '你看过这部电影吗？'],
        ['assistant', '看来这是一部非常好的电影。你说的故事可以启发人们相信自己的梦想。'],
      ],
      ['小暖'],
    );
    expect(
      inventedSpans('小暖说看来这是一部非常好的电影。你说的故事可以启发人们相信自己的梦想。', source),
    ).toEqual([]);
    expect(inventedSpans('小暖说看来这是一部非常好的电影。你说的故事可以启发所有人。', source)).not.toEqual(
      [],
    );
  });

  it('a quote whose first letter a dropped opener made a capital ("Plus, coding…" as "Coding…") is said', () => {
    const source = zh([
      ['Jolene', 'Plus, coding lets me challenge myself and expand my skills, so this was a great chance.'],
      ['Deborah', '无需门票。'],
    ]);
    expect(
      inventedSpans('Jolene说：“Coding lets me challenge myself and expand my skills”。', source),
    ).toEqual([]);
    expect(inventedSpans('Jolene说：“Coding lets me challenge everyone”。', source)).not.toEqual([]);
  });

  it('a reported question moves its auxiliary where the same one stands later ("what it was like when everyone was…")', () => {
    const source = en([
      ['user', 'Wow, great job! What was it like when everyone was cheering you on?'],
      ['assistant', "I tried it - it's crazy how real it feels!"],
    ]);
    expect(inventedSpans('You wondered what it was like when everyone was cheering you on.', source)).toEqual(
      [],
    );
    expect(inventedSpans('You wondered what it was like when nobody was cheering you on.', source)).toEqual([
      'nobody',
    ]);
  });

  it('a reporting verb right after a marker is the first speaker\'s words ("Jolene问你告诉Jolene一下")', () => {
    const source = zh([
      ['Jolene', '嗯，地址是北京市东城区景山前街4号，但是我不知道电话，你告诉我一下吧？'],
      ['Deborah', '好的。'],
    ]);
    expect(
      inventedSpans('Jolene说地址是北京市东城区景山前街4号，Jolene问你告诉Jolene一下。', source),
    ).toEqual([]);
  });
});

describe('invented spans, in a chat mixing Chinese and English turns (seeds of a sound generator)', () => {
  it('reads Chinese words in an English memory: none is free for being in the other script', () => {
    const source = en([
      ['user', 'I went to the park.'],
      ['assistant', 'Nice!'],
    ]);
    expect(inventedSpans('You said 我明天不来了。 You went to the park.', source)).toEqual(['我明天不来了']);
  });

  it('ends a sentence at an English full stop before a quote or a title mark in a Chinese memory', () => {
    const source = zh([
      ['阿光', 'I have many recommendations, such as "Joker" and "Avengers: Endgame."'],
      ['小雨', '好的。'],
      ['阿光', '我还喜欢音乐制作和电影。《银河补习班》很好看。'],
    ]);
    expect(
      inventedSpans('阿光说Such as "Joker" and "Avengers: Endgame."阿光还喜欢音乐制作和电影。', source),
    ).toEqual([]);
    expect(inventedSpans('阿光说I have many recommendations.《银河补习班》很好看。', source)).toEqual([]);
  });

  it('reads a Chinese marker only where a speaker\'s words may start: "…一些你说的事情" is the companion\'s', () => {
    const source = zh(
      [
        ['user', '嫌玩时间短，那可以去周边的恭王府溜达一圈呀。'],
        ['assistant', '非常感谢你的建议，我会尝试着去做一些你说的事情。'],
      ],
      ['Juno'],
    );
    expect(inventedSpans('你说嫌玩时间短。Juno会尝试着去做一些你说的事情。', source)).toEqual([]);
    // After a quote's ”, a marker opens the next speaker's words.
    expect(inventedSpans('Juno说：“非常感谢你的建议”你说嫌玩时间短。', source)).toEqual([]);
  });

  it('writes a left-out "I" before a past tense of four letters ("Dyed my hair…")', () => {
    const source = en([
      ['user', 'That is so nice.'],
      ['assistant', 'Hey Jo, guess what I did? Dyed my hair last week - come see!'],
    ]);
    expect(inventedSpans('I dyed my hair last week - come see!', source)).toEqual([]);
  });

  it('reads a person word before an auxiliary moved to the question\'s end ("for you was")', () => {
    const source = en([
      ['小雨', 'What was the best part for you?'],
      ['阿光', 'The music.'],
    ]);
    expect(inventedSpans('小雨 wondered what the best part for you was.', source)).toEqual([]);
    expect(inventedSpans('小雨 wondered what the best part for them was.', source)).toEqual(['them']);
  });
});
