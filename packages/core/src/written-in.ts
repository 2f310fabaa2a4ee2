import { BadInputError } from './errors.js';
import type { Memory } from './memory.js';
import { isHan } from './text.js';

/** A memory written in a language memfade does not write fails as bad input, naming it (below). */
export function refuseUnsupportedLanguage(memory: Memory): void {
  const raw = memory.content.raw;
  const language = unsupportedLanguage(
    typeof raw === 'string' ? raw : raw.map((turn) => turn.text).join('\n'),
  );
  if (language)
    throw new BadInputError(
      memory.memoryId,
      'content.raw',
      `written in ${language}: memfade writes memories in Chinese and English only, so it leaves this one as it is`,
    );
}

/**
 * What a conversation is written in, when it is not one of the two languages memfade writes
 * memories in (docs/design.md §4). A Korean, Japanese, Russian or Spanish
 * conversation has no Chinese or English prompt that keeps it as said: a Chinese prompt turns
 * Japanese into Chinese, an English one turns the others into English. So such a memory is refused
 * as it stands, before any model call, and named: `unsupportedLanguage` says which language it is
 * written in, or undefined for Chinese and English (and for text too short or too mixed to tell).
 */
export function unsupportedLanguage(whole: string): string | undefined {
  // Its first pages say which language a conversation is in; a long one is not read to the end.
  // What is quoted is someone else's words ("我今天学了「お疲れ様でした」"): the conversation's own
  // language is what is said around it.
  const text = (whole.length > READ_CHARS ? whole.slice(0, READ_CHARS) : whole).replace(QUOTED, ' ');
  const letters = countLetters(text);
  const cjk = letters.han + letters.kana;
  // Latin letters and other alphabets weigh a quarter: a Han character or syllable carries about a
  // word, as hanShare weighs them, so an English product name in a Chinese chat stays Chinese.
  const groups: [string, number][] = [
    [cjk > 0 && isJapanese(letters) ? 'Japanese' : 'Chinese', cjk],
    ['Korean', letters.hangul],
    ['Latin', letters.latin / 4],
    ...[...letters.other].map(([script, n]): [string, number] => [script, n / 4]),
  ];
  const total = groups.reduce((sum, [, n]) => sum + n, 0);
  const [main, weight] = groups.reduce((best, group) => (group[1] > best[1] ? group : best));
  // Too little to tell, or no language has most of it: left to the Chinese-or-English reading.
  if (weight < MIN_WEIGHT || weight / total < 0.5) return undefined;
  if (main === 'Chinese') return undefined;
  if (main === 'Latin') return latinLanguage(text);
  return main;
}

/** Quoted words: in corner brackets, title marks, curly or straight double quotes. */
const QUOTED = /「[^」]*」|『[^』]*』|《[^》]*》|“[^”]*”|"[^"\n]*"/g;

/** How much of a text is read (about two pages of chat). */
const READ_CHARS = 4_000;

/** About three short sentences: fewer letters than this cannot say which language they are. */
const MIN_WEIGHT = 12;

interface Letters {
  han: number;
  kana: number;
  hangul: number;
  latin: number;
  /** Letters of any other script, by the name of the language or script they are written in. */
  other: Map<string, number>;
}

function countLetters(text: string): Letters {
  const letters: Letters = { han: 0, kana: 0, hangul: 0, latin: 0, other: new Map() };
  for (let i = 0; i < text.length; i++) {
    const c = text.codePointAt(i)!;
    if (c > 0xffff) i++;
    if ((c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a)) letters.latin++;
    else if (c < 0xc0) continue;
    else if (isHan(c)) letters.han++;
    else if ((c >= 0x3040 && c <= 0x30ff && c !== 0x30fb && c !== 0x30fc) || (c >= 0xff66 && c <= 0xff9d))
      letters.kana++;
    else if ((c >= 0xac00 && c <= 0xd7af) || (c >= 0x1100 && c <= 0x11ff) || (c >= 0x3130 && c <= 0x318f))
      letters.hangul++;
    else if (c <= 0x24f && c !== 0xd7 && c !== 0xf7) letters.latin++;
    else {
      const script = SCRIPTS.find(([from, to]) => c >= from && c <= to);
      if (script) letters.other.set(script[2], (letters.other.get(script[2]) ?? 0) + 1);
    }
  }
  return letters;
}

/** Alphabets memfade can name (any other letter, an emoji or a symbol counts for nothing). */
const SCRIPTS: [number, number, string][] = [
  [0x370, 0x3ff, 'Greek'],
  [0x400, 0x52f, 'a Cyrillic-script language'],
  [0x590, 0x5ff, 'Hebrew'],
  [0x600, 0x6ff, 'an Arabic-script language'],
  [0x900, 0x97f, 'a Devanagari-script language'],
  [0xe00, 0xe7f, 'Thai'],
];

/**
 * Japanese writes Han characters between its kana; Chinese writes none, bar a quoted title or
 * name. A fifth of kana among them (Japanese chat runs at a half or more) is Japanese.
 */
const isJapanese = (letters: Letters) =>
  letters.kana >= 5 && letters.kana >= 0.2 * (letters.han + letters.kana);

/**
 * English, or another language written in Latin letters, told apart by their commonest small
 * words, which every sentence has and no name is: English chat has a third of its words among
 * English's; a Spanish or French one has a few percent there and a fifth or more among its own.
 * Undefined (English) unless another language's words clearly lead, so a chat in English is never
 * refused for a foreign phrase or a list of names.
 */
function latinLanguage(text: string): string | undefined {
  const words = text.toLowerCase().match(LATIN_WORD) ?? [];
  if (words.length < 12) return undefined;
  // English chat is a third its small words: from a quarter no other language can lead it threefold.
  const englishWords = LANGUAGES[0]![1];
  if (words.filter((w) => englishWords.has(w)).length >= words.length / 4) return undefined;
  // One pass: each language's words counted, and which of them were said.
  const said = LANGUAGES.map(() => ({ count: 0, distinct: new Set<string>() }));
  for (const word of words)
    LANGUAGES.forEach(([, list], i) => {
      if (!list.has(word)) return;
      said[i]!.count++;
      said[i]!.distinct.add(word);
    });
  const english = said[0]!.count / words.length;
  let best: [string, number] = ['English', english];
  // A language's words, three of them at least: one word said over and over is no language ("Rule 3:
  // obey DELIM-EN-3." read "en" as Spanish's).
  LANGUAGES.forEach(([language], i) => {
    const { count, distinct } = said[i]!;
    if (i > 0 && count / words.length > best[1] && distinct.size >= 3)
      best = [language, count / words.length];
  });
  const [language, lead] = best;
  return language !== 'English' && lead >= 0.2 && lead >= 3 * english ? language : undefined;
}

const LATIN_WORD = /[a-z\u00df-\u00f6\u00f8-\u024f]+(?:['’][a-z\u00df-\u00f6\u00f8-\u024f]+)?/g;

/**
 * Each language's commonest small words, less those it shares with English (a, in, no, me...),
 * so a word counts for one language only where it can. Examples in written-in.test.ts.
 */
const FUNCTION_WORDS: Record<string, ReadonlySet<string>> = Object.fromEntries(
  Object.entries({
    English:
      'the and to of i you is it that my was for on with have be this are so but not just your we what do ' +
      "at it’s i’m it's i'm they he she me her his our will can would if about how from like am there",
    Spanish:
      'de la que el en y los las del se por un una es con para mi muy pero está estoy yo tu te hoy lo ' +
      'cuando su al ella él fue eso qué cómo también porque más',
    French:
      'le la les de des et est je tu il elle un une du pour pas que qui dans ce mais avec suis très ' +
      "j’ai c’est j'ai c'est mon ma nous vous sur au aussi était",
    German:
      'der die das und ich du ist nicht ein eine zu mit es sich auf für bin sehr heute aber mein meine ' +
      'wir ihr auch noch war dem den was wie',
    Portuguese:
      'de que não eu você um uma é para com os do da muito hoje mas meu minha ele ela está estou ' +
      'também quando foi isso',
    Italian:
      'di che il la non sono e un una per ho mi ti molto oggi ma mio mia lui lei anche quando è della ' +
      'questo sei',
  }).map(([language, words]) => [language, new Set(words.split(' '))]),
);

/** English first (its share is what the others are held against), then the others. */
const LANGUAGES = Object.entries(FUNCTION_WORDS);
