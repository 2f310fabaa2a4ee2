import { detectLanguage, escapeRegExp } from '@memfade/core';
import { hasVerb } from './lexicon.js';
import { RULES } from './rules/index.js';
import { typedCase, withoutPlaceholders } from './typed-text.js';

const { zh, en } = RULES;

/** A sentence of a conversation, with the speaker of the line it came from (if any). */
export interface Sentence {
  text: string;
  speaker?: string;
  /** The section label of the line (【关键点】, [Key points]...) when it came from one. */
  section?: string;
  /** Position in the input, to restore the original order after selection. */
  index: number;
  /** The input line the sentence came from (one turn of the conversation). */
  line: number;
}

/** A clause of a sentence: the smallest unit the offline compressor keeps or drops, always whole. */
export interface Clause extends Sentence {
  /** Index of the sentence the clause belongs to. */
  sentence: number;
  /** True when the clause opens its sentence. */
  first: boolean;
  /** A run-on clause cut by length (at no mark) after this piece: its sentence goes on in the next. */
  cutAfter?: true;
  /** …and before this one: it goes on from the piece before. */
  cutBefore?: true;
}

// Sentence ends: Chinese terminators and ellipses (…… or ... by Chinese text) with any closing quote or bracket;
// a Latin . ! ? and white space (abbreviations and decimals re-joined below). ；ends a clause, not a sentence; nor
// does a title's own mark ("叫做《摔跤吧！爸爸》的电影": a 》 closes soon after it, before any 《 opens).
const CJK_END =
  /((?:[。！？…]+|(?<=\p{Script=Han}[”’」』）)]?)\.{3,}|\.{3,}(?=\p{Script=Han}))[”’」』）)]*)(?![^《》\n]{0,30}》)/u;
const LATIN_END = /(?<=[.!?]["')\]]?)\s+(?=[A-Z0-9"'([\p{Script=Han}《“])/u;
// An ellipsis after a sentence's end opens the next ("…home. …swam"): words after a gap (statements.ts joinedTexts).
const GOES_ON = /(?<=[.!?。！？]["'”’)）\]]?\s*)(?=…)/u;
const SPEAKER = /^\s*([\p{L}\p{N}_ .'’-]{1,20})[:：]\s*/u;
/** A section label opening a line (【关键点】, [Key points]): the product's processed sections. */
export const SECTION = /^\s*(【[^】]{1,12}】|\[[A-Za-z ]{1,24}\])\s*/u;

/** Splits text into trimmed, non-empty sentences, understanding Chinese and English punctuation. */
export function splitSentences(text: string): string[] {
  const out: string[] = [];
  for (const line of text.split(/\r?\n/)) {
    const sentences = line.split(GOES_ON).flatMap((part, i) => {
      const mark = i > 0 ? (part.match(/^…+/u)?.[0] ?? '') : '';
      const [first = '', ...rest] = splitCjk(part.slice(mark.length)).flatMap(splitLatin);
      return [mark + first, ...rest];
    });
    for (const sentence of quotesWhole(sentences, line)) {
      // Marks that open nothing (",, we went…") go: "You said ,, we went" is nobody's sentence.
      const trimmed = sentence.trim().replace(/^[,，、;；:：]+\s*/u, '');
      if (trimmed) out.push(trimmed);
    }
  }
  return out;
}

const QUOTE_MARKS = /["“”]/g;
const opened = (text: string) => {
  let open = 0;
  for (const [mark] of text.matchAll(QUOTE_MARKS))
    open = mark === '"' ? (open ? 0 : 1) : open + (mark === '“' ? 1 : -1);
  return open > 0;
};

/** A quote of several sentences is one (`You said, "I'm so sad. I miss her."`), where the line's quotes pair up. */
function quotesWhole(sentences: string[], line: string): string[] {
  if ((!line.includes('"') && !line.includes('“')) || opened(line)) return sentences;
  const out: string[] = [];
  let pending = '';
  for (const sentence of sentences) {
    pending += (pending && !/^\s/.test(sentence) && !HAN.test(sentence[0] ?? '') ? ' ' : '') + sentence;
    if (!opened(pending)) {
      out.push(pending);
      pending = '';
    }
  }
  if (pending) out.push(pending);
  return out;
}

function splitCjk(line: string): string[] {
  const pieces = line.split(CJK_END);
  // split() with a capture group alternates text and terminator: glue each terminator back on.
  return pieces.flatMap((piece, i) => (i % 2 ? [] : [piece + (pieces[i + 1] ?? '')]));
}

function splitLatin(text: string): string[] {
  const out: string[] = [];
  for (const piece of text.split(LATIN_END)) {
    const previous = out[out.length - 1];
    // An abbreviation ends no sentence; "etc." is none: before a capital it ends one ("…, etc. If you want…").
    if (previous !== undefined && en.abbreviation.pattern.test(previous))
      out[out.length - 1] = `${previous} ${piece}`;
    else out.push(piece);
  }
  return out;
}

const OPEN = '“‘「『《（([';
const CLOSE = '”’」』》）)]';
const CJK_BOUNDARY = '，；、';
/** A spaced dash: an English aside after a statement ("…to the museum - it was so cool"). */
const DASHES = '-–—';
const CUT_MARK = /[，；、,;\-–—]/u; // any mark splitClauses may cut at
const HAN = /\p{Script=Han}/u;
const WIDE: Record<string, string> = { ',': '，', ';': '；' };

const isDigit = (ch: string | undefined) => ch !== undefined && ch >= '0' && ch <= '9';
const words = (text: string) => text.trim().split(/\s+/).filter(Boolean).length;

/**
 * Splits a sentence into clauses, each with its trailing mark: Chinese at ，； (never 、: a list's items are no
 * statements), English at ; and a comma opening a clause; never in quotes or brackets (a quote stays whole).
 */
export function splitClauses(sentence: string, names: readonly string[] = []): string[] {
  const shortened = (clause: string) => shortenedKeeping(clause, names);
  // Most short sentences hold no mark that cuts: a native scan says so before the walk.
  if (!CUT_MARK.test(sentence)) return shortened(sentence.trim()).filter(Boolean);
  // Every mark that matters is one UTF-16 unit: the text is walked by index, cut by slices.
  const pieces: { text: string; mark: string }[] = [];
  let start = 0;
  const cutAt = (i: number, mark: string) => {
    pieces.push({ text: sentence.slice(start, i + 1), mark });
    start = i + 1;
  };
  let depth = 0;
  let straight = false; // in a straight-quoted span (`"…"`: its marks open and close alike), where they pair up
  const paired = !opened(sentence);
  for (let i = 0; i < sentence.length; i++) {
    const ch = sentence[i]!;
    if (ch === '"' && paired) straight = !straight;
    else if (straight) continue;
    else if (OPEN.includes(ch)) depth++;
    else if (CLOSE.includes(ch)) depth = Math.max(0, depth - 1);
    else if (depth > 0) continue;
    else if (CJK_BOUNDARY.includes(ch)) {
      // A comma between digits groups a number ("177，254"): never a clause boundary.
      if (!(ch === '，' && isDigit(sentence[i - 1]) && isDigit(sentence[i + 1]))) cutAt(i, ch);
    } else if ((ch === ',' || ch === ';') && (sentence[i + 1] === ' ' || HAN.test(sentence[i + 1] ?? '')))
      // Between Han characters a half-width mark is the full-width one typed in haste ("不错啊,这可是…").
      cutAt(i, HAN.test(sentence[i - 1] ?? '') && HAN.test(sentence[i + 1] ?? '') ? WIDE[ch]! : ch);
    else if (DASHES.includes(ch) && sentence[i - 1] === ' ' && sentence[i + 1] === ' ') cutAt(i, '-');
  }
  if (pieces.length === 0) return shortened(sentence.trim()).filter(Boolean);
  pieces.push({ text: sentence.slice(start), mark: '' });
  const out: string[] = [];
  let pending = '';
  for (const [i, piece] of pieces.entries()) {
    const next = pieces[i + 1];
    const text = pending + piece.text;
    pending = next && !isClauseCut(text, piece.mark, next.text) ? text : ''; // not cut: it goes on in the next
    if (!pending && text.trim()) out.push(text.trim());
  }
  return out.flatMap(shortened);
}

/** Longer than this (code points), a clause is cut at any comma, then between words: no stage is too small for one. */
const LONGEST_CLAUSE = { zh: 80, en: 240 };

/** Who speaks and nothing else ("Juno said -", "小暖说："): the frame of the words after it. */
const FRAME = /^\s*[\p{L}\p{N}'’ ]{1,24}?\s?(?:said|asked|说|问)[\s\p{P}]*$/u;

/** A run-on clause in pieces a stage can hold: at commas, dashes and semicolons, then at spaces or by length. */
function shortenedKeeping(clause: string, names: readonly string[]): string[] {
  const zh = detectLanguage(clause) === 'zh'; // mostly Han: an English clause naming 小暖 is cut between words
  const longest = zh ? LONGEST_CLAUSE.zh : LONGEST_CLAUSE.en;
  // UTF-16 length first: at most the code point count's double, so most clauses end here.
  if (clause.length <= longest || [...clause].length <= longest) return [clause];
  const out: string[] = [];
  let current = '';
  // Never between a time's or a number's digits ("8:30-17:00", "15：30", "1,200"), nor in a link ("https://…").
  for (const piece of clause.split(/(?<=[，、;；]\s?|：(?!\d)\s?|,(?=\D)\s?|:(?![\d/])\s?|\s[-–—]\s)/u)) {
    // Never inside a quote: a piece that opens one goes on until it closes; a short frame ("You said, ") stays
    // with the words it frames ("Juno said - call mom…": alone, a line saying only who spoke).
    const frame = (/^\s*["“]/u.test(piece) || FRAME.test(current)) && [...current].length < longest / 2;
    const goesOn = (frame || opened(current)) && !opened(clause);
    if (current && !goesOn && [...(current + piece)].length > longest) {
      out.push(current.trim());
      current = '';
    }
    current += piece;
  }
  if (current.trim()) out.push(current.trim());
  return out.flatMap((piece) => ([...piece].length <= longest ? [piece] : cut(piece, longest, zh, names)));
}

/**
 * What a cut by length never falls inside: a quote (one speaker's words), a word or number in Latin script, a
 * link, what brackets hold ("（11月21日）"), a name ("iPh，one", "3.，5", "小……": words nobody wrote), a person word
 * not the speaker's own 我 (我们, 我国: zh.own), whose 我 cut apart is rewritten ("小暖们俩").
 */
const UNCUT =
  /“[^”]*”|"[^"]*"|《[^》]*》|（[^）]{0,40}）|\([^)]{0,40}\)|[A-Za-z0-9][\w@.:/?=&%+#~-]*[\w/]|我[们俩国校市省司院厂军方]|[你他她它咱][们俩]/gu;
const uncutWith = (names: readonly string[]) =>
  names.length === 0 ? UNCUT : new RegExp(`${names.map(escapeRegExp).join('|')}|${UNCUT.source}`, 'gu');

/** A mark that ends or closes the words before it. */
const TRAILING_MARK = /[。！？…，、；：.!?,;:”’」』》）)\]]/u;

/** A piece with no comma at all, cut between words (English) or by length (Chinese). */
function cut(piece: string, longest: number, zh: boolean, names: readonly string[]): string[] {
  const uncut = uncutWith(names.filter((n) => n.trim() !== ''));
  const out: string[] = [];
  let rest = piece;
  while ([...rest].length > longest) {
    const head = [...rest].slice(0, longest).join('');
    let at = zh ? head.length : Math.max(head.lastIndexOf(' '), 1);
    for (const m of rest.matchAll(uncut)) {
      const end = m.index + m[0].length;
      if (m.index >= at) break;
      // Before what it would fall inside, or after it where little precedes it (a quote keeps its frame).
      if (end > at) at = m.index >= longest / 2 ? m.index : end;
    }
    // The marks that end or close what comes before stay with it: a piece of marks alone ("……")
    // says nothing, and the piece before, kept without it, would run on into the next sentence.
    while (at < rest.length && TRAILING_MARK.test(rest[at]!)) at++;
    out.push(rest.slice(0, at).trim());
    rest = rest.slice(at);
  }
  if (rest.trim()) out.push(rest.trim());
  return out;
}

/** Whether to cut at `mark` (`left` is all of the clause so far, up to it), before `right`. */
function isClauseCut(left: string, mark: string, right: string): boolean {
  if (mark === '，' && zh.leadsOn.pattern.test(left.trim())) return false; // an opener ("如果我考不好，…") needs what follows
  if (mark === '，' || mark === '；') return true;
  if (mark === '、') return false; // an enumeration's items ("由圆明园、长春园和绮春园组成") cut apart are fragments (issue 36)
  if (mark === ';') return words(right) >= 2;
  if (mark === '-') return words(left) >= 4 && words(right) >= 2 && hasVerb(left);
  // An English comma starts a new clause only before a subject, a subordinating word or a question: a list
  // ("love, faith, and strength") or a vocative ("Thanks, Maria!") stays in one piece.
  const head = left.trim().replace(/,$/, '');
  if (en.commaInterjection.pattern.test(head)) return words(right) >= 3;
  // A head without a verb ("Pottery and gardening, you are…") belongs to the clause after it.
  return (
    words(head) >= 3 &&
    words(right) >= 4 &&
    (en.clauseStart.pattern.test(right.trim()) || en.turnsToAsk.pattern.test(right.trim())) &&
    !en.conjunctionOnly.pattern.test(head) &&
    !(en.questionLead.pattern.test(head) && en.turnsToAsk.pattern.test(right.trim())) &&
    hasVerb(head)
  );
}

export interface ReadOptions {
  speakers?: boolean;
  known?: readonly string[];
  /** Names a cut by length never falls inside (the role card's). */
  names?: readonly string[];
}

export const ROLE_WORD = `(?:${en.roleWord.pattern.source}|${zh.roleWord.pattern.source})`;
const ROLE_WORDS = new RegExp(`^${ROLE_WORD}$`, 'i');

/**
 * The labels that name speakers: role words, labels that open two lines or more ("Caroline:"), and every label where
 * each line opens with one (two turns, "Deborah: …" then "Jolene: …": the turns a list of two stored). A label seen
 * once in other text ("注意：", "Note:") is part of the text; a number ("8:00") never is one.
 */
function speakerLabels(lines: string[], known: readonly string[]): Set<string> {
  // The turns' own roles, where stored as turns: those and no other ("第二：…" on a second line is text).
  if (known.length > 0) return new Set(known.map((k) => k.trim()));
  const counts = new Map<string, number>();
  const spoken = lines.filter((line) => line.trim() !== '');
  for (const line of spoken) {
    const label = line.match(SPEAKER)?.[1]?.trim();
    if (label && !/^\d+$/.test(label)) counts.set(label, (counts.get(label) ?? 0) + 1);
  }
  const turns = counts.size >= 2 && [...counts.values()].reduce((a, b) => a + b, 0) === spoken.length;
  return new Set([...counts.keys()].filter((l) => turns || counts.get(l)! >= 2 || ROLE_WORDS.test(l)));
}

/** A label inside a line after a sentence ("我：…。小暖：…"): a turn's (a line) if a role word, card name or twice. */
const INLINE_LABEL = /(?<=[。！？!?.…]["”’)）]*\s*)([^\s\d:：。！？!?.,，、;；"“”]{1,20})[:：]/gu;
function inlineTurns(text: string, names: readonly string[] = []): string {
  const labels = [...text.matchAll(INLINE_LABEL)].map((m) => m[1]).concat(text.match(SPEAKER)?.[1]?.trim());
  const twice = (label: string) => labels.indexOf(label) !== labels.lastIndexOf(label);
  const opens = (label: string) => twice(label) || ROLE_WORDS.test(label) || names.includes(label);
  return text.replace(INLINE_LABEL, (whole, label: string) => (opens(label) ? `\n${whole}` : whole));
}

/**
 * Sentences of a formatted conversation (`user: …` / `assistant: …` lines, 【摘要】-style sections), each tagged with its
 * speaker so an extract stays readable; a line without a label continues the turn before. `speakers: false` reads no
 * labels (a stage's own prose, where "注意：" is text); `known`: labels that are speakers however rare (its turns' roles).
 */
export function conversationSentences(text: string, options: ReadOptions = {}): Sentence[] {
  const sentences: Sentence[] = [];
  const labelled = options.speakers ?? true;
  const lines = (labelled && !options.known?.length ? inlineTurns(text, options.names) : text).split(/\r?\n/);
  const speakers = labelled ? speakerLabels(lines, options.known ?? []) : new Set<string>();
  let current: string | undefined;
  lines.forEach((rawLine, line) => {
    let rest = withoutPlaceholders(rawLine);
    const section = rest.match(SECTION);
    const who = rest.match(SPEAKER);
    // A section is nobody's words; a labelled line opens a turn (no labels are read without `labelled`).
    if (section) {
      rest = rest.slice(section[0].length);
      current = undefined;
    } else if (who && speakers.has(who[1]!.trim())) {
      current = who[1]!.trim();
      rest = rest.slice(who[0].length);
    }
    const label = section?.[1];
    const parts = label ? rest.split(/[；;]\s*/) : [rest]; // a list section's items (joined by ;): each a sentence
    for (const part of parts)
      for (const s of splitSentences(typedCase(part)))
        sentences.push({ text: s, speaker: current, section: label, index: sentences.length, line });
  });
  return sentences;
}

/** The clauses of a formatted conversation, in order, each tagged like its sentence. */
export function conversationClauses(text: string, options: ReadOptions = {}): Clause[] {
  const clauses: Clause[] = [];
  for (const sentence of conversationSentences(text, options)) {
    const parts = splitClauses(sentence.text, options.names);
    // A piece that ends on no mark, with another after it, was cut from it by length (shortenedKeeping).
    const cutAfter = parts.map((part, i) => i < parts.length - 1 && !/[\p{P}]$/u.test(part.trim()));
    for (const [i, part] of parts.entries())
      clauses.push({
        ...sentence,
        text: part,
        sentence: sentence.index,
        index: clauses.length,
        first: i === 0,
        ...(cutAfter[i] && { cutAfter: true }),
        ...(cutAfter[i - 1] && { cutBefore: true }),
      });
  }
  return clauses;
}
