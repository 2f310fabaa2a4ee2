import { createHash } from 'node:crypto';
import type { Language } from './memory.js';

/** Length in Unicode code points: a Chinese character counts as one, as a reader would count it. */
export function measureLength(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}

const HAN = /\p{Script=Han}/u;
const LATIN_LETTER = /[A-Za-z]/;

/** Share of Han characters among the letters of a text (0 when it has none). */
export function hanShare(text: string): number {
  let han = 0;
  let latin = 0;
  for (const ch of text) {
    if (HAN.test(ch)) han++;
    else if (LATIN_LETTER.test(ch)) latin++;
  }
  // A Han character carries roughly a word; weigh Latin letters so "iPhone" in Chinese text stays Chinese.
  const total = han + latin / 4;
  return total === 0 ? 0 : han / total;
}

/** Chinese when Han characters dominate the text, English otherwise. */
export function detectLanguage(text: string): Language {
  return hanShare(text) >= 0.5 ? 'zh' : 'en';
}

export function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/**
 * A rough token count for estimates before any call is made (`memfade doctor`): about one token
 * per Chinese character and one per four characters of other text, as the providers' tokenizers
 * give on chat text. Real usage is what the providers report.
 */
export function estimateTokens(text: string): number {
  let han = 0;
  let other = 0;
  for (const char of text) {
    if (/\p{Script=Han}/u.test(char)) han++;
    else other++;
  }
  return Math.ceil(han + other / 4);
}
