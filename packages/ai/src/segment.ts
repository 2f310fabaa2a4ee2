/** A sentence of a conversation, with the speaker of the line it came from (if any). */
export interface Sentence {
  text: string;
  speaker?: string;
  /** The section label of the line (【关键点】, [Key points]...) when it came from one. */
  section?: string;
  /** Position in the input, to restore the original order after selection. */
  index: number;
}

// Sentence ends: Chinese terminators (with any closing quote or bracket after them), an ellipsis,
// and a Latin . ! ? followed by white space. Abbreviations and decimals are re-joined below.
const CJK_END = /([。！？；…]+[”’」』）)]*)/u;
const LATIN_END = /(?<=[.!?]["')\]]?)\s+(?=[A-Z0-9"'([\p{Script=Han}])/u;
const ABBREVIATIONS = /(?:^|\s)(?:mr|mrs|ms|dr|prof|st|vs|etc|e\.g|i\.e|no)\.$/i;
const SPEAKER = /^\s*([\p{L}\p{N}_ -]{1,20})[:：]\s*/u;
const SECTION = /^\s*(【[^】]{1,12}】|\[[A-Za-z ]{1,24}\])\s*/u;

/** Splits text into trimmed, non-empty sentences, understanding Chinese and English punctuation. */
export function splitSentences(text: string): string[] {
  const out: string[] = [];
  for (const line of text.split(/\r?\n/)) {
    for (const part of splitCjk(line)) {
      for (const sentence of splitLatin(part)) {
        const trimmed = sentence.trim();
        if (trimmed) out.push(trimmed);
      }
    }
  }
  return out;
}

function splitCjk(line: string): string[] {
  const pieces = line.split(CJK_END);
  const out: string[] = [];
  // split() with a capture group alternates text and terminator: glue each terminator back on.
  for (let i = 0; i < pieces.length; i += 2) out.push((pieces[i] ?? '') + (pieces[i + 1] ?? ''));
  return out;
}

function splitLatin(text: string): string[] {
  const out: string[] = [];
  for (const piece of text.split(LATIN_END)) {
    const previous = out[out.length - 1];
    if (previous !== undefined && ABBREVIATIONS.test(previous)) out[out.length - 1] = `${previous} ${piece}`;
    else out.push(piece);
  }
  return out;
}

/**
 * Sentences of a formatted conversation (`user: ...` / `assistant: ...` lines, 【摘要】-style
 * sections), each tagged with its speaker so an extract can stay readable.
 */
export function conversationSentences(text: string): Sentence[] {
  const sentences: Sentence[] = [];
  for (const rawLine of text.split(/\r?\n/)) {
    let line = rawLine;
    let speaker: string | undefined;
    const section = line.match(SECTION);
    if (section) line = line.slice(section[0].length);
    const label = section?.[1];
    const who = line.match(SPEAKER);
    if (who && !section) {
      speaker = who[1]!.trim();
      line = line.slice(who[0].length);
    }
    // List sections join their items with semicolons: each item is a sentence of its own.
    const parts = label ? line.split(/[；;]\s*/) : [line];
    for (const part of parts) {
      for (const s of splitSentences(part))
        sentences.push({ text: s, speaker, section: label, index: sentences.length });
    }
  }
  return sentences;
}
