import type { Language } from './memory.js';
import { escapeRegExp } from './text.js';

/**
 * The faithfulness check's words (faithfulness.ts; issue 36, docs/design.md §11): a text as the
 * tokens it compares, person words marked, English verbs in the one form their subject's person
 * does not change, and what the speaker's own 我 / "I" may be written as.
 */

export interface Tok {
  key: string;
  start: number;
  end: number;
  /** A person word, checked with the word after it. */
  person: boolean;
  /** Punctuation between this token and the next one: the next is not its word. */
  cut: boolean;
}

export const PERSON_EN = new Set(
  'i me my mine myself we us our ours ourselves you your yours yourself yourselves they them their theirs themselves themself he him his she her hers'.split(
    ' ',
  ),
);
const FIRST_EN: Record<string, (name: string) => string> = {
  i: (n) => n,
  me: (n) => n,
  my: (n) => `${n}'s`,
  mine: (n) => `${n}'s`,
  myself: () => 'yourself',
};
const SECOND_EN: Record<string, string> = {
  i: 'you',
  me: 'you',
  my: 'your',
  mine: 'yours',
  myself: 'yourself',
};
export const PERSON_ZH = [
  '我们',
  '我俩',
  '咱们',
  '咱俩',
  '你们',
  '你俩',
  '他们',
  '她们',
  '我',
  '你',
  '您',
  '他',
  '她',
];
/** A 我 that is not the speaker: 我国, 我校 (an institution's "our"), 自我, 忘我 (a word). */
const NOT_SPEAKER_ZH = /^我[国校市省司院厂军方]|[自忘]我$/u;

/** Verb forms that follow their subject's person, one form each ("I am" → "you are" / "Mia is"). */
const AGREE: Record<string, string> = {
  am: 'be',
  are: 'be',
  is: 'be',
  "'m": 'be',
  "'re": 'be',
  "'s": 'be',
  was: 'was',
  were: 'was',
  has: 'have',
  "'ve": 'have',
  does: 'do',
  goes: 'go',
  doesn: 'don',
  isn: 'aren',
  wasn: 'weren',
  hasn: 'haven',
  "'d": 'would',
  "'ll": 'will',
};
export const AUXILIARY = new Set(
  "be am are is have has do does don did didn can could will would should shall may might must was were aren weren haven isn wasn hasn doesn couldn won wouldn shouldn 't".split(
    ' ',
  ),
);
/** Each word's form, computed once: the check compares every word of every turn. */
const agreed = new Map<string, string>();
export function agree(word: string): string {
  let key = agreed.get(word);
  if (key === undefined) {
    key = AGREE[word] ?? stem(word);
    if (agreed.size > 50_000) agreed.clear();
    agreed.set(word, key);
  }
  return key;
}
const stem = (word: string) =>
  word.length > 3
    ? word
        .replace(/ies$/, 'y')
        .replace(/(?<=sh|ch|x|z|ss)es$/, '')
        // "visualize" and "visualizes" (as "fix" and "fixes") are one word: the -e goes too.
        .replace(/(?<=sh|ch|x|z|ss)e$/, '')
        .replace(/(?<!s)s$/, '')
    : word;

/** Each set of names' pattern, built once: a stage is checked segment by segment, turn by turn. */
const patterns = new Map<string, { pattern: RegExp; nameSet: Set<string> }>();

function patternOf(language: Language, names: string[]): { pattern: RegExp; nameSet: Set<string> } {
  const key = `${language}\u0000${names.join('\u0000')}`;
  let made = patterns.get(key);
  if (!made) {
    const byLength = [...names].sort((a, b) => b.length - a.length).map(escapeRegExp);
    // A whole word only: "hopes" is no "Hope" and an "s".
    const named = byLength.length ? `(?:${byLength.join('|')})(?![A-Za-z])|` : '';
    const pattern =
      language === 'zh'
        ? // Case-blind as in English: a Latin name glued to a number ("Deborah3小时") is the name, then 3.
          new RegExp(`《[^》]*》|“[^”]*”|${named}${PERSON_ZH.join('|')}|[A-Za-z0-9]+|\\p{Script=Han}`, 'giu')
        : // Chinese words in an English memory too (a turn in the other language), one character each.
          new RegExp(`(?:${named}[A-Za-z0-9]+)(?:['’][A-Za-z]*)?|\\p{Script=Han}`, 'giu');
    made = { pattern, nameSet: new Set(names.map((n) => n.toLowerCase())) };
    if (patterns.size > 1000) patterns.clear();
    patterns.set(key, made);
  }
  return made;
}

const PUNCTUATION = new Set(',.;:!?，。；：！？、…—');
/** Whether punctuation stands between two tokens (read in place: this runs for every token of every turn). */
function punctuated(text: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) if (PUNCTUATION.has(text[i]!)) return true;
  return false;
}

/**
 * Whether `word` is written as one of `names` is: a name written capitalised ("Will", "Hope") names
 * its person only so, not the word it also is ("I will", "I hope").
 */
export function asWritten(word: string, names: string[]): boolean {
  const key = word.toLowerCase().replace(/['’]s?$/u, '');
  const name = names.find((n) => n.toLowerCase() === key);
  return name === undefined || !/^\p{Lu}/u.test(name) || /^\p{Lu}/u.test(word);
}

export function tokens(text: string, language: Language, names: string[]): Tok[] {
  const { pattern, nameSet } = patternOf(language, names);
  const out: Tok[] = [];
  for (const m of text.matchAll(pattern)) {
    // "James'" is the name's possessive as "Mia's" is; a bare apostrophe after another word goes.
    const word = m[0].toLowerCase().replace(/’/g, "'");
    const named = (key: string) => nameSet.has(key) && asWritten(m[0], names);
    const raw = word.endsWith("'") ? (nameSet.has(word.slice(0, -1)) ? `${word}s` : word.slice(0, -1)) : word;
    const cut = raw.indexOf("'");
    // A name is one word ("O'Neil's" too); another word splits at its apostrophe ("I'm": "i", "'m").
    const whole = nameSet.has(raw) || nameSet.has(raw.replace(/'s$/, ''));
    const parts =
      language === 'en' && cut > 0 && !whole && !(nameSet.has(raw.slice(0, cut)) && raw.endsWith("'s"))
        ? [raw.slice(0, cut), raw.slice(cut)]
        : [raw];
    for (const [i, key] of parts.entries()) {
      const person =
        language === 'zh'
          ? PERSON_ZH.includes(key) || named(key)
          : PERSON_EN.has(key) || named(key) || named(key.replace(/'s$/, ''));
      out.push({ key, start: m.index, end: m.index + m[0].length, person, cut: i === parts.length - 1 });
    }
  }
  for (const [i, t] of out.entries()) {
    const next = out[i + 1];
    // Punctuation before the next token ends the person word's clause ("thank you, Mia").
    t.cut = t.cut && (!next || punctuated(text, t.end, next.start));
    // A verb follows its new subject ("I really enjoy" → "Jason really enjoys"): English words are
    // compared without their -s, and be / have / do in one form.
    if (language === 'en' && !t.person) t.key = agree(t.key);
  }
  return out;
}

/** What a source token may be written as: the speaker's own "I" as the speaker. */
export function alternatives(t: Tok, language: Language, own: string[] | undefined, turn: string): string[] {
  // "I'd fixed it" is "Dave had fixed it": the speaker's "'d" before a participle is "had" (offline english.ts).
  if (t.key === 'would' && turn.slice(t.start, t.end).endsWith("'d")) return ['would', 'had'];
  if (!own || !t.person) return [t.key];
  if (language === 'zh')
    return t.key === '我' && !NOT_SPEAKER_ZH.test(turn.slice(t.start - 1, t.end + 1))
      ? ['我', '你', ...own]
      : [t.key];
  if (!(t.key in SECOND_EN)) return [t.key];
  return [t.key, SECOND_EN[t.key]!, ...own.map((n) => FIRST_EN[t.key]!(n))];
}

export const OPENING_ADVERBS = new Set(['just', 'finally', 'also', 'recently', 'actually']);
/** Past tenses without -ed: a statement opening on one ("Had an audition…") left its "I" out. */
const IRREGULAR_PAST = new Set(
  'drew went got saw made took came ran met found felt thought bought brought told left kept gave knew wrote won lost began became heard held spent taught caught drove ate drank slept paid sent grew flew forgot chose broke spoke woke wore swam sang rode fed built had did'.split(
    ' ',
  ),
);

/**
 * The speaker's own subject, left out before a past tense opening a statement ("Had an audition
 * yesterday"): the stage may write it ("Joanna had an audition…", "You had…"), as it would "I had".
 */
export function elidedSubject(toks: Tok[], i: number, language: Language, text: string): boolean {
  if (language !== 'en') return false;
  const t = toks[i]!;
  if (t.person) return false;
  // An adverb may open the statement before it ("Also picked up new skills").
  let at = i;
  while (at > 0 && OPENING_ADVERBS.has(toks[at - 1]!.key)) at--;
  // A statement starts the turn, or after punctuation or a dash ("I was busy too - went to…").
  if (at > 0 && !/[.!?,;:—–]|\s-\s/.test(text.slice(toks[at - 1]!.end, toks[at]!.start))) return false;
  // Four letters are enough ("Dyed my hair last week"); "bed", "red" are no past tense.
  return IRREGULAR_PAST.has(t.key) || (t.key.length > 3 && t.key.endsWith('ed') && !t.key.endsWith('eed'));
}
