import { type Language, measureLength } from '@memfade/core';
import { EN_STOPWORDS, emotionsIn } from './lexicon.js';
import type { Sentence } from './segment.js';

const HAN_RUN = /\p{Script=Han}+/gu;
const LATIN_WORD = /[a-z][a-z'-]{1,}/g;
const DIGIT = /\d/;

/** Content terms of a text: Han character bigrams and Latin words that are not stopwords. */
export function terms(text: string): string[] {
  const out: string[] = [];
  for (const run of text.match(HAN_RUN) ?? []) {
    const chars = [...run];
    if (chars.length === 1) out.push(run);
    for (let i = 0; i + 1 < chars.length; i++) out.push(chars[i]! + chars[i + 1]!);
  }
  for (const word of text.toLowerCase().match(LATIN_WORD) ?? []) if (!EN_STOPWORDS.has(word)) out.push(word);
  return out;
}

export interface Scored extends Sentence {
  score: number;
  length: number;
  emotional: boolean;
}

/**
 * Scores sentences the way an extractive summariser does: how many of the conversation's
 * recurring terms a sentence carries (normalised by its length), plus small bonuses for what
 * people remember: numbers and names of things, feelings, and what the persona cares about.
 */
export function scoreSentences(sentences: Sentence[], language: Language, interests: string[]): Scored[] {
  const bags = sentences.map((s) => new Set(terms(s.text)));
  const frequency = new Map<string, number>();
  for (const bag of bags) for (const term of bag) frequency.set(term, (frequency.get(term) ?? 0) + 1);
  return sentences.map((sentence, i) => {
    const bag = bags[i]!;
    let weight = 0;
    for (const term of bag) weight += frequency.get(term)!;
    const emotional = emotionsIn(sentence.text, language).length > 0;
    let score = bag.size ? weight / Math.sqrt(bag.size) : 0;
    if (DIGIT.test(sentence.text)) score += 0.5;
    if (emotional) score += 0.5;
    if (interests.some((term) => sentence.text.toLowerCase().includes(term))) score += 1;
    if (i === 0) score += 0.3;
    return { ...sentence, score, length: measureLength(sentence.text), emotional };
  });
}

/** Cuts a sentence to at most `max` code points, at a clause boundary when there is one. */
export function shorten(text: string, max: number): string {
  const chars = [...text];
  if (chars.length <= max) return text;
  const head = chars.slice(0, max).join('');
  const cut = Math.max(...['，', '、', '；', ',', ';', ' '].map((p) => head.lastIndexOf(p)));
  return cut > max / 2 ? head.slice(0, cut) : head;
}

/**
 * Picks sentences by score until the rendered extract reaches the middle of the target range,
 * never going over its maximum; returns them in their original order.
 */
export function select(
  scored: Scored[],
  target: { min: number; max: number },
  render: (s: Scored[]) => string,
): Scored[] {
  const goal = Math.round((target.min + target.max) / 2);
  const chosen: Scored[] = [];
  const byScore = [...scored].sort((a, b) => b.score - a.score || a.index - b.index);
  for (const candidate of byScore) {
    const trial = [...chosen, candidate].sort((a, b) => a.index - b.index);
    if (measureLength(render(trial)) > target.max) continue;
    chosen.push(candidate);
    if (measureLength(render(trial)) >= goal) break;
  }
  chosen.sort((a, b) => a.index - b.index);
  if (measureLength(render(chosen)) < target.min) fillWithClause(chosen, byScore, target, render);
  return chosen;
}

/** When no whole sentence fits, the best unused one is cut at a clause boundary to fill the gap. */
function fillWithClause(
  chosen: Scored[],
  byScore: Scored[],
  target: { min: number; max: number },
  render: (s: Scored[]) => string,
) {
  const unused = byScore.find((s) => !chosen.includes(s));
  if (!unused) return;
  const room = target.max - measureLength(render(chosen)) - 8;
  if (room < 10) return;
  const text = shorten(unused.text, room);
  chosen.push({ ...unused, text, length: measureLength(text) });
  chosen.sort((a, b) => a.index - b.index);
}
