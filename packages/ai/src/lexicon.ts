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
