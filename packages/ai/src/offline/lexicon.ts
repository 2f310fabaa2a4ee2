import { bothScripts, type Language } from '@memfade/core';
import { cached } from './cache.js';
import { EMOTION_NAMES as EN_NAMES } from './rules/en/emotions.js';
import { RULES } from './rules/index.js';
import type { Emotion } from './rules/types.js';
import { EMOTION_NAMES as ZH_NAMES } from './rules/zh/emotions.js';

export type { Emotion } from './rules/types.js';

// Small emotion lexicons (the packs' words): enough to notice how the user felt (a death is grief).

/** Emotions that feel good (a residue mixing one with a painful one is told as both); painIn: any other. */
export const POSITIVE: ReadonlySet<Emotion> = new Set(['pride', 'joy', 'gratitude']);
export const painIn = (t: string, lang: Language) => emotionsIn(t, lang).some((e) => !POSITIVE.has(e));

/** Each emotion's name, as the memory's residue says it (rules/zh, rules/en). */
export const EMOTION_NAMES: Record<Language, Record<Emotion, string>> = { zh: ZH_NAMES, en: EN_NAMES };

/** Each emotion's words (rules/zh, rules/en), every match of them. */
const patternsOf = (language: Language) =>
  Object.entries(RULES[language].emotions).map(([emotion, rule]) => ({
    emotion: emotion as Emotion,
    // Chinese in traditional characters too ("難過" is "难过"); English's are as they are.
    pattern: bothScripts(rule.pattern, `g${rule.pattern.flags}`),
  }));
const PATTERNS = { zh: patternsOf('zh'), en: patternsOf('en') };

/** Any emotion word at all: most sentences have none, and one test says so. */
const ANY = {
  zh: new RegExp(PATTERNS.zh.map((p) => p.pattern.source).join('|'), 'u'),
  en: new RegExp(PATTERNS.en.map((p) => p.pattern.source).join('|'), 'i'),
};

const ASKED_EITHER_WAY = bothScripts(RULES.zh.askedEitherWay.pattern);

/** Asked both ways, a feeling asked of, not felt: "有没有喜欢的", "喜不喜欢", "开不开心" (the word or its first before 不). */
const askedEitherWay = (before: string, word: string) =>
  ASKED_EITHER_WAY.test(before) || (/[不没沒]$/u.test(before) && before.at(-2) === word[0]);

/** A sentence's emotions, by lexicon: a negated feeling is none, a negated joy ("不开心") sadness; a plot's none. */
export function emotionsIn(text: string, language: Language): readonly Emotion[] {
  if (!ANY[language].test(text) || RULES[language].plot.pattern.test(text)) return [];
  // A statement is read for its feelings many times (scoring, questions, the residue): once each.
  return cached(FOUND[language], text, () => lexiconEmotions(untitled(text), language), 5_000);
}
const FOUND = { zh: new Map<string, readonly Emotion[]>(), en: new Map<string, readonly Emotion[]>() };
/** A text without its titles' words: a title is no feeling ("《伤心太平洋》"), its 我 nobody's ("《我不是药神》"). */
export const untitled = (text: string) => text.replace(/《[^》]*》/gu, '《》');
const NEGATION = { zh: bothScripts(RULES.zh.negation.pattern), en: RULES.en.negation.pattern };

function lexiconEmotions(text: string, language: Language): Emotion[] {
  const found = new Set<Emotion>();
  const negation = NEGATION[language];
  for (const { emotion, pattern } of PATTERNS[language])
    for (const m of text.matchAll(pattern)) {
      const before = text.slice(Math.max(0, m.index - 12), m.index);
      if (language === 'zh' && askedEitherWay(before, m[0])) continue;
      if (!negation.test(before)) found.add(emotion);
      else if (emotion === 'joy') found.add('sadness');
    }
  return [...found];
}

/**
 * Whether an English text has a verb: a known one (rules/en verbs), a contraction ("it's"), -ed / -ing / -s;
 * a capital inside the text, or opening a run of capitals, is a name ("Paws & Claws", "Mrs Jennings").
 */
export function hasVerb(text: string): boolean {
  const words = [...text.matchAll(/[A-Za-z]+(?:['’][a-z]+)?/g)].map((m) => m[0]);
  for (const [i, token] of words.entries()) {
    const word = token.toLowerCase().replace(/’/g, "'");
    if (RULES.en.verbs.words.has(word) || word.includes("'")) return true;
    if (/^[A-Z]/.test(token) && (i > 0 || /^[A-Z]/.test(words[1] ?? ''))) continue;
    if (word.length > 4 && /(?:ed|ing)$/.test(word)) return true;
    if (word.length > 3 && word.endsWith('s') && !word.endsWith('ss')) return true;
  }
  return false;
}
