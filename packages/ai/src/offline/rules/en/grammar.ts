/**
 * The English pack's grammar of the speaker's own "I" (english.ts rewriteEn writes it as the
 * speaker): its forms, the user's "you" in each, the verbs that follow its person, its contractions.
 */

/** The user's "you" in each form of "I". */
export const YOU = {
  subject: 'you',
  object: 'you',
  possessive: 'your',
  possessivePronoun: 'yours',
  reflexive: 'yourself',
};

/** The forms of "I" other than "I" itself (a capital tells it from a typed "i"). */
export const FIRST_FORMS: Record<string, keyof typeof YOU> = {
  me: 'object',
  my: 'possessive',
  mine: 'possessivePronoun',
  myself: 'reflexive',
};

/** Verb forms that follow the person of their subject: 1st, 2nd, 3rd person. */
export const AGREEMENT_ROWS: readonly (readonly [string, string, string])[] = [
  ['am', 'are', 'is'],
  ['was', 'were', 'was'],
  ["wasn't", "weren't", "wasn't"],
  ['have', 'have', 'has'],
  ["haven't", "haven't", "hasn't"],
  ['do', 'do', 'does'],
  ["don't", "don't", "doesn't"],
  ['am not', "aren't", "isn't"],
];

/** "I'm" → subject + "am": the contraction's verb as a word of its own. */
export const CONTRACTIONS: Record<string, string> = {
  "'m": 'am',
  "'re": 'are',
  "'ve": 'have',
  "'ll": 'will',
  "'d": 'would',
};
