import { escapeRegExp } from '@memfade/core';
import { AGREEMENT_ROWS, CONTRACTIONS, FIRST_FORMS, YOU } from './rules/en/grammar.js';
import { RULES } from './rules/index.js';

/**
 * The speaker's own first person rewritten for the memory's voice (voice.ts: other pronouns stay): the user's
 * "I'm nervous about my interview" is "You're nervous about your interview", a named speaker's "I think"
 * "Caroline thinks", the companion's "I" stays. Verbs follow their subject; past tenses and modals stay.
 */

/** How a speaker is written: 1st person (我 / I), 2nd (你 / you) or 3rd (a name); voice.ts decides it. */
export type Referent = { person: 1 | 2 | 3; name: string };

type Form = keyof typeof YOU;

/** The speaker's own `form` of "I" as the memory writes it: "you" for the user, a named speaker by name. */
function formOf(ref: Referent, form: Form): string {
  if (ref.person === 2) return YOU[form];
  if (form === 'reflexive') return 'myself';
  if (form !== 'possessive' && form !== 'possessivePronoun') return ref.name;
  return ref.name.endsWith('s') ? `${ref.name}'` : `${ref.name}'s`;
}

/** Each verb form that follows the person of its subject, with its row (rules/en grammar.ts). */
const AGREEMENT: Record<string, readonly [string, string, string]> = {};
for (const forms of AGREEMENT_ROWS) for (const form of forms) AGREEMENT[form] = forms;

const { modals, adverbs, irregularPast, presentInEd, notVerbs, selfIntro, ownFirstPerson } = RULES.en; // rules/en

/** A word, where it ends, and the text between the previous token and it (`gap`). */
type Token = { text: string; end: number; gap: string };

// A word of Latin letters with their marks ("woŕry", "café") is one word: split at its mark, "wo" read as a verb.
const EN_WORD = /[\p{Script=Latin}\p{M}]+(?:['’][\p{Script=Latin}\p{M}]+)*/gu;

function tokens(text: string): Token[] {
  const out: Token[] = [];
  let last = 0;
  for (const m of text.matchAll(EN_WORD)) {
    out.push({ text: m[0], end: m.index + m[0].length, gap: text.slice(last, m.index) });
    last = m.index + m[0].length;
  }
  return out;
}

/** `word` written with the capital `model` has. */
const sameCase = (model: string, word: string) =>
  /^[A-Z]/.test(model) ? word.charAt(0).toUpperCase() + word.slice(1) : word;
const lower = (w: string) => w.toLowerCase().replace(/’/g, "'");
const clauseStart = (t: Token, i: number) => i === 0 || /[,.;:!?—–"“()]\s*$/.test(t.gap);
const sentenceStart = (t: Token, i: number) => i === 0 || /[.!?]["”')\]]*\s*$/.test(t.gap);

/** A verb in the present tense conjugated for the 3rd person singular ("think" → "thinks"). */
function thirdPerson(verb: string): string {
  if (/(?:s|sh|ch|x|z|o)$/.test(verb)) return `${verb}es`;
  if (/[^aeiou]y$/.test(verb)) return `${verb.slice(0, -1)}ies`;
  return `${verb}s`;
}

/** The verb after a subject in its new person: "I am" → "you are", "I think" → "Caroline thinks"; past, modal stay. */
function agree(words: string[], from: number, person: 1 | 2 | 3): void {
  let i = from;
  while (i < words.length && adverbs.words.has(lower(words[i]!))) i++;
  const word = words[i];
  if (word === undefined) return;
  const key = lower(word);
  const forms = AGREEMENT[key];
  if (forms) words[i] = forms[person - 1]!;
  if (forms || person !== 3 || [modals, irregularPast, notVerbs].some((list) => list.words.has(key))) return;
  const past = /ed$/.test(word) && !presentInEd.words.has(key);
  if (!/^[a-z]{2,}$/.test(word) || past || /(?:ly|ley|ing)$/.test(word)) return; // "absolutley": no "absolutleys"
  words[i] = thirdPerson(word);
}

/** The speaker's own "I" (me, my, mine, myself) written as `speaker`, as the file's doc says. */
export function rewriteEn(spoken: string, speaker: Referent, named: boolean): string {
  if (speaker.person === 1 || !ownFirstPerson.pattern.test(spoken)) return spoken;
  // "My name is Jack" said by Jack is no fact about anyone else: "Jack's name is Jack" says it twice.
  const intro = `\\b(?:${selfIntro.pattern.source})\\s+${escapeRegExp(speaker.name)}\\b[,.!]?\\s*`;
  const text = speaker.person === 3 ? spoken.replace(new RegExp(intro, 'iu'), '') : spoken;
  // A text that continues a sentence ("named") does not start one: its first word stays lowercase.
  const starts = (t: Token, i: number) => (i === 0 ? !named : sentenceStart(t, i));
  const toks = tokens(text);
  const words = toks.map((t) => t.text);
  for (let i = 0; i < toks.length; i++) {
    const key = lower(toks[i]!.text);
    const cut = key.indexOf("'");
    const [base, contraction] = cut > 0 ? [key.slice(0, cut), key.slice(cut)] : [key, ''];
    const form: Form | undefined =
      base === 'i' && toks[i]!.text.startsWith('I') ? 'subject' : contraction ? undefined : FIRST_FORMS[base];
    // A capital "Me" / "My" inside a sentence is a title's ("the Remember Me song"): as said.
    if (!form || (form !== 'subject' && /^[A-Z]/.test(toks[i]!.text) && !sentenceStart(toks[i]!, i)))
      continue;
    let replacement = formOf(speaker, form);
    if (form === 'subject' && contraction) {
      const participle = /^(?:been|\w+ed)$/.test(lower(toks[i + 1]?.text ?? ''));
      const verb = contraction === "'d" && participle ? 'had' : (CONTRACTIONS[contraction] ?? contraction);
      // "I'm" is "you're" (a contraction, as said) or "Mia is" (a name's "'s" reads as hers).
      replacement =
        speaker.person === 2
          ? `${replacement}${contraction === "'m" ? "'re" : contraction}`
          : `${replacement} ${AGREEMENT[verb]?.[2] ?? verb}`;
    } else if (form === 'subject') {
      // An inverted question agrees before its subject ("do I"), after a modal not at all; never after ")".
      const before = i > 0 ? lower(words[i - 1]!) : '';
      // "Max and I love", "my husband and I are" opening a clause: plural, as said; ", and I was" agrees.
      const next = words.slice(i + 1).find((w) => !adverbs.words.has(lower(w)));
      const opens = (k: number) => k >= 0 && clauseStart(toks[k]!, k);
      const pair = opens(i - 2) || (opens(i - 3) && /^(?:my|our|his|her|your|the)$/i.test(toks[i - 3]!.text));
      const compound = (before === 'and' || before === 'or') && (/^(?:are|were)$/i.test(next ?? '') || pair);
      const inverted = !clauseStart(toks[i]!, i) && (AGREEMENT[before] || modals.words.has(before));
      if (!compound && inverted && AGREEMENT[before])
        words[i - 1] = sameCase(words[i - 1]!, AGREEMENT[before]![speaker.person - 1]!);
      else if (!compound && !inverted) agree(words, i + 1, speaker.person);
    }
    if (starts(toks[i]!, i)) replacement = replacement.charAt(0).toUpperCase() + replacement.slice(1);
    words[i] = replacement;
  }
  return toks.map((t, i) => t.gap + words[i]).join('') + text.slice(toks.at(-1)?.end ?? 0);
}
