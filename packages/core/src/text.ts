import { createHash } from 'node:crypto';
import type { Language } from './memory.js';

/** `text` as a regular expression that matches it literally (a name may hold "." or "+"). */
export const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * A text as a reader sees it: composed (NFC: an "é" typed as e and an accent is "é") and without
 * invisible format characters (zero-width spaces and joiners, a byte-order mark, direction marks),
 * which split a word in two for a program ("wo\u200brry"). What the offline compressor reads and what
 * its stages are checked against (faithfulness.ts) are both this, so they agree; the stored text is
 * never changed.
 */
export const visibleText = (text: string) => text.normalize('NFC').replace(/\p{Cf}/gu, '');

/**
 * Length in Unicode code points: a Chinese character counts as one, as a reader would count it.
 * Counted on UTF-16 units (a surrogate pair is one code point), as `for (const _ of text)` would,
 * without making a string per character: it runs several times per memory in a night.
 */
export function measureLength(text: string): number {
  // Most texts hold no surrogate at all: a native scan says so faster than a walk in JavaScript.
  if (!SURROGATE.test(text)) return text.length;
  let n = text.length;
  for (let i = 1; i < text.length; i++) if (isLowSurrogate(text, i) && isHighSurrogate(text, i - 1)) n--;
  return n;
}

const SURROGATE = /[\uD800-\uDFFF]/;
const isHighSurrogate = (text: string, i: number) => (text.charCodeAt(i) & 0xfc00) === 0xd800;
const isLowSurrogate = (text: string, i: number) => (text.charCodeAt(i) & 0xfc00) === 0xdc00;

const HAN = /\p{Script=Han}/u;
/** Below it no code point is Han (U+2E80, the first CJK radical). */
const FIRST_HAN = 0x2e80;
let hanInBmp: Uint8Array | undefined;

/** Whether a code point is Han, as `\p{Script=Han}` says: the BMP from a table made once from it. */
export function isHan(codePoint: number): boolean {
  if (codePoint < FIRST_HAN) return false;
  if (codePoint > 0xffff) return HAN.test(String.fromCodePoint(codePoint));
  if (!hanInBmp) {
    hanInBmp = new Uint8Array(0x10000);
    for (let c = FIRST_HAN; c <= 0xffff; c++) if (HAN.test(String.fromCharCode(c))) hanInBmp[c] = 1;
  }
  return hanInBmp[codePoint] === 1;
}

const isLatinLetter = (code: number) => (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a);

/** Letters of one run counted toward English: the longest words, not a string nobody reads. */
const LONGEST_WORD = 20;

/** Share of Han characters among the letters of a text (0 when it has none). */
export function hanShare(text: string): number {
  let han = 0;
  let latin = 0;
  // A run of letters counts as a word at most: "aaaa…" three thousand times over is no English.
  let run = 0;
  for (let i = 0; i < text.length; i++) {
    const codePoint = text.codePointAt(i)!;
    if (codePoint > 0xffff) i++;
    if (isHan(codePoint)) han++;
    if (!isLatinLetter(codePoint)) run = 0;
    else if (++run <= LONGEST_WORD) latin++;
  }
  // A Han character carries roughly a word; weigh Latin letters so "iPhone" in Chinese text stays Chinese.
  const total = han + latin / 4;
  return total === 0 ? 0 : han / total;
}

/**
 * Whether a text is in both languages: its Han share (hanShare) at least `edge` and at most 1 - `edge`. Who
 * writes what reads this: the memory's language is the product's or its card's only in this band
 * (memory-language.ts), the offline compressor keeps each language's statements in it, and the output gate
 * takes a stage in either language in a wider band, so what a compressor writes near its edge is never refused.
 */
export function inBothLanguages(text: string, edge = MIXED_EDGE): boolean {
  const share = hanShare(text);
  return share >= edge && share <= 1 - edge;
}

/** The Han share under which a text is clearly English, and over 1 minus which clearly Chinese. */
export const MIXED_EDGE = 0.2;

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
  for (let i = 0; i < text.length; i++) {
    const codePoint = text.codePointAt(i)!;
    if (codePoint > 0xffff) i++;
    if (isHan(codePoint)) han++;
    else other++;
  }
  return Math.ceil(han + other / 4);
}

/**
 * A sentence's quote marks in pairs (the offline compressor writes each sentence so: core faithfulness.ts
 * reads a quote from its opening mark to the next closing one, across sentences). A turn's stray straight
 * one ("知道，\"大门门票…15元。") would open a quote the next line's mark closes, every word between read
 * as quoted: the last of an odd number goes. A curly closing mark with none open goes; one left open (its
 * closing mark on the turn's next line) is closed at the sentence's end. No word is touched.
 */
export function pairQuotes(sentence: string): string {
  if (!/["“”]/.test(sentence)) return sentence;
  let text = sentence;
  if ((text.match(/"/g)?.length ?? 0) % 2 === 1) {
    const at = text.lastIndexOf('"');
    text = text.slice(0, at) + text.slice(at + 1);
  }
  let open = 0;
  text = text.replace(/[“”]/gu, (mark) => {
    if (mark === '“') open++;
    else if (open === 0) return '';
    else open--;
    return mark;
  });
  return text + '”'.repeat(open);
}

/**
 * A title quoted inside a quote goes in single quotes (`"'Inception' was great."`), set apart from
 * a word it touched (`says"Let go…"` → `says 'Let go…'`): `says'Let` would read as one word nobody
 * said (faithfulness.ts).
 */
export const insideQuote = (text: string) =>
  text.replace(/(^|[\s\S])"([^"]*)"(?=([\s\S]?))/g, (_, before: string, inner: string, after: string) => {
    const apart = (c: string) => (/[\p{L}\p{N}]/u.test(c) ? ' ' : '');
    return `${before}${apart(before)}'${inner}'${apart(after)}`;
  });
