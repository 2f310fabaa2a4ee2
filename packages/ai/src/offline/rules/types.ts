/**
 * The offline compressor's knowledge of a language, as data (issue 36, deliver 6): each pattern or
 * word list the pipeline uses is a rule with why it is there and examples it must match and must
 * not match; rules.test.ts runs every example of both packs.
 */
export interface Rule {
  /** Why the pipeline has it, in one line. */
  why: string;
  /** Texts it must match (a word list: words it must hold). */
  matches: readonly string[];
  /** Texts it must not match (a word list: words it must not hold). */
  rejects: readonly string[];
}

/** A pattern. `piece`: a part spliced into a larger pattern by its source: an example matches it whole. */
export interface PatternRule extends Rule {
  pattern: RegExp;
  piece?: true;
}

/** A word list: an example is one word (or character), in it or not. */
export interface WordsRule extends Rule {
  words: ReadonlySet<string>;
}

/** How the user felt, as the lexicons know it (lexicon.ts). */
export type Emotion =
  | 'grief'
  | 'fear'
  | 'anxiety'
  | 'sadness'
  | 'loneliness'
  | 'anger'
  | 'pride'
  | 'joy'
  | 'gratitude';

/** A word list written as one string, a space between words. */
export const words = (list: string): ReadonlySet<string> => new Set(list.split(' '));
