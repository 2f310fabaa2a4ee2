import { describe, expect, it } from 'vitest';
import { conversationClauses } from './segment.js';
import { topicOf } from './topic.js';

const topic = (text: string) => topicOf(conversationClauses(text), 'zh');

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
});
