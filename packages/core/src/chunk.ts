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

/** Lines (newline kept), lines too long cut at sentence ends, sentences too long cut by length. */
function* pieces(text: string, maxChars: number): Generator<string> {
  for (const line of text.split(/(?<=\n)/)) {
    if (measureLength(line) <= maxChars) {
      yield line;
      continue;
    }
    for (const sentence of line.split(SENTENCE_END)) {
      const chars = [...sentence];
      for (let i = 0; i < chars.length; i += maxChars) yield chars.slice(i, i + maxChars).join('');
    }
  }
}
