import type { Emotion, PatternRule } from '../types.js';

// The Chinese pack's emotion words (lexicon.ts emotionsIn): one rule per emotion.

/** Emotion words (or patterns), matched anywhere: lexicon.ts emotionsIn. */
const emotion = (list: string, matches: string[], rejects: string[]): PatternRule => ({
  why: 'how the user felt, as a residue and a highlight (a death is grief, not an empty residue)',
  pattern: new RegExp(list, 'u'),
  matches,
  rejects,
});

export const emotions: Record<Emotion, PatternRule> = {
  // "奶奶走了" is a death; "可以带着猫走了", "我先走了" is leaving.
  grief: emotion(
    '去世|过世|离世|病逝|葬礼|安乐死|(?<![累笑热饿忙气烦困吓])死(?:掉)?了|永远离开|离开了我们|失去了|(?<!(?:带着|带上|跟着|一起|可以|要|该|得|先|就要)[^，。！]{0,6})走了(?=[，。！…]|$)',
    ['你的仓鼠团团今天早上死了。', '我们家的小仓鼠团团死掉了。', '奶奶走了。'],
    ['累死了', '热死掉了', '我先走了。', '可以带着猫走了'],
  ),
  // "怕上台忘谱" (its 我 dropped), "我怕…", a stage's "乐乐怕…": the fear of what follows; not 恐怕 / 怕是 (perhaps),
  // 哪怕 (even if), 只怕.
  fear: emotion(
    '害怕|恐惧|可怕|吓死|吓到|吓坏|不敢|(?<![恐哪不只])怕(?!是)',
    ['我害怕打雷', '怕上台忘谱。', '我怕考不好', '有点怕', '乐乐怕告诉老师以后他会更欺负乐乐。'],
    ['我不怕', '恐怕要下雨', '哪怕下雨也去', '怕是来不及了'],
  ),
  anxiety: emotion(
    // Not tiredness ("我好累"), nor embarrassment: to call them worry says what was not said.
    // Lost ("感觉很迷茫，不知道该怎么做"): the worry a user asks the companion about; not "不知道该怎么提高" (a how).
    '担心|紧张|焦虑|压力|不安|烦恼|发愁|犯愁|忐忑|着急|慌|考不好|怎么办|迷茫|茫然|不知所措|无从下手',
    ['如果我考不好，妈妈会不高兴的吗？', '我该怎么办？', '最近有些犯愁', '但是感觉很迷茫，不知道该怎么做。'],
    ['你下周三去上海出差。', '不知道该怎么提高。'],
  ),
  sadness: emotion(
    // A breakup or a divorce is a loss; "放不下" is one only of a person or a past, not of a box.
    '难过|伤心|失望|哭(?!笑不得)|遗憾|沮丧|心疼|郁闷|低落|委屈|失落|压抑|心情不好|想念|怀念|舍不得|分手|离婚|' +
      '(?:还|始终|一直|总是|就是|心里)放不下|放不下(?:她|他|你|这段|过去)|' +
      // Said so by products' users and no feeling before (a probe written by hand, twenty-fourth round).
      '绝望|崩溃|空虚|心里空|失败|内疚|愧疚|惭愧|一文不值|想家|背叛|(?:好|很|真)想(?:他|她|它|你|家|妈|爸)|(?:觉得|有点|有些|很|真)对不起|' +
      '无助|无奈|难受',
    [
      '你很自豪，但是也有点难过。',
      '我和女朋友分手了',
      '只是我还放不下。',
      '我觉得很绝望。',
      '我好想他。',
      // A pet missed, and guilt (written children's and film chats: "我还是很想它", "我一直觉得有点对不起她").
      '我还是很想它。',
      '我一直觉得有点对不起她。',
      // Missing a time gone, as "想念" misses a person (a song chat's only feeling was no feeling).
      '现在想起来还挺怀念的。',
      '觉得很无助。',
    ],
    ['你下周三去上海出差。', '桌子上放不下这么多书', '真是哭笑不得', '对不起，我来晚了。', '我想它应该饿了'],
  ),
  loneliness: emotion(
    '孤独|寂寞|孤单|没人陪|没人在乎|没人理',
    ['它一个人在家会孤单', '没人在乎我。'],
    ['我们一起去'],
  ),
  anger: emotion(
    '生气|愤怒|讨厌|烦躁|气死|恼火|火大|嫉妒|(?:很|好|真|烦)烦(?!恼)',
    ['妈妈很生气', '我有点嫉妒我姐。', '我最近很烦。'],
    ['妈妈很开心'],
  ),
  pride: emotion('自豪|骄傲', ['你很自豪'], ['你很开心']),
  joy: emotion(
    '开心|高兴|快乐|幸福|兴奋|期待|满意|感动|享受|治愈|哈哈|太好了|喜欢|有趣',
    ['心情一下子就好起来了，很开心', '听起来很治愈！'],
    ['你下周三去上海出差。'],
  ),
  // Thanks are courtesy; gratitude is what is felt (感激, grateful).
  gratitude: emotion('感激|感恩', ['我很感激你'], ['你说谢谢啊！']),
};

/** Each emotion's name, as a memory's residue says it (residue.ts). */
export const EMOTION_NAMES: Record<Emotion, string> = {
  grief: '悲痛',
  fear: '恐惧',
  anxiety: '焦虑',
  sadness: '悲伤',
  loneliness: '孤独',
  anger: '愤怒',
  pride: '自豪',
  joy: '喜悦',
  gratitude: '感激',
};

/**
 * The words around a feeling's: a negation before it (lexicon.ts emotionsIn), and a story's plot, whose
 * feelings are its characters' (lexicon.ts emotionsIn reads none in it).
 */
export const feelings = {
  emotions,
  negation: {
    why: 'a feeling negated just before it ("不开心", "不担心") is not felt (a negated joy is sadness)',
    // Not the 别 of a word ("特别开心" is very happy: read as "别开心", it was sadness).
    pattern:
      /(?:不|没|没有|(?<![特区分告类级个差识鉴辨派性离])别|不太|不怎么|一点也不|并不|不再|没那么|不那么|不用|不必|无需|用不着)$/,
    matches: ['妈妈会不', '我一点也不', '你别', '你不用', '我不再'],
    rejects: ['妈妈会', '我特别', '心里有区别'],
  } satisfies PatternRule,
  plot: {
    why: 'what a film or a book tells ("讲的是福贵一家的故事，家人一个个去世"): a plot, no feeling of the speaker\'s',
    pattern: /讲的是|讲述(?:了|的是)|讲了一个|描写了|描述了|主要讲|故事(?:讲的是|是关于)/u,
    matches: ['讲的是福贵一家的故事，家人一个个都去世了。', '这个电影主要讲述了一个失业父亲的故事'],
    rejects: ['我很难过。', '他跟我讲了很多'],
  } satisfies PatternRule,
};
