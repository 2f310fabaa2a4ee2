import { toSimplified } from '@memfade/core';
import type { Reading } from './reading.js';
import { sourceTurn } from './reading.js';
import { clip, type Finding } from './types.js';

/**
 * The eval's own emotion lexicon, apart from the offline compressor's (packages/ai/src/offline/lexicon.ts):
 * a compressor is not judged by the words it was built on. Six feelings a companion should
 * remember, with loss under sadness and worry under fear. A negated word is not its feeling, and a
 * negated joy is sadness; nothing more of negation is parsed.
 */
export type Feeling = 'joy' | 'sadness' | 'fear' | 'anger' | 'pride' | 'gratitude';

const WORDS: Record<Feeling, { en: string[]; zh: string[] }> = {
  joy: {
    en: [
      'happy',
      'glad',
      'excited',
      'thrilled',
      'joy',
      'fun',
      'enjoy',
      'delighted',
      'wonderful',
      'love it',
      'great time',
      "can't wait",
    ],
    zh: ['开心', '高兴', '快乐', '幸福', '兴奋', '期待', '太好了', '满意', '享受', '哈哈', '喜悦'],
  },
  sadness: {
    en: [
      'sad',
      'unhappy',
      'cry',
      'cried',
      'crying',
      'tears',
      'heartbroken',
      'grief',
      'grieving',
      'miss him',
      'miss her',
      'lonely',
      'died',
      'passed away',
      'funeral',
      'depressed',
      'lost my',
      'devastated',
    ],
    zh: [
      '难过',
      '伤心',
      '悲伤',
      '哭',
      '失落',
      '孤独',
      '寂寞',
      '想念',
      '去世',
      '离开了我',
      '死了',
      '遗憾',
      '沮丧',
      '心疼',
      '失望',
    ],
  },
  fear: {
    en: [
      'scared',
      'afraid',
      'fear',
      'worried',
      'worry',
      'anxious',
      'nervous',
      'panic',
      'stressed',
      'overwhelmed',
      'terrified',
    ],
    zh: ['担心', '害怕', '紧张', '焦虑', '不安', '压力', '恐惧', '慌', '怕', '迷茫', '不知所措'],
  },
  anger: {
    en: ['angry', 'mad at', 'furious', 'annoyed', 'frustrated', 'pissed', 'hate'],
    zh: ['生气', '愤怒', '气死', '烦死', '讨厌', '恼火'],
  },
  pride: { en: ['proud', 'pride', 'accomplished'], zh: ['自豪', '骄傲'] },
  // A bare "thanks" / 谢谢 is politeness, not a feeling to remember.
  gratitude: {
    en: ['grateful', 'thankful', 'appreciate', 'thank you so much', 'thanks so much'],
    zh: ['感谢', '感激'],
  },
};

/** Names a residue may give a feeling, mapped to the lexicon's six. */
const NAMES: Record<Feeling, RegExp> = {
  joy: /joy|happ|delight|excite|content|cheer|love|喜|乐|开心|高兴|兴奋|愉/iu,
  sadness: /sad|grie|sorrow|loss|melanchol|lonel|悲|伤|难过|失落|孤独|遗憾|思念/iu,
  fear: /fear|anx|worr|nervous|stress|scared|焦虑|担心|害怕|紧张|不安/iu,
  anger: /ang|frustrat|annoy|愤|怒|生气/iu,
  pride: /pride|proud|自豪|骄傲/iu,
  gratitude: /gratitud|grateful|thank|感激|感谢/iu,
};

/** Liking something is not a feeling to remember, but it is enough to back a residue of joy. */
const LIKING = { en: /\b(?:love|loved|like|liked|enjoy|enjoyed)\b/i, zh: /喜欢|爱/u };

const FEELINGS = Object.keys(WORDS) as Feeling[];
// Whole words with an ending of their own ("missed", "stressful"): "functions" holds no fun, "crystal" no cry.
const EN_ENDING = '(?:s|es|d|ed|ing|ly|ily|ness|ful|er|est|ter|able)?\\b';
const EN_PATTERNS = FEELINGS.map((f) => ({
  f,
  re: new RegExp(`\\b(?:${WORDS[f].en.join('|')})${EN_ENDING}`, 'i'),
}));

/** A feeling word said negated ("不开心", "一点也不高兴", "not happy") is not that feeling. */
const NEGATED = {
  // Not the 别 of a word: "特别开心" is very happy.
  zh: /(?:不|没|没有|(?<![特区分告类级个差识鉴辨派性离])别|并不|一点也不|一点都不|不再|没那么|不那么|不用|不必|无需|用不着)$/u,
  en: /\b(?:not|never|n't|no longer)\s+(?:\w+\s+)?$/i,
};

/** Whether `text` says `word` un-negated somewhere (every occurrence is looked at). */
function says(text: string, word: RegExp | string, language: 'zh' | 'en'): boolean {
  const re = typeof word === 'string' ? new RegExp(word.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'gu') : word;
  for (const m of text.matchAll(re)) {
    if (!NEGATED[language].test(text.slice(Math.max(0, m.index - 12), m.index))) return true;
  }
  return false;
}

/** A story's plot ("It was about a brave little turtle who was scared…", "讲的是…"): its feelings are its characters'. */
const PLOT =
  /\b(?:it(?:'s|’s| is| was)|the (?:book|movie|film|story|show|novel|screenplay|play|series|song)(?: is| was)?) (?:all |mostly |kind of )?about (?:a|an|the|two|how)\b|讲的是|讲述了|主要讲/iu;
const withoutPlots = (text: string) =>
  PLOT.test(text)
    ? text
        .split(/(?<=[.!?。！？])\s*/u)
        .filter((s) => !PLOT.test(s))
        .join(' ')
    : text;

/** The feelings a text expresses, by lexicon; a negated joy ("不开心", "not happy") is sadness; a plot's none. */
export function feelingsIn(said: string): Feeling[] {
  const zh = /\p{Script=Han}/u.test(said);
  // Its words are simplified; a chat in traditional characters is read in them ("難過" is "难过").
  // A title is no feeling either ("我看了《伤心太平洋》").
  const text = withoutPlots(zh ? toSimplified(said) : said).replace(/《[^》]*》/gu, '《》');
  const found = zh
    ? FEELINGS.filter((f) => WORDS[f].zh.some((w) => says(text, w, 'zh')))
    : EN_PATTERNS.filter((p) => says(text, new RegExp(p.re.source, 'gi'), 'en')).map((p) => p.f);
  const sadJoy = zh
    ? WORDS.joy.zh.some((w) => text.includes(w) && !says(text, w, 'zh'))
    : EN_PATTERNS[0]!.re.test(text) && !says(text, new RegExp(EN_PATTERNS[0]!.re.source, 'gi'), 'en');
  return sadJoy && !found.includes('sadness') ? [...found, 'sadness'] : found;
}

/** The feeling a residue names, or undefined when it names none of the six. */
export function feelingNamed(name: string): Feeling | undefined {
  return FEELINGS.find((f) => NAMES[f].test(name)) ?? feelingsIn(name)[0];
}

/**
 * Emotion source: V2's emotional residue is the user's feeling. It fails when the residue is empty
 * while the user's turns express a feeling worth keeping ("My cat Miso died this morning" and
 * nothing), when it names a feeling the user's turns do not express ("joy" for "Proud but sad";
 * liking something backs joy), or when its summary is a sentence of the companion's turns (the
 * reassurance, not the feeling). Applies when the user's turns express a feeling or a residue is set.
 */
export function emotion(reading: Reading): Finding | undefined {
  const v2 = reading.view.v2;
  if (!v2) return undefined;
  const counts = new Map<Feeling, number>();
  let liking = false;
  reading.turns.forEach((turn, i) => {
    if (!turn.user) return;
    const text = reading.view.turns[i]!.text;
    for (const f of feelingsIn(text)) counts.set(f, (counts.get(f) ?? 0) + 1);
    liking ||= (/\p{Script=Han}/u.test(text) ? LIKING.zh : LIKING.en).test(text);
  });
  const felt = [...counts.keys()];
  const { dominantEmotion, summary } = v2.residue;
  const residue = dominantEmotion.trim();
  if (felt.length === 0 && !residue) return undefined;
  const named = residue ? feelingNamed(residue) : undefined;
  const source = summary ? sourceTurn(reading, summary) : undefined;
  const fromCompanion = source !== undefined && !reading.turns[source]!.user;
  const top = [...counts.entries()].sort((a, b) => b[1] - a[1])[0]?.[0];
  // An empty residue misses a feeling when the user showed one a companion must not forget:
  // sadness, fear, anger, pride, gratitude, or joy said more than once.
  const missed = felt.some((f) => f !== 'joy') || (counts.get('joy') ?? 0) >= 2;
  const backed = named !== undefined && (felt.includes(named) || (named === 'joy' && liking));
  let note: string | undefined;
  if (!residue) note = missed ? `empty residue; the user felt ${top}` : undefined;
  else if (fromCompanion) note = `residue taken from the companion's turn`;
  else if (felt.length === 0 && !backed)
    note = `residue "${residue}" but the user's turns express no feeling`;
  else if (!backed) note = `residue "${residue}"; the user felt ${felt.join(', ')}`;
  return {
    measure: 'emotion',
    stage: 'v2',
    ok: note === undefined,
    ...(note && { quote: clip(summary || residue || '(empty)'), note }),
  };
}
