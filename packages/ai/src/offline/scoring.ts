import { escapeRegExp, type Language, measureLength } from '@memfade/core';
import { cached } from './cache.js';
import { ANCHOR } from './dates.js';
import { emotionsIn, POSITIVE, untitled } from './lexicon.js';
import { CONCERN_BONUS, isConcern, QUESTION_END } from './questions.js';
import { RULES } from './rules/index.js';
import type { Clause } from './segment.js';
import { type Atom, chinese } from './statements.js';

/** What a statement tells, as weighted keys: a fact outweighs a content word; a key kept is worth nothing again. */
export interface Unit extends Atom {
  needs?: Unit;
  keys: Map<string, number>;
  /** Worth that does not wear off with novelty: first-person plans and events, the persona's interests, feelings. */
  bonus: number;
  /** Asks rather than tells: a question that is not the user's concern. */
  question: boolean;
  /** The companion's advice or comment: not of its own life, no fact in it (weighed as ASIDE_FACTOR). */
  aside: boolean;
  filler: boolean;
  emotional: boolean;
  length: number;
  /** The statement its unnamed "it" or "them" may mean ("Jolene bought it in Paris."): worth less without it. */
  means?: Unit;
}

/** A date or number (FACT), a name or place (NAME: above 4 it crowds out what happened). */
const FACT = 5;
const NAME = 4;
const WORD = 1;
const HAN_PAIR = 0.5;
/** A question asks for a fact more often than it tells one. */
const QUESTION_FACTOR = 0.4;
/** The companion's advice and comments ("you could try…"): after the user's own (docs/design.md §4). */
const ASIDE_FACTOR = 0.5;
/** What the user's pain adds (a worry, a fear, a sadness): 2 since the eighteenth round (docs/eval). */
const PAIN_BONUS = 2;
/** What the user's grief adds to a statement's worth: as much as the worry of a question (CONCERN_BONUS). */
const GRIEF_BONUS = 5;
/** Said of themselves by the user (their own 我 / I), this much is no small talk ("可能我没有勇气开这个店"). */
const SELF_ENOUGH = 1;
/** Below this much information a clause is small talk ("Wow, John!", "好的，"). */
const FILLER_BELOW = 2;
export const sumOf = (keys: ReadonlyMap<string, number>) => [...keys.values()].reduce((a, b) => a + b, 0);
/** A date, a number or a name among what a statement tells (FACT, NAME). */
export const factIn = (keys: ReadonlyMap<string, number>) =>
  [...keys.values()].some((weight) => weight >= NAME);

// --- English ---

const EN_TOKEN = /[A-Za-z][A-Za-z'’-]*|\d[\d.,:/-]*\d|\d/g;
const SEPARATOR = /[\s,]/;
/**
 * Whether a greeting (rules/en greetingBefore) ends the text before `at`, read in a window holding any match
 * (15 characters at most, after separators and "aww…"): all the text before each capital was quadratic.
 */
function greeted(text: string, at: number): boolean {
  let i = at;
  while (i > 0 && SEPARATOR.test(text[i - 1]!)) i--;
  if (i === at) return false;
  while (i > 0 && (text[i - 1] === 'w' || text[i - 1] === 'W')) i--;
  const start = Math.max(0, i - 17);
  // A window cut inside the text must not match at its start as if it were the text's.
  return RULES.en.greetingBefore.pattern.test((start > 0 ? 'x' : '') + text.slice(start, at));
}
/** `/,\s*$/` on the text before `at` (its last characters: on the whole of it, the test was quadratic). */
const commaBefore = (text: string, at: number) => /,\s*$/.test(text.slice(Math.max(0, at - 40), at));
const NOTHING_AFTER = /\s*[!.?]*\s*$/y;
/** `/^\s*[!.?]*\s*$/` on the text from `at`. */
function nothingAfter(text: string, at: number): boolean {
  NOTHING_AFTER.lastIndex = at;
  return NOTHING_AFTER.test(text);
}

/** Capitalised words used as names somewhere in the text other than at a sentence start. */
export function namesIn(clauses: Clause[]): Set<string> {
  const names = new Set<string>();
  // A title's words ("Remember Me", "Stand By Me": a capital Me or My inside a sentence) name nobody; one letter (I, the
  // 5K's K) is no name, as in englishKeys.
  const titled = (tokens: string[], i: number) =>
    tokens.slice(i - 1, i + 2).some((t) => /^(?:Me|My)$/.test(t));
  for (const clause of clauses) {
    const tokens = clause.text.match(EN_TOKEN) ?? [];
    for (const [i, token] of tokens.entries())
      if (i > 0 && /^[A-Z]/.test(token) && token.length > 1 && !/^I'/.test(token) && !titled(tokens, i))
        names.add(token.replace(/['’]s$/, ''));
  }
  return names;
}

function englishKeys(text: string, names: Set<string>): Map<string, number> {
  const { stopwords, filler, timeWords, monthOrVerb, vagueTime } = RULES.en; // the lists keys skip or weigh
  const skipped = (word: string) => stopwords.words.has(word) || filler.words.has(word);
  const keys = new Map<string, number>();
  const tokens = text.match(EN_TOKEN) ?? []; // strings, each found again after the last (match objects cost more)
  let end = 0;
  for (const [i, token] of tokens.entries()) {
    const index = text.indexOf(token, end);
    end = index + token.length;
    const word = token.toLowerCase().replace(/['’]s$/, '');
    // A token with a digit is a number token (EN_TOKEN): its first character ([A-Za-z0-9]) says so.
    if (token[0]! <= '9') {
      keys.set(`#${token}`, FACT);
      continue;
    }
    if (timeWords.words.has(word) && !(monthOrVerb.words.has(word) && /^[a-z]/.test(token))) {
      keys.set(word, vagueTime.words.has(word) ? WORD * 2 : FACT); // "March", "twice" date a fact, "today" places it
      continue;
    }
    const bare = token.replace(/['’]s$/, '');
    // One capital letter is no name: "the 5K" (a race), "plan B".
    const capitalised = /^[A-Z]/.test(token) && bare.length > 1 && !/^I['’]/.test(token);
    if (capitalised && (i > 0 || names.has(bare)) && !skipped(word)) {
      // A name being addressed ("Thanks, Maria!", "Hey Mel") says nothing about Maria or Mel.
      const vocative = greeted(text, index) || (commaBefore(text, index) && nothingAfter(text, end));
      if (!vocative) keys.set(word, NAME);
      continue;
    }
    if (word.length < 3 || skipped(word)) continue;
    keys.set(word.replace(/s$/, ''), WORD);
  }
  return keys;
}

// --- Chinese ---

const HAN_RUN = /\p{Script=Han}+/gu;
// Facts and names in Chinese text (rules/zh): what they are made of, what their names end with.
const ZH_FACTS = RULES.zh.facts.map((rule) => rule.pattern);
const ZH_NAMES = RULES.zh.names.map((rule) => rule.pattern);
const PRONOUN = /[它他她这那此该其]/u;
const LEAD = new RegExp(`^${PRONOUN.source}+`, 'u');
/** Names, titles and places in Chinese text, as written: none holds a pronoun ("它门票": no 要它门; "那天坛": 天坛). */
export function chineseNames(text: string): string[] {
  const names = ZH_NAMES.flatMap((pattern) => text.match(pattern) ?? []).map((m) => m.replace(LEAD, ''));
  return names.filter((name) => [...name].length >= 2 && !PRONOUN.test(name));
}

// Catching up ("since we last talked") or taking advice in ("I'll give it a try") tells nothing: not weighed.
const { catchUp, acknowledged } = RULES.en;
const plain = new Map<string, string>();
const unweighed = (t: string) =>
  cached(plain, t, () => t.replace(catchUp.pattern, ' ').replace(acknowledged.pattern, ' '), 5_000);
/** Each text's keys, once (a core memory is chosen over the same clauses at each length); never changed after. */
const zhKeys = new Map<string, Map<string, number>>();
function chineseKeys(text: string): Map<string, number> {
  const { functionChars, filler } = RULES.zh;
  const keys = new Map<string, number>();
  for (const pattern of ZH_FACTS) for (const m of text.match(pattern) ?? []) keys.set(`#${m.trim()}`, FACT);
  // A place name's key is its last characters, so "有恭王府" and "恭王府" count as one place.
  for (const pattern of ZH_NAMES)
    for (const m of text.match(pattern) ?? []) keys.set(`@${[...m].slice(-4).join('')}`, NAME);
  for (const run of text.match(HAN_RUN) ?? []) {
    const chars = [...run];
    for (let i = 0; i + 1 < chars.length; i++) {
      const pair = chars[i]! + chars[i + 1]!;
      if (functionChars.words.has(chars[i]!) || functionChars.words.has(chars[i + 1]!)) continue;
      if (!filler.words.has(pair)) keys.set(pair, HAN_PAIR);
    }
  }
  return keys;
}

/**
 * Weighs each statement by what it tells: dates, numbers, names, places, content words; as a boost, first-person plans,
 * likes and events, the persona's interests, feelings, the user's worries. Filler and mere questions weigh little.
 */
export interface Weighing {
  /** The persona's interests, lowercase. */
  interests?: string[];
  /** The people whose worries count (a question of theirs about their life is a concern). */
  isUser?: (speaker: string | undefined) => boolean;
  /** Words that tell nothing here: in a stage's prose, the speakers' names and "said" of every line. */
  ignore?: ReadonlySet<string>;
  /** Who else an event may be told of: a stage's names for its speakers ("Caroline went…" as "I went"), "you". */
  people?: string[];
  /** The companion's turns (V1 reads speakers; V2's prose has its own test, core-memory.ts). */
  isCompanion?: (speaker: string | undefined) => boolean;
}

export function analyse(atoms: Atom[], language: Language, weighing: Weighing = {}): Unit[] {
  const { interests = [], isUser = () => false, ignore = new Set<string>(), people = [] } = weighing;
  const { isCompanion = () => false } = weighing;
  const names = namesIn(atoms);
  const who = people.map((p) => `|${escapeRegExp(p)}`).join('');
  // A plan, preference or event of whoever may be its subject ("I went", "Caroline is planning").
  const [zhKin, enKin] = [RULES.zh.kin.pattern.source, RULES.en.kin.pattern.source];
  const [zhTail, enTail] = [RULES.zh.eventTail.pattern.source, RULES.en.eventTail.pattern.source];
  const whose = who.replace(/\|([^|]+)/g, "|$1's");
  const events = {
    // "我和朋友们去了", "我儿子考上了", "my son Tom graduated" are the speaker's events as "我去了" is.
    zh: new RegExp(`(?:我(?:[和跟与]\\p{Script=Han}{1,4}?)?${who})(?:的?${zhKin})?${zhTail}`, 'u'),
    en: new RegExp(`\\b(?:i|we|(?:my${whose}) ${enKin}(?: [A-Z][a-z]+)?${who})${enTail}(?:e?s)?\\b`, 'i'),
  };
  const units = new Map<Atom, Unit>();
  let userSaid = { line: -1, keys: new Set<string>() }; // the user's last line: an echo of it ("大白鹅叫阿黄") tells nothing
  return atoms.map((atom) => {
    const { text } = atom;
    const plain = untitled(text);
    // In an English memory a clause is Chinese only where most of it is: "Oh no, 欧阳娜娜!" is English.
    const zh = language === 'zh' ? /\p{Script=Han}/u.test(text) : chinese(text, language);
    const pack = zh ? RULES.zh : RULES.en;
    const keysOf = (t: string) =>
      zh ? cached(zhKeys, t, () => chineseKeys(t), 5_000) : englishKeys(unweighed(t), names);
    let keys = keysOf(text);
    // The date an anchor wrote after "today" or "明天" (dates.ts) places what is said: it makes no
    // talk about the talk worth keeping ("我们明天（4月30日）再聊", "Today (28 April) I want to talk…").
    if (pack.aboutTheTalk.pattern.test(text)) {
      const unanchored = text.replace(ANCHOR, '');
      if (unanchored !== text) keys = keysOf(unanchored);
    }
    if ([...ignore].some((word) => keys.has(word))) keys = new Map([...keys].filter(([k]) => !ignore.has(k)));
    if (isUser(atom.speaker)) {
      if (atom.line !== userSaid.line) userSaid = { line: atom.line, keys: new Set() };
      for (const key of keys.keys()) userSaid.keys.add(key);
    } else if (isCompanion(atom.speaker) && (echoes(keys, userSaid.keys) || pack.cheer.pattern.test(text)))
      keys = new Map();
    // Only asks: a question with no answer or statement travelling with it.
    const asks = atom.parts.every(
      (p, k) => atom.parts[k + 1]?.sentence === p.sentence || QUESTION_END.test(p.text),
    );
    // A user's question about their own life is worth a statement; one that carries a worry, a feeling too.
    const mine = isUser(atom.speaker);
    const user = asks && mine;
    const worry = user && isConcern(plain, language);
    const concern = worry || (user && FIRST_PERSON_ANY.test(plain));
    const { needs: leant, ...rest } = atom; // what it leans on, among the units (an atom leans on one before it)
    const needs = leant && units.get(leant);
    // A short yes to the other's question about a feeling ("你害怕吗？" "有一点") says that feeling.
    const affirmed =
      needs && needs.speaker !== atom.speaker && pack.affirms.pattern.test(text.trim())
        ? emotionsIn(needs.text, language)
        : [];
    const emotions = [...new Set([...emotionsIn(text, language), ...affirmed])];
    const feels = mine && pack.feeling.pattern.test(plain); // the user saying how they feel, lexicon word or not
    const emotional = worry || feels || emotions.length > 0;
    const pained = mine && emotions.some((e) => !POSITIVE.has(e));
    // The body hurting or worn out ("我的身体有些疲倦", "精力不足"): never small talk, worth half
    // the pain of a feeling (a whole one crowded "my mom is sick and I worry" out for "I'm tired").
    const ailing = mine && pack.ailment.pattern.test(plain);
    // search(), not test(): the pack's own 我 is a global pattern, and search() keeps no lastIndex.
    const self = zh ? RULES.zh.own.pattern : RULES.en.firstPerson.pattern;
    const ofThemselves = mine && sumOf(keys) >= SELF_ENOUGH && plain.search(self) >= 0;
    let bonus = 0;
    // A loss the user tells of ("去世", "passed away") is what a companion must not forget; advice taken in is no plan.
    if (emotions.includes('grief') && mine) bonus += GRIEF_BONUS;
    if (zh ? events.zh.test(plain) : events.en.test(unweighed(text))) bonus += 2;
    else if (mine && pack.opinion.pattern.test(plain)) bonus += 1;
    else if (pack.myOwn.pattern.test(plain)) bonus += 0.5;
    const lower = text.toLowerCase();
    if (interests.some((term) => lower.includes(term))) bonus += 2;
    if (emotional) bonus += 0.5;
    // The user's pain (a worry, a fear, a sadness) is what a companion must remember of the day.
    if (pained) bonus += PAIN_BONUS;
    else if (ailing) bonus += PAIN_BONUS / 2;
    // Told in answer to the other's question, a feeling costs that question too: worth a worry asked.
    if (concern || (mine && affirmed.some((e) => !POSITIVE.has(e)))) bonus += CONCERN_BONUS;
    // Not of the companion's own life (no I, my, 我: LoCoMo's "companion" is a person too) and no date,
    // number or name in it; or advice ("我推荐你去看一下黄山", "you could try…"), even with a place or an I.
    const companion = isCompanion(atom.speaker);
    const aside =
      companion && ((!FIRST_PERSON_ANY.test(plain) && !factIn(keys)) || pack.advice.pattern.test(plain));
    const unit: Unit = {
      ...rest,
      keys,
      bonus,
      question: asks && !concern,
      aside,
      // The user's pain in a few words ("I'm scared.") is never small talk; the companion saying it is an AI always is.
      filler:
        (sumOf(keys) + bonus < FILLER_BELOW && !pained && !ailing && !ofThemselves) ||
        (companion && pack.aiSelf.pattern.test(plain)) ||
        [pack.todayIs, pack.preface].some((rule) => rule.pattern.test(text)),
      emotional,
      length: measureLength(text),
      ...(needs && { needs }),
    };
    units.set(atom, unit);
    return unit;
  });
}

/**
 * A named user's words to the other with nothing of their own ("You've got guts and ambition.", "looks delish!"),
 * the frame naming who said them gone: about the other, second to the user's own as the companion's words are.
 */
export const toTheOther = (words: string, userName: string | undefined, language: Language) =>
  !!userName &&
  !words.includes(userName) &&
  ((RULES[language].secondPerson.pattern.test(words) && !RULES[language].firstPerson.pattern.test(words)) ||
    RULES[language].reaction.pattern.test(words));

/** Three quarters of a statement's weight already said ("大白鹅叫阿黄" after "一只大白鹅，叫阿黄"). */
const echoes = (keys: Map<string, number>, said: Set<string>) =>
  keys.size > 0 && [...keys].reduce((n, [k, w]) => n + (said.has(k) ? w : 0), 0) >= 0.75 * sumOf(keys);

const FIRST_PERSON_ANY = new RegExp(
  `${RULES.zh.firstPerson.pattern.source}|${RULES.en.firstPerson.pattern.source}`,
  'u',
);

/** What a clause adds to what is already kept. */
export function gain(unit: Unit, kept: Set<string>): number {
  let fresh = 0;
  for (const [key, weight] of unit.keys) if (!kept.has(key)) fresh += weight;
  const worth = fresh + (fresh > 0 ? unit.bonus : unit.bonus / 4);
  return (unit.question ? worth * QUESTION_FACTOR : worth) * (unit.aside ? ASIDE_FACTOR : 1);
}
