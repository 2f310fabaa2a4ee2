import type { Language, V2Fields } from '@memfade/core';
import { EMOTION_NAMES, type Emotion, emotionsIn, POSITIVE } from './lexicon.js';

/**
 * How the memory felt, for the USER (docs/design.md §6: not the companion's reassurance): the emotion most of
 * the user's statements express, or two where one holds a good and a painful one ("Proud but sad"); how many
 * of the user's statements express one; and the statement that carries it.
 */

/** Which emotion wins a tie: the one a companion must not miss. */
const PRIORITY = 'grief fear anxiety sadness loneliness anger pride joy gratitude'.split(' ') as Emotion[];
/** Thanks close many conversations without being what they felt like; a loss among pleasures is what lingers. */
const WEIGHT: Partial<Record<Emotion, number>> = { gratitude: 0.5, grief: 2 };
/** A second emotion is told too when it is at least this share as present as the first. */
const MIXED_SHARE = 0.5;

type Residue = V2Fields['emotionalResidue'];

/** `statements`: the user's, as written; `total`: all the user made (intensity: the share that feels). */
export function residueOf(statements: string[], total: number, language: Language): Residue {
  const felt = statements.map((text) => ({ text, emotions: emotionsIn(text, language) }));
  const score = new Map<Emotion, number>();
  for (const { emotions } of felt)
    for (const e of emotions) score.set(e, (score.get(e) ?? 0) + (WEIGHT[e] ?? 1));
  const ranked = [...score].sort((a, b) => b[1] - a[1] || PRIORITY.indexOf(a[0]) - PRIORITY.indexOf(b[0]));
  if (!ranked[0]) return { dominantEmotion: '', intensity: 0, summary: '' };
  const [first, most] = ranked[0];
  const mixed = (e: Emotion) => POSITIVE.has(e) !== POSITIVE.has(first);
  const together = (e: Emotion) => felt.some((f) => f.emotions.includes(e) && f.emotions.includes(first));
  const pair = ranked.find(([e, n]) => mixed(e) && n >= most * MIXED_SHARE && together(e));
  const emotions = pair
    ? [first, pair[0]].sort((a, b) => Number(POSITIVE.has(b)) - Number(POSITIVE.has(a)))
    : [first];
  const carrier = felt.find((f) => emotions.every((e) => f.emotions.includes(e))); // as `together` found it
  const emotional = felt.filter((f) => f.emotions.length > 0).length;
  return {
    dominantEmotion: emotions.map((e) => EMOTION_NAMES[language][e]).join(language === 'zh' ? '与' : ' and '),
    intensity: Math.min(1, Math.round((emotional / Math.max(total, emotional, 1)) * 100) / 100),
    summary: carrier?.text ?? '',
  };
}
