import { unnamedPronouns } from './antecedents.js';
import { isFragment } from './fragments.js';
import { piecesOf } from './labels.js';
import { keysOf, type Reading, rawSentence, unlabelled } from './reading.js';
import { clip, type Finding, type MeasureStage } from './types.js';

/**
 * Openings that point back to something said before: a pronoun, a conjunction, a verb without its
 * subject. The "it" of time and weather ("It's been ages", "It's raining") points at nothing.
 */
const OPENER_EN =
  /^(?!it(?:'s| is| has) been\b|it(?:'s| is) (?:raining|snowing|sunny|cold|hot|late|early)\b)(?:it|it's|its|this|that|that's|these|those|they|they're|them|their|he|he's|she|she's|him|her|his|but|and|so|because|also|then|which|or|plus|too|although|though)\b/i;
const OPENER_ZH =
  /^(?:它|他|她|这|那|但|而且|而|所以|因为|不过|然后|并且|可是|还有|也|就|是|其中|此外|另外|或者)/u;

/** What is left of a bare number or date once its digits, units and date words are gone: nothing. */
const NUMBER_PARTS_EN =
  /\d|\b(?:am|pm|st|nd|rd|th|k|km|kg|euros?|dollars?|years?|hours?|minutes?|days?|weeks?|months?|january|february|march|april|may|june|july|august|september|october|november|december)\b|[\p{P}\p{S}\s]/giu;
const NUMBER_PARTS_ZH = /[\d年月日号点时分秒元块角岁个次层楼米天周小钟公里万千百亿至到约左右\p{P}\p{S}\s]/gu;

function bare(sentence: string): boolean {
  if (!/\d/.test(sentence)) return false;
  const parts = /\p{Script=Han}/u.test(sentence) ? NUMBER_PARTS_ZH : NUMBER_PARTS_EN;
  return sentence.replace(parts, '') === '';
}

/** Of the words of the sentence a fragment followed, the share the stage's sentence before it must say. */
const FOLLOWS_SHARE = 0.6;

/**
 * Whether a fragment comes, in the stage, right after the sentence it came after in its turn ("…
 * my first half marathon this morning! 2 hours and 14 minutes."): it leans on that one, as an
 * opener may. The sentence before is found by its words, since a stage says it as "you ran your…".
 */
function followsItsSentence(reading: Reading, texts: string[], i: number): boolean {
  const at = i === 0 ? undefined : rawSentence(reading, texts[i]!);
  const said = at ? reading.raw[at - 1]! : undefined;
  if (!said || said.turn !== reading.raw[at!]!.turn) return false;
  const words = keysOf(said.text);
  const before = keysOf(texts[i - 1]!);
  const shared = [...words].filter((w) => before.has(w)).length;
  return words.size > 0 && shared >= words.size * FOLLOWS_SHARE;
}

/**
 * Orphan fragments: a sentence that opens with a pronoun or a conjunction, a bare number or date
 * ("177.", "40元。") or an English noun-phrase fragment (fragments.ts), while the sentence it
 * leant on is not before it (it opens the text or a list item, or the sentence before it in the
 * stage is not the one before it in the conversation); or a he or she whose person the stage
 * never names (antecedents.ts).
 */
export function orphans(reading: Reading, stage: MeasureStage): Finding | undefined {
  const pieces = piecesOf(reading, stage);
  if (pieces.length === 0) return undefined;
  const found: string[] = [];
  for (const piece of pieces) {
    const texts = reading.split(piece).map((sentence) => unlabelled(reading, sentence));
    texts.forEach((text, i) => {
      if (bare(text) || (!/\p{Script=Han}/u.test(text) && isFragment(text))) {
        if (!followsItsSentence(reading, texts, i)) found.push(text);
        return;
      }
      if (!(/\p{Script=Han}/u.test(text) ? OPENER_ZH : OPENER_EN).test(text)) return;
      // Where the two sentences were in the conversation, looked up only for an opener (it is slow).
      const at = i === 0 ? undefined : rawSentence(reading, text);
      const before = at === undefined ? undefined : rawSentence(reading, texts[i - 1]!);
      const leansOnNothing = i === 0 || (at !== undefined && before !== undefined && at - before !== 1);
      if (leansOnNothing) found.push(text);
    });
    for (const text of unnamedPronouns(reading, texts)) if (!found.includes(text)) found.push(text);
  }
  return {
    measure: 'orphans',
    stage,
    ok: found.length === 0,
    ...(found.length && {
      severity: found.length,
      quote: found
        .slice(0, 3)
        .map((s) => clip(s, 60))
        .join(' | '),
      note: `${found.length} orphan sentence${found.length === 1 ? '' : 's'}`,
    }),
  };
}
