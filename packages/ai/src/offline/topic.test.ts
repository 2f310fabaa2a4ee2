import { describe, expect, it } from 'vitest';
import { conversationClauses } from './segment.js';
import { topicOf } from './topic.js';

const topic = (text: string) => topicOf(conversationClauses(text), 'zh');
const english = (text: string) => topicOf(conversationClauses(text), 'en');

describe('topicOf', () => {
  it('names the thing an opening question asks about', () => {
    expect(topic('user: 你知道保利剧院吗？\nassistant: 知道，在东城区。')).toBe('保利剧院');
    // The name alone, not what is asked of it.
    expect(topic('user: 你知道社稷坛这个景点在哪吗？\nassistant: 在中山公园里。')).toBe('社稷坛');
    // The 么 of 什么 ends no question: not "展览馆在什".
    expect(topic('user: 你好，知道城南展览馆在什么地方吗？\nassistant: 在前门东大街。')).toBe('城南展览馆');
    expect(topic('user: 你知道的烟袋斜街这个景点你还记得吗？\nassistant: 记得。')).toBe('烟袋斜街');
    // The thing first, then the question (KdConv: "角楼你去过吗？"), a title with its 我 too.
    expect(topic('user: 角楼你去过吗？\nassistant: 去过啊，挺不错的。')).toBe('角楼');
    expect(topic('user: 《我要复仇》你看过吗？\nassistant: 看过。')).toBe('《我要复仇》');
    // The thing, not the degree of interest ("赛车比赛越来越感" was a topic).
    expect(topic('user: 最近我对赛车比赛越来越感兴趣了，有什么好的赛事吗？\nassistant: 有。')).toBe(
      '赛车比赛',
    );
  });

  it('takes no topic from a quoted remark, however often it recurs ("我明天不来了" is what someone said)', () => {
    const said = 'user: 他说“我明天不来了”，我有点难过。';
    expect(topic([said, said, said, 'assistant: 别难过。'].join('\n'))).toBeUndefined();
  });

  it('takes no topic from not knowing what to do ("不知道该怎么做" once named a topic "该怎")', () => {
    expect(topic('user: 我在想要不要换工作，不知道该怎么做。\nassistant: 先想想你的目标。')).toBeUndefined();
    expect(topic('user: 你知道该怎么办吗？\nassistant: 先冷静下来。')).toBeUndefined();
  });

  it('takes no topic from a question word: "你喜欢哪一段？" wrote "你和阿光聊到了哪一段。"', () => {
    const film = 'user: 我昨天去看了《流浪地球3》！\nassistant: 哇，你喜欢哪一段？\nuser: 最后那段。';
    expect(topic(film)).toBeUndefined();
    expect(topic('user: 你喜欢谁的歌？\nassistant: 周杰伦的。')).toBeUndefined();
  });

  it('names the place an opening asks after by its kind, or is going to ("地址" and "北京市" were topics)', () => {
    const culture = 'user: 民族文化宫这个景点有什么特别的吗？\nassistant: 民族文化宫位于北京市西长安街西侧。';
    expect(topic(`${culture}\nuser: 北京市哪里还有？\nassistant: 北京市有很多。北京市真大。`)).toBe(
      '民族文化宫',
    );
    expect(
      topic(
        'user: 你好，我想去清华大礼堂参观一下，可以帮我查一下这里能玩多长时间吗？\nassistant: 你知道地址在哪里吗？',
      ),
    ).toBe('清华大礼堂');
    expect(topic('user: 798艺术区了解吗？\nassistant: 了解啊，地址是在北京朝阳区仙酒桥路2号。')).toBe(
      '798艺术区',
    );
    expect(topic('user: 你知道地址在哪里吗？\nassistant: 在东城区。')).toBeUndefined();
  });

  it('takes no topic from a place first named late, however often: the zoo chat was "about" 恭王府', () => {
    const zoo = [
      'user: 假期我想带孩子出去玩，你有什么推荐吗？',
      'assistant: 可以去动物园，特别适合带孩子。',
      'user: 好的，动物园能玩多久？',
      'assistant: 两到四个小时，门票十五元。',
      'user: 附近还有什么？',
      'assistant: 附近有恭王府。',
      'user: 恭王府我去过。',
      'assistant: 恭王府的门票是四十元，恭王府很大。',
    ];
    expect(topic(zoo.join('\n'))).toBeUndefined();
  });

  it('takes no English topic holding a pronoun, a question word or a time ("We talked about it out.")', () => {
    expect(english('Tim: Have you ever tried it out?\nJohn: Yes, I have.')).toBeUndefined();
    expect(english('user: I had a great talk about my fave books.\nassistant: Nice!')).toBeUndefined();
    expect(english('user: Do you know what your friend likes?\nassistant: Not yet.')).toBeUndefined();
    expect(english('user: Have you seen Inception?\nassistant: Yes, twice.')).toBe('Inception');
  });

  it('writes a topic said only inside “…” with its marks: "聊到了已黑" was words nobody said, refused every night', () => {
    const chat = [
      'user: 我最近在看“已黑”，你看过吗？',
      'assistant: 没看过“已黑”，讲什么的？',
      'user: “已黑”讲的是一个黑客的故事。',
      'assistant: 听起来不错。',
    ];
    expect(topic(chat.join('\n'))).toBe('“已黑”');
    // Asked after in the opening, it keeps both its marks: "聊到了“已黑。" left a quote open to the next line.
    expect(topic('user: 你看过“已黑”吗？\nassistant: 没有。')).toBe('“已黑”');
    // Said outside the quote too, it is written bare, as said there.
    expect(topic([...chat, 'user: 已黑的结局很好。'].join('\n'))).toBe('已黑');
    // A name said only inside a longer quote is never taken out of it: the quote, as said, or nothing.
    const quoted = 'user: 他说“长城真美”。';
    expect(topic([quoted, quoted, quoted, 'assistant: 是啊。'].join('\n'))).toBe('“长城真美”');
  });
});
