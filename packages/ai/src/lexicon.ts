import type { Language } from '@memfade/core';

/** Small emotion lexicons: enough for an extractive compressor to notice how a conversation felt. */
export type Emotion = 'joy' | 'sadness' | 'anxiety' | 'anger' | 'gratitude';

export const EMOTION_WORDS: Record<Language, Record<Emotion, string[]>> = {
  zh: {
    joy: [
      '开心',
      '高兴',
      '快乐',
      '喜欢',
      '幸福',
      '兴奋',
      '期待',
      '满意',
      '感动',
      '可爱',
      '有趣',
      '享受',
      '治愈',
      '哈哈',
      '太好了',
      '棒',
    ],
    sadness: ['难过', '伤心', '失望', '孤独', '哭', '遗憾', '想念', '沮丧', '心疼'],
    anxiety: ['担心', '紧张', '焦虑', '害怕', '压力', '不安', '烦恼', '发愁'],
    anger: ['生气', '愤怒', '讨厌', '烦躁', '气死'],
    gratitude: ['谢谢', '感谢', '感激'],
  },
  en: {
    joy: [
      'happy',
      'glad',
      'excited',
      'love',
      'enjoy',
      'fun',
      'amazing',
      'wonderful',
      'great',
      'lovely',
      'proud',
      'romantic',
      'delighted',
    ],
    sadness: ['sad', 'lonely', 'miss', 'cried', 'cry', 'upset', 'disappointed', 'sorry', 'hurt'],
    anxiety: [
      'nervous',
      'anxious',
      'worried',
      'worry',
      'afraid',
      'scared',
      'stress',
      'stressed',
      'overwhelmed',
    ],
    anger: ['angry', 'annoyed', 'frustrated', 'hate', 'furious'],
    gratitude: ['thank', 'thanks', 'grateful', 'appreciate'],
  },
};

export const EMOTION_NAMES: Record<Language, Record<Emotion, string>> = {
  zh: { joy: '喜悦', sadness: '悲伤', anxiety: '焦虑', anger: '愤怒', gratitude: '感激' },
  en: { joy: 'joy', sadness: 'sadness', anxiety: 'anxiety', anger: 'anger', gratitude: 'gratitude' },
};

const EN_WORD_LISTS = Object.entries(EMOTION_WORDS.en).map(([emotion, words]) => ({
  emotion: emotion as Emotion,
  pattern: new RegExp(`\\b(?:${words.join('|')})`, 'i'),
}));

/** The emotions a sentence expresses, by lexicon. */
export function emotionsIn(text: string, language: Language): Emotion[] {
  if (language === 'en') return EN_WORD_LISTS.filter((l) => l.pattern.test(text)).map((l) => l.emotion);
  return (Object.entries(EMOTION_WORDS.zh) as [Emotion, string[]][])
    .filter(([, words]) => words.some((w) => text.includes(w)))
    .map(([emotion]) => emotion);
}

export const EN_STOPWORDS = new Set(
  'a an the and or but if of to in on at for with from by as is am are was were be been being it its this that these those i you he she we they me him her us them my your his our their what which who whom do does did have has had not no so too very just can will would should could about into over than then there here when where how all any some more most also only own same such up down out off again once'.split(
    ' ',
  ),
);

/**
 * English words that carry no fact of their own: interjections, politeness and the small talk
 * around facts. A clause made only of these (and stopwords, and a name being addressed) is filler.
 */
export const EN_FILLER = new Set(
  "wow hey hi hello thanks thank yeah yes yep yup oh ah aw aww awww haha hahaha lol omg cool nice sure okay ok totally really definitely absolutely sounds sound seems glad gosh congrats congratulations bye welcome hmm um uh well anyway great awesome good agree true right exactly much lot lots thing things something anything stuff kind sort pretty know think guess mean get got getting go going gonna let let's keep hope hear heard tell talk talking see seeing say said sounds like really always never ever even still also way lovely amazing wonderful fantastic incredible honestly seriously literally".split(
    ' ',
  ),
);

/** English words that name a time or an amount: a fact in themselves. */
export const EN_TIME_WORDS = new Set(
  'today yesterday tomorrow tonight weekend morning afternoon evening night week weeks month months year years ago last next since monday tuesday wednesday thursday friday saturday sunday january february march april may june july august september october november december spring summer autumn fall winter christmas birthday anniversary one two three four five six seven eight nine ten eleven twelve twenty thirty forty fifty hundred thousand first second third once twice'.split(
    ' ',
  ),
);

/** Chinese characters that only glue a sentence together; a character pair with one carries little. */
export const ZH_FUNCTION_CHARS = new Set([
  ...'的了吗呢吧呀啊嗯哦哈是在有和也都就还很那这你我他她它们个么啦嘛哇噢喔与及或而但又被把给让对从向到会能要想去来说得地着过吧呗哟嘿咯',
]);

/** Chinese words of small talk: agreeing, thanking, hedging. */
export const ZH_FILLER = [
  '知道',
  '是的',
  '好的',
  '没错',
  '对的',
  '谢谢',
  '不客气',
  '哈哈',
  '可以',
  '当然',
  '不错',
  '真的',
  '一下',
  '什么',
  '怎么',
  '这样',
  '那样',
  '确实',
  '应该',
  '觉得',
  '听说',
  '非常',
  '特别',
  '一个',
  '一些',
  '东西',
  '时候',
  '原来',
  '这么',
  '那么',
  '好吧',
  '感觉',
];
