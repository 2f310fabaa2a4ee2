import { visibleText } from '@memfade/core';
import { RULES } from './rules/index.js';

/**
 * A chat line's text made ready for segment.ts: what a chat app puts for what is not text, emoticons and
 * control characters left out, English typed in lower case given a sentence's case. No word changes.
 */

const { zh, en } = RULES;

/** Placeholders a chat app puts for what is not text: stickers, emoji, images without a caption. */
const PLACEHOLDER_WORD = `(?:${en.placeholder.pattern.source}|${zh.placeholder.pattern.source})`;
const PLACEHOLDER = new RegExp(`\\[${PLACEHOLDER_WORD}(?:[:：][^\\]]*)?\\]`, 'giu');

/** Emoticons typed as marks ("<3", ":)", ";-P"): a "<3." kept alone read as a number, 3. */
const EMOTICON = /(?<![\p{L}\p{N}<])(?:<3+|[:;=][-']?[)(DPp\][/\\|*]+)(?![\p{L}\p{N}])/gu;

/** A model's markdown ("**Oh no!**", "## Tips"): marks, not words ("**Oh no, Mia!" was no interjection). */
const MARKDOWN = /\*\*|~~|(?<=^|[:：]\s*)(?:#{1,6}|>)\s+/gu;

/** Without placeholders, emoticons, markdown and control characters (a NUL, a bell: no one's words). */
export function withoutPlaceholders(text: string): string {
  return visibleText(text)
    .replace(PLACEHOLDER, ' ')
    .replace(EMOTICON, ' ')
    .replace(/(?![\n\t\r])\p{Cc}/gu, ' ')
    .replace(MARKDOWN, '')
    .replace(/[^\S\n]+(?=[。！？，、；：…,.!?;:])|(?<=\p{Script=Han})[^\S\n]+(?=\p{Script=Han})/gu, '')
    .replace(/[^\S\n]{2,}/g, ' ')
    .trim();
}

/**
 * English typed in lower case ("i work nights as a nurse . she is sick .") as sentences are written: its "i" is "I"
 * (the speaker's own, which the memory's voice rewrites: left as "i" it read as the companion's), each sentence's first
 * letter a capital (so it is read as a sentence). Case only: the words stay as typed.
 */
export function typedCase(sentence: string): string {
  if (/\p{Script=Han}/u.test(sentence) || !/[a-z]/.test(sentence)) return sentence;
  return sentence
    .replace(en.lowerI.pattern, 'I')
    .replace(/(^|[.!?]\s+)([("'“‘]?)([a-z])/gu, (all, before, open, c, at: number, text: string) =>
      // Not after an abbreviation's full stop ("i.e. from", "Dr. lee" stays as typed).
      en.abbreviation.pattern.test(text.slice(0, at + 1)) ? all : before + open + c.toUpperCase(),
    );
}
