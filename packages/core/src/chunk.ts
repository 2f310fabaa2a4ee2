import { measureLength } from './text.js';

const SENTENCE_END = /(?<=[。！？!?；;…]|\.\s)/u;

/**
 * Splits text into pieces of at most maxChars code points, at line boundaries first, then at
 * sentence ends, and only as a last resort mid-sentence. Every character is kept: joining the
 * chunks gives the input back (nothing is ever silently truncated).
 */
export function splitIntoChunks(text: string, maxChars: number): string[] {
  if (measureLength(text) <= maxChars) return [text];
  const chunks: string[] = [];
  let current = '';
  let currentLength = 0;
  const flush = () => {
    if (current) chunks.push(current);
    current = '';
    currentLength = 0;
  };
  for (const piece of pieces(text, maxChars)) {
    const length = measureLength(piece);
    if (currentLength + length > maxChars) flush();
    current += piece;
    currentLength += length;
  }
  flush();
  return chunks;
}

/** Where a sentence too long may be cut: after a space or a clause mark, so no word is cut in two. */
const BREAK = /[\s，,、：:]/u;
/**
 * Better, before a subject ("…flowers and | i went…"): a piece opening on a verb ("saw many flowers") has its
 * speaker written before it ("You saw"), words in an order nobody said.
 */
const SUBJECT = /^(?:i|we|you|he|she|they|我|你|他|她)(?![\p{L}'’])/iu;
/** How far back from a piece's end a cut before a subject is looked for. */
const SUBJECT_WITHIN = 400;

/** Where a piece of `chars` from `start` ends, at most at `end`: before a subject, between words, else at `end`. */
function cutBefore(chars: string[], start: number, end: number): number {
  if (end >= chars.length) return chars.length;
  const between = (cut: number) => BREAK.test(chars[cut - 1]!);
  for (let cut = end; cut > start + 1 && cut > end - SUBJECT_WITHIN; cut--)
    if (between(cut) && SUBJECT.test(chars.slice(cut, cut + 4).join(''))) return cut;
  for (let cut = end; cut > start + 1; cut--) if (between(cut)) return cut;
  return end;
}

/**
 * Lines (newline kept), lines too long cut at sentence ends, sentences too long between words (by length
 * only where no space or mark is left: "…flowers" cut to "fl" + "owers" made a chunk open on a word nobody
 * said, which the faithfulness check refused every night).
 */
function* pieces(text: string, maxChars: number): Generator<string> {
  for (const line of text.split(/(?<=\n)/)) {
    if (measureLength(line) <= maxChars) {
      yield line;
      continue;
    }
    for (const sentence of line.split(SENTENCE_END)) {
      const chars = [...sentence];
      for (let i = 0, end = 0; i < chars.length; i = end) {
        end = cutBefore(chars, i, i + maxChars);
        yield chars.slice(i, end).join('');
      }
    }
  }
}
