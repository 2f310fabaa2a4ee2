import { describe, expect, it } from 'vitest';
import { namePronounsZh } from './pronouns.js';
import { conversationClauses } from './segment.js';

const named = (text: string) => namePronounsZh(conversationClauses(text)).map((c) => c.text);

describe('namePronounsZh', () => {
  it('writes 他 / 她 as the one person word around it of its gender', () => {
    expect(named('user: 奶奶说爷爷下周三做手术，我想周末去医院给他看奖状。')).toEqual([
      '奶奶说爷爷下周三做手术，',
      '我想周末去医院给爷爷看奖状。',
    ]);
  });

  it('leaves it where it may mean someone else: two people, or the same pronoun said since', () => {
    // 妈妈 and 姐姐 are both 她.
    expect(named('user: 妈妈和姐姐吵架了，我想跟她谈谈。').at(-1)).toBe('我想跟她谈谈。');
    // The sister, named before the window: 妈妈 is nearer, but 她 has gone on about the sister.
    const text = [
      'user: 我今天把妹妹的蜡笔弄断了。',
      'assistant: 哦，是不小心的吗？',
      'user: 是不小心的，可是她哭得很厉害，妈妈让我向她道歉。',
      'assistant: 你道歉了吗？',
      'user: 还没有，我觉得很委屈，因为她上周也把我的乐高城堡弄坏了。',
    ].join('\n');
    expect(named(text).at(-1)).toBe('因为她上周也把我的乐高城堡弄坏了。');
  });

  it("takes no one from a word that names nobody: counted, someone else's, or a 朋友 in general", () => {
    const princess = 'user: 和敬公主是乾隆的女儿吗？\nassistant: 是的。她也是乾隆皇帝的第三个女儿。';
    expect(named(princess).at(-1)).toBe('她也是乾隆皇帝的第三个女儿。');
    expect(named('user: 她说不想跟我做朋友了，她好像生气了。').at(-1)).toBe('她好像生气了。');
  });
});
