import type { Language } from '@memfade/core';

/**
 * Small emotion lexicons: enough for an extractive compressor to notice how the user felt. They
 * know loss (a death is grief, not an empty residue), fear, pride that comes with sadness, and
 * negation ("不开心", "not happy" are sadness, "不担心" is no worry).
 */
export type Emotion =
  | 'grief'
  | 'fear'
  | 'anxiety'
  | 'sadness'
  | 'loneliness'
  | 'anger'
  | 'pride'
  | 'joy'
  | 'gratitude';

/** Emotions that feel good: a residue mixing one of them with a painful one is told as both. */
export const POSITIVE: ReadonlySet<Emotion> = new Set(['pride', 'joy', 'gratitude']);

/** Chinese words (or patterns) by emotion. */
const ZH_WORDS: Record<Emotion, string[]> = {
  grief: [
    '去世',
    '过世',
    '离世',
    '病逝',
    '葬礼',
    '安乐死',
    '(?<![累笑热饿忙气烦困吓])死了',
    '永远离开',
    '离开了我们',
    '失去了',
    // "奶奶走了" is a death; "可以带着猫走了", "我先走了" is leaving.
    '(?<!(?:带着|带上|跟着|一起|可以|要|该|得|先|就要)[^，。！]{0,6})走了(?=[，。！…]|$)',
  ],
  fear: ['害怕', '恐惧', '可怕', '吓死', '吓到', '吓坏', '好怕', '很怕', '怕黑', '不敢'],
  anxiety: ['担心', '紧张', '焦虑', '压力', '不安', '烦恼', '发愁', '忐忑', '着急', '慌', '考不好', '怎么办'],
  sadness: [
    '难过',
    '伤心',
    '失望',
    '哭',
    '遗憾',
    '沮丧',
    '心疼',
    '郁闷',
    '低落',
    '委屈',
    '失落',
    '压抑',
    '心情不好',
    '想念',
    '舍不得',
  ],
  loneliness: ['孤独', '寂寞', '孤单', '没人陪'],
  anger: ['生气', '愤怒', '讨厌', '烦躁', '气死', '恼火', '火大'],
  pride: ['自豪', '骄傲'],
  joy: [
    '开心',
    '高兴',
    '快乐',
    '幸福',
    '兴奋',
    '期待',
    '满意',
    '感动',
    '享受',
    '治愈',
    '哈哈',
    '太好了',
    '喜欢',
    '有趣',
  ],
  // Thanks are courtesy; gratitude is what is felt (感激, grateful).
  gratitude: ['感激', '感恩'],
};

/** English word stems by emotion (matched at a word start). */
const EN_WORDS: Record<Emotion, string[]> = {
  grief: [
    'died',
    'dies',
    'passed away',
    'passed on',
    'death',
    'funeral',
    'grief',
    'grieving',
    'mourning',
    'put (?:her|him|them|it) down',
    'lost (?:my|our|her|his)',
  ],
  fear: ['afraid', 'scared', 'scares', 'scary', 'terrified', 'frightened', 'fear'],
  anxiety: ['nervous', 'anxious', 'worried', 'worry', 'worrying', 'stress', 'overwhelmed', 'panic'],
  sadness: [
    'sad',
    'upset',
    'disappointed',
    'cried',
    'cry',
    'crying',
    'heartbroken',
    'depressed',
    'unhappy',
    'miss',
  ],
  loneliness: ['lonely', 'isolated', 'no one to talk'],
  anger: ['angry', 'annoyed', 'frustrated', 'hate', 'furious'],
  pride: ['proud', 'pride'],
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
    'romantic',
    'delighted',
    'thrilled',
    'laugh',
  ],
  gratitude: ['grateful', 'appreciate', 'thankful'],
};

export const EMOTION_NAMES: Record<Language, Record<Emotion, string>> = {
  zh: {
    grief: '悲痛',
    fear: '恐惧',
    anxiety: '焦虑',
    sadness: '悲伤',
    loneliness: '孤独',
    anger: '愤怒',
    pride: '自豪',
    joy: '喜悦',
    gratitude: '感激',
  },
  en: {
    grief: 'grief',
    fear: 'fear',
    anxiety: 'anxiety',
    sadness: 'sadness',
    loneliness: 'loneliness',
    anger: 'anger',
    pride: 'pride',
    joy: 'joy',
    gratitude: 'gratitude',
  },
};

const ZH_NEGATION = /(?:不|没|没有|别|不太|不怎么|一点也不|并不)$/;
const EN_NEGATION = /(?:\b(?:not|never|no|hardly)|n't)\s+(?:\w+\s+)?$/i;

const PATTERNS = {
  zh: (Object.entries(ZH_WORDS) as [Emotion, string[]][]).map(([emotion, words]) => ({
    emotion,
    pattern: new RegExp(words.join('|'), 'gu'),
  })),
  en: (Object.entries(EN_WORDS) as [Emotion, string[]][]).map(([emotion, words]) => ({
    emotion,
    pattern: new RegExp(`\\b(?:${words.join('|')})`, 'gi'),
  })),
};

/** Any emotion word at all: most sentences have none, and one test says so. */
const ANY = {
  zh: new RegExp(Object.values(ZH_WORDS).flat().join('|'), 'u'),
  en: new RegExp(`\\b(?:${Object.values(EN_WORDS).flat().join('|')})`, 'i'),
};

/**
 * A Chinese question asked both ways, not a negation: "有没有喜欢的", "喜不喜欢", "开不开心" (the
 * word, or its first character, before 不 / 没).
 */
function askedEitherWay(before: string, word: string): boolean {
  return /有没有?$/u.test(before) || before.endsWith(`${word[0]}不`) || before.endsWith(`${word[0]}没`);
}

/**
 * The emotions a sentence expresses, by lexicon. A negated feeling does not count, except that
 * a negated joy ("不开心", "not happy") is sadness.
 */
export function emotionsIn(text: string, language: Language): Emotion[] {
  if (!ANY[language].test(text)) return [];
  const found = new Set<Emotion>();
  const negation = language === 'zh' ? ZH_NEGATION : EN_NEGATION;
  for (const { emotion, pattern } of PATTERNS[language]) {
    for (const m of text.matchAll(pattern)) {
      const before = text.slice(Math.max(0, m.index - 12), m.index);
      const negated = negation.test(before) && !(language === 'zh' && askedEitherWay(before, m[0]));
      if (!negated) found.add(emotion);
      else if (emotion === 'joy') found.add('sadness');
    }
  }
  return [...found];
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
  "wow hey hi hello thanks thank yeah yes yep yup oh ah aw aww awww haha hahaha lol omg cool nice sure okay ok totally really definitely absolutely sounds sound seems glad gosh congrats congratulations bye welcome hmm um uh well anyway great awesome good agree true right exactly much lot lots thing things something anything stuff kind sort pretty know think guess mean get got getting go going gonna let let's keep hope hear heard tell talk talking see seeing say said sounds like really always never ever even still also way lovely amazing wonderful fantastic incredible honestly seriously literally wait can't cant fun safe posted care luck soon catch appreciate miss ya".split(
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

/** English verbs, of the kinds a statement cannot do without (a short clause without one is a fragment). */
const EN_VERBS = new Set(
  'am is are was were be been being have has had do does did can could will would shall should may might must go get got make made know think want love like need feel see say said come take took give gave went let keep tell told find found try look put run ran buy bought bring brought leave left meet met pay paid read write wrote sing sang eat ate win won lose lost hope wish plan start stop help call ask play work live move stay visit watch cook walk sleep sit stand open close begin began'.split(
    ' ',
  ),
);

/**
 * Whether an English text has a verb: a known one, a contraction ("it's", "don't"), or -ed / -ing /
 * -s. A capitalised word inside the text, or opening a run of them, is a name ("Paws & Claws on
 * Fifth Avenue", "Mrs Jennings"), whatever its ending.
 */
export function hasVerb(text: string): boolean {
  const words = [...text.matchAll(/[A-Za-z]+(?:['’][a-z]+)?/g)].map((m) => m[0]);
  for (const [i, token] of words.entries()) {
    const word = token.toLowerCase().replace(/’/g, "'");
    if (EN_VERBS.has(word) || word.includes("'")) return true;
    if (/^[A-Z]/.test(token) && (i > 0 || /^[A-Z]/.test(words[1] ?? ''))) continue;
    if (word.length > 4 && /(?:ed|ing)$/.test(word)) return true;
    if (word.length > 3 && word.endsWith('s') && !word.endsWith('ss')) return true;
  }
  return false;
}
