import { escapeRegExp, hanShare, type Language, measureLength } from '@memfade/core';
import { emotionsIn, hasVerb } from './lexicon.js';
import { RULES } from './rules/index.js';
import type { Clause } from './segment.js';

/**
 * Statements: what the offline compressor keeps or drops, always whole. A clause that cannot stand alone ("它是…",
 * "而且…", "40元") travels with the one before it: no orphan fragment (docs/design.md §11); lines.ts writes them.
 */

export interface Atom extends Clause {
  /** Its clauses, in order (one, or a whole sentence). */
  parts: Clause[];
  /** The statement it leans on: kept only with it. */
  needs?: Atom;
  /** It leans on a statement it cannot be kept with: never kept in V2. */
  orphan: boolean;
}

/**
 * Written in Chinese: mostly Han (core text.ts), not merely holding a Han character ("小暖 said…" is English). A
 * clause of digits and marks alone ("010-62793001，") is in the memory's language ("010-62793001." is no number).
 */
export const chinese = (text: string, language?: Language) => {
  if (!/[\p{Script=Han}A-Za-z]/u.test(text)) return language === 'zh';
  // The other language only where it clearly dominates ("You love 北京烤鸭 so much" is English).
  const share = hanShare(text);
  return language === undefined ? share >= 0.5 : share >= (language === 'zh' ? 0.2 : 0.8);
};
const { zh, en } = RULES;
/** A text's pack: a clause is Chinese if it holds a Han character. */
const packOf = (text: string) => (chinese(text) ? zh : en);

/** A clause as it reads without the clause before it: no connective ("而且", "But so") left hanging. */
export function standalone(text: string): string {
  if (chinese(text)) return text.replace(zh.connective.pattern, '');
  const rest = text.replace(en.connective.pattern, '').replace(en.connective.pattern, '');
  return rest.charAt(0).toUpperCase() + rest.slice(1);
}
/** A number, a date or an amount with nothing around it ("40元", "2小时 - 4小时", "At 8 pm."). */
export function bare(text: string): boolean {
  if (!/\d|[零一二三四五六七八九十两]/u.test(text)) return false;
  if (chinese(text)) return [...text.replace(zh.amount.pattern, '')].length <= 1;
  return (text.match(/[A-Za-z]+/g) ?? []).every((w) => en.amountWords.pattern.test(w));
}

const wordsIn = (text: string) => text.match(/[A-Za-z][\w'’-]*/g) ?? [];

/**
 * English that says something only after what came before: up to three words ending on an auxiliary ("You will."), a
 * few with a thing pronoun ("I love it.") or up to eight ending on one, not a feeling ("…was wanting to try it.", not
 * "I feel so alone with this."), or on "too" ("I love watching movies too."); a short answer with no verb.
 */
function answersBack(text: string): boolean {
  const words = wordsIn(text);
  if (words.length <= 3 && en.auxiliaryEnd.pattern.test(words.at(-1) ?? '')) return true;
  if (words.length <= 4 && words.some((w) => en.thingPronoun.pattern.test(w))) return true;
  const last = words.at(-1) ?? '';
  const thing = en.thingPronoun.pattern.test(last);
  if (words.length <= 8 && (thing ? !emotionsIn(text, 'en').length : /^too$/i.test(last))) return true;
  return words.length > 0 && words.length <= 6 && !hasVerb(text) && !/,\s*$/.test(text); // not "yesterday (3 May),"
}

/** A stage's attribution before a bare answer ("你说40元", "You said 8 pm"): the answer still leans back. */
const SAID = new RegExp(`^(?:${zh.said.pattern.source}|${en.said.pattern.source})`, 'iu');

/** Whether a clause leans on the one before it (for its subject, its antecedent, its sense). */
export function leansBack(text: string): boolean {
  const t = standalone(text.trim().replace(/^["“'‘(（]+/, ''));
  const zhText = chinese(t);
  if (zhText && (zh.causeAfter.pattern.test(t) || (zh.kindOf.pattern.test(t) && [...t].length <= 10)))
    return true;
  // A stage's line may open with who said it ("我说是北京市…", "Caroline said it was…"): what follows counts.
  const said = t.replace(SAID, '');
  const leans = (zhText ? zh : en).leansBack.pattern;
  // An elliptical answer ("You will.", "I do.", "有一点。") says something only after its question; "很自豪" a feeling.
  const short = [...said.replace(/[\p{P}\s]/gu, '')].length <= 3 && !emotionsIn(said, 'zh').length;
  if (zhText ? short : answersBack(said) || en.conjoinedThing.pattern.test(text.trim())) return true;
  return leans.test(t) || bare(t) || (said !== t && (leans.test(said) || bare(said)));
}

/** A greeting and a term of address opening a clause ("你好啊，AI伴侣。", "Hi AI companion, …"): left in, "张曼婷说AI伴侣。". */
const GREETING = `(?:(?:${zh.greeting.pattern.source}|${en.greeting.pattern.source})[啊呀呢]?[，,！!\\s]*)?`;
// One term mixes both languages' words ("亲爱的AI companion"): split into the packs, it would not match.
const ADDRESS_TERM =
  '(?:(?:亲爱的|我的|dear |my )?(?:AI ?|人工智能)(?:伴侣|助手|companion|friend)|(?:my|dear) friend)';

/** A clause without the greeting and term of address (a speaker's name too) it opens with. */
export function withoutAddress(names: string[]): (text: string) => string {
  const named = names.map((n) => `|${escapeRegExp(n)}`).join('');
  const address = new RegExp(`^\\s*${GREETING}(?:${ADDRESS_TERM}${named})[啊呀]?(?:[，,！!。.]\\s*|$)`, 'iu');
  return (text) => text.replace(address, '');
}

/** A clause that is only an interjection, an agreement or a greeting ("是的，", "Wow, Caroline!"): nothing to keep. */
// Either pack's: "Oh no, 欧阳娜娜!" is mostly Han, and English.
export const interjection = (text: string) =>
  [zh, en].some((pack) => pack.interjection.pattern.test(text.trim()));

/** At most this many statements lean on each other in a row (Chinese questions not counted); the next is an orphan. */
const MAX_CHAIN = 4;
const QUESTION_MARK = /[?？]["”'’)]*\s*$/u;

/** A statement with what it leans on, in order: how it is shown on its own (a key point, a trace). */
export function withNeeds<T extends { needs?: T }>(statement: T): T[] {
  const chain: T[] = [];
  for (let s: T | undefined = statement; s; s = s.needs) chain.unshift(s);
  return chain;
}

/**
 * The statements of a text: clauses, or (`wholeSentences`, V2) whole sentences up to `upTo` long. A statement leaning
 * back (`needs`) is only ever kept with the one before it, which is kept without it when it tells more alone.
 * `acrossLines`: a turn opening by leaning back ("It was Matt.", "40元。") needs the other speaker's clause before it (a
 * conversation); in a stage's prose each line says who speaks, so a line's first statement needs nothing.
 */
export function atoms(clauses: Clause[], acrossLines: boolean, wholeSentences?: { upTo: number }): Atom[] {
  const sentenceLength = new Map<number, number>();
  for (const c of clauses)
    sentenceLength.set(c.sentence, (sentenceLength.get(c.sentence) ?? 0) + measureLength(c.text));
  const out: Atom[] = [];
  const item = (a?: Clause, b?: Clause) =>
    a?.sentence === b?.sentence && zh.listItem.pattern.test(`${a?.text}${b?.text}`);
  let advisedIn: number | undefined; // a sentence advising 你 (zh.advisedYou): its subjectless clauses are 你's
  for (const [i, clause] of clauses.entries()) {
    const before = clauses[i - 1]?.text.trim() ?? '';
    if (zh.advisedYou.pattern.test(before)) advisedIn = clauses[i - 1]!.sentence;
    else if (!zh.noPerson.pattern.test(before)) advisedIn = undefined;
    const last = out[out.length - 1];
    const previous = last?.parts[last.parts.length - 1];
    const sameSentence = previous?.sentence === clause.sentence;
    const t = clause.text.trim();
    // A question reported after a statement ("…烧焦，姚国栋问…") is a statement of its own: V2 keeps no question.
    const whole =
      wholeSentences &&
      sentenceLength.get(clause.sentence)! <= wholeSentences.upTo &&
      !packOf(clause.text).reportedQuestion.pattern.test(t) &&
      ![zh, en].some((p) => p.answeredInSentence.pattern.test(`${previous?.text.trim()}${t}`));
    // An aside after a dash is a statement; a few words with no subject, or with a thing pronoun, lean on it.
    const aside = /\s[-–—]$/u.test(previous?.text ?? '');
    const words = wordsIn(clause.text);
    const few = words.length <= 6 && !en.subjectPronoun.pattern.test(clause.text);
    const loose = aside && (few || words.some((w) => en.thingPronoun.pattern.test(w)));
    // Words fronted before their clause ("Pottery and gardening, you are…") are its: no "Juno said pottery…".
    const fronted =
      last?.parts.length === 1 &&
      previous !== undefined &&
      /^[A-Za-z][\w'’-]*(?:\s+[A-Za-z][\w'’-]*){0,2},\s*$/.test(previous.text) &&
      !en.personalPronoun.pattern.test(previous.text) &&
      en.subjectPronoun.pattern.test(t);
    // A time or condition clause before the one it belongs to ("在养老院工作的时候，…", "When I started, …") is that
    // clause's, in a stage's prose too; an exception or condition after it too ("我也不喝酒，除了在婚礼上"), a run of
    // a few words each going on the one before (a list: "我喜欢唱歌跳舞，健身，旅游，电影，摄影。", zh listItem).
    const leadIn =
      previous !== undefined &&
      (packOf(previous.text).leadIn.pattern.test(previous.text.trim().replace(SAID, '')) ||
        [zh.restriction, en.restriction, zh.listTail].some((r) => r.pattern.test(t)) ||
        (item(previous, clause) && (item(clauses[i - 2], previous) || item(clause, clauses[i + 1]))));
    if ((whole || fronted || leadIn) && !aside && sameSentence && !clause.section) {
      last!.parts.push(clause);
      last!.text = `${last!.text}${chinese(clause.text) ? '' : ' '}${clause.text}`;
      continue;
    }
    // A reply of three words or fewer to the other's question ("Work, mostly.") says something only after it
    // (longer: LoCoMo V2 gold 50.0%); so does a Chinese one with no subject ("你问…，阿光说1956年出生的").
    const zhClause = chinese(clause.text);
    const reply =
      previous !== undefined &&
      (zhClause
        ? // The answer's shape first: it rules out most clauses before a question is looked for.
          zh.bareAnswer.pattern.test(t.replace(SAID, '')) &&
          (previous.speaker !== clause.speaker
            ? zh.questionEnd.pattern.test(previous.text.trim())
            : SAID.test(t) && zh.reportedQuestion.pattern.test(previous.text.trim()))
        : previous.speaker !== clause.speaker && QUESTION_MARK.test(previous.text) && words.length <= 3);
    // A yes echoing its question's word ("…你喜欢吗？" "喜欢，…", "林小雨说喜欢，"): the question's feeling only.
    const echo = t.replace(SAID, '').replace(/[\p{P}\s]/gu, '');
    const asked = previous?.text.trim() ?? '';
    const echoes =
      zhClause &&
      (previous?.speaker !== clause.speaker || SAID.test(t)) &&
      /^\p{Script=Han}{1,3}$/u.test(echo) &&
      (zh.questionEnd.pattern.test(asked) || zh.reportedQuestion.pattern.test(asked)) &&
      asked.includes(echo);
    // After an ellipsis (words a stage left out of a sentence: joinedTexts), the sentence goes on.
    const goesOn = previous !== undefined && /…$/u.test(previous.text.trim());
    // What the clause before it named: a 他 / 她 / 它 inside ("爸爸出差了，我有点想他"), a deferral, a cause, a short close
    // naming nobody (zh.trailing), or with no subject, the one it was about ("她九十二岁了，走得很安详") or advised.
    const means =
      sameSentence &&
      zhClause &&
      ([zh.pronounInside, zh.deferral, zh.causeInSentence].some((r) => r.pattern.test(t)) ||
        (previous?.speaker === clause.speaker &&
          (zh.trailing.pattern.test(t) ||
            zh.feelingAfterCause.pattern.test(t) ||
            ((zh.pronounInside.pattern.test(previous.text) || advisedIn === clause.sentence) &&
              zh.noPerson.pattern.test(t)))) ||
        // The rest of a question a stage reported ("姚国栋问除了这些，你有没有…推荐给姚国栋。"): still asked.
        (zh.reportedQuestion.pattern.test(previous!.text.trim()) &&
          !SAID.test(t) &&
          !zh.reportedQuestion.pattern.test(t)));
    const there = zhClause && zh.placeInside.pattern.test(t); // the place named before, in this turn or the last
    const leans =
      !clause.section && (loose || reply || echoes || goesOn || means || there || leansBack(clause.text));
    // A line of prose that opens with who answered ("我说是…", "Jon said it was…") leans on the line before.
    const answers = SAID.test(t);
    const joinable =
      last !== undefined &&
      previous !== undefined &&
      !previous.section &&
      (acrossLines || answers || previous.line === clause.line) &&
      withNeeds(last).filter((s) => !(zhClause && QUESTION_MARK.test(s.text))).length < MAX_CHAIN;
    // A reply after a long run needs its question still ("也就2小时 - 4小时吧。" alone is nobody's): that starts over.
    const restart = reply && !joinable && last?.parts.length === 1 && last.needs !== undefined;
    if (restart) last!.needs = undefined;
    // Chinese: a question past the limit starts over ("这里可以玩0.5小时" goes with it), what leans on a fragment is one
    // ("…都坐落于此" on "必须值得一去" told 天安门广场's sights as 恭王府's); in English it kept "What did you think of it?".
    const asks = zhClause && QUESTION_MARK.test(t);
    const atom: Atom = { ...clause, parts: [clause], orphan: leans && !joinable && !restart && !asks };
    if (leans && (joinable || restart)) atom.needs = last;
    if (zhClause && atom.needs?.orphan) atom.orphan = true;
    // Leaning on an agreement alone ("肯定不错啊，这可是…", "Yeah. It was…"): on what was agreed with, before it.
    const agreed = out.at(-2);
    if (last && atom.needs === last && !last.needs && last.parts.length === 1 && interjection(last.text))
      if (agreed && !agreed.section && withNeeds(agreed).length < MAX_CHAIN - 1) last.needs = agreed;
    out.push(atom);
  }
  return out;
}

// --- How a clause reads on its own ---

/** Ends on the mark joining it to the next ("，", " —"), read from its last characters: a pattern anchored at the end is tried at every position. */
const endsOnClauseMark = (t: string) =>
  '，、；,;：:'.includes(t.at(-1) ?? '.') || /\s[-–—]$/u.test(t.slice(-2));
export const TERMINATED = /[。！？…!?.][”’」』）)"']*$/u;

/** A clause shown on its own ends as a sentence does, not on the comma it had before the next clause. */
const closed = (text: string, language: Language) =>
  endsOnClauseMark(text) ? stopped(text, language) : text;

export const ended = (text: string, language: Language) => finished(text.trim(), language);
const finished = (t: string, lang: Language) => (t === '' || TERMINATED.test(t) ? t : stopped(t, lang));

/** Its clause mark gone, a stop of the memory's language where the sentence is in it ("推荐给Jolene。"); one ("…weekend. -"). */
function stopped(text: string, language: Language): string {
  const bare = text.replace(/(?:\s*[，、；,;：:]|\s[-–—])+\s*$/u, '');
  return TERMINATED.test(bare) ? bare : bare + (chinese(text, language) ? '。' : '.');
}

/** Whether a text holds a word or a number, not marks alone ("？？", "，"). */
export const saysSomething = (text: string) => /[\p{L}\p{N}]/u.test(text);

export const joiner = (language: Language) => (language === 'zh' ? '' : ' ');

/**
 * English ending a piece and a Latin word opening the next: a space between; after an English sentence's end,
 * before anything ("…cost-effective. 5月1日…" is no number 5); a Chinese "…20:00);" goes on as it was.
 */
const LATIN_END = /(?:[A-Za-z0-9]|[.!?,;:])['"’”)）\]]*$/u;
const LATIN_START = /^["“([]?[A-Za-z]/u;
const ENGLISH_ENDED = /[A-Za-z\])）][.!?]['"’”)）\]]*$/u;
const apart = (before: string, after: string) =>
  (LATIN_END.test(before) && LATIN_START.test(after)) || (ENGLISH_ENDED.test(before) && /^\S/u.test(after));

/**
 * Pieces of a memory (clauses, sentences, lines) joined as its language joins them: Chinese with nothing between, but
 * an English sentence in a Chinese memory and a Latin word after it have a space between ("…things. Wall lighting…").
 */
export function joinPieces(texts: string[], language: Language): string {
  if (language !== 'zh') return texts.join(' ');
  let out = '';
  for (const text of texts) out += out !== '' && apart(out, text) ? ` ${text}` : text;
  return out;
}

/** Each clause's text as it reads in an extract of `parts`: opened and closed where its neighbours are gone. */
export function joinedTexts(parts: Clause[], language: Language): string[] {
  return parts.map((u, i) => {
    const next = parts[i + 1];
    // After a gap in its sentence, or cut by length from the piece before (segment.ts), a clause goes on after an
    // ellipsis ("打算周一整理数据……周四再检查"): "Went to the lake…" would read as the speaker's own (§11).
    const text =
      parts[i - 1]?.sentence === u.sentence
        ? u.text
        : u.cutBefore
          ? `${chinese(u.text, language) ? '……' : '…'}${u.text}`
          : standalone(u.text);
    // A connective alone ("另外，") opening its sentence is nothing once it is dropped: no stray comma.
    if (!saysSomething(text)) return '';
    if (next?.index === u.index + 1 && next.sentence === u.sentence) return comma(text, language);
    // Words left out inside a sentence or cut by length are marked: a comma would join words never said together.
    return next?.sentence === u.sentence || u.cutAfter ? elided(text, language) : closed(text, language);
  });
}

/** A clause before a gap in its sentence: its mark gives way to an ellipsis ("…", "……"). */
const elided = (text: string, language: Language) =>
  text.trimEnd().replace(/[，、；,;：:。.]+$/u, '') + (chinese(text, language) ? '……' : '…');

/** A clause that goes on after a gap: ending with its comma (a full stop there becomes one). */
function comma(text: string, language: Language): string {
  // A piece of a run-on clause cut by length (segment.ts) had no mark there: none is added.
  if (endsOnClauseMark(text) || !TERMINATED.test(text)) return text;
  return text.replace(/[。.]$/u, '') + (chinese(text, language) ? '，' : ',');
}

/** Clauses of one sentence (or of several, in order) as they read in an extract. */
export const joinClauses = (parts: Clause[], language: Language) =>
  joinPieces(joinedTexts(parts, language).filter(Boolean), language);

/** `items` in runs of neighbours: each joins the run before it where `joins` says so, else opens one. */
export function runsOf<T>(items: readonly T[], joins: (run: T[], next: T) => boolean): T[][] {
  const runs: T[][] = [];
  for (const item of items) {
    const run = runs.at(-1);
    if (run && joins(run, item)) run.push(item);
    else runs.push([item]);
  }
  return runs;
}
