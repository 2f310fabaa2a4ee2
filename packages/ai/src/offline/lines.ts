import { escapeRegExp, insideQuote, type Language, pairQuotes } from '@memfade/core';
import { cached } from './cache.js';
import type { Referent } from './english.js';
import { isConcern, QUESTION_END, reportEn, reportZh } from './questions.js';
import { RULES, SHARED_PHOTO } from './rules/index.js';
import type { Clause } from './segment.js';
import {
  ended,
  joinClauses,
  joinedTexts,
  joinPieces,
  leansBack,
  runsOf,
  saysSomething,
} from './statements.js';
import type { Voice } from './voice.js';

/**
 * Lines: the kept clauses of a conversation written as a memory, each speaker's run of turns a line that says who
 * speaks ("你说…", "Caroline said…"), a question as the concern behind it (docs/design.md §11).
 */

const { zh, en } = RULES;
const saysI = (text: string) => text.search(zh.own.pattern) >= 0;

/** How a speaker's name opens a sentence ("you" → "You"). */
export const asSubject = (name: string, language: Language) =>
  language === 'zh' ? name : name.charAt(0).toUpperCase() + name.slice(1);

/** Whether a statement already opens with who says it ("你今天…", "Your cat…", "Caroline's…"). */
function opensWith(text: string, ref: Referent, language: Language): boolean {
  // A time first says who too ("今天你去…", "Recently, Lucy has…"); a name of several words ("John Zhang") is whole.
  if (language === 'zh') return text.startsWith(ref.name) || zhTimeFirst(text, ref.name);
  const rest = text.replace(en.timeFirst.pattern, '');
  const first = rest.match(/^[A-Za-z][\w'’-]*/)?.[0]?.toLowerCase() ?? '';
  const forms = ref.person === 1 ? en.speakerI : ref.person === 2 ? en.speakerYou : undefined;
  return !!forms?.words.has(first) || new RegExp(`^${escapeRegExp(ref.name)}(?:['’]s)?\\b`, 'iu').test(rest);
}

/** A Chinese statement that opens with a time and then its subject ("今天你…", "昨晚小暖…"). */
export const zhTimeFirst = (text: string, name: string) =>
  zh.timeFirst.pattern.test(text) && text.replace(zh.timeFirst.pattern, '').startsWith(name);

/**
 * "你说" + statement, "You said" + statement: how a line opens when its words do not say who. A
 * request stays as said ("Juno said send Juno a picture"): "told you to" rewrote its words (issue 36).
 */
export function attributed(
  text: string,
  subject: string,
  language: Language,
  names: ReadonlySet<string>,
  continues = false,
): string {
  if (language === 'zh') return `${subject}说${text}`;
  // Words going on from a part of their sentence left out ("…had to work") have their subject there: "…".
  if (continues) return `${subject} said ${text.startsWith('…') ? '' : '…'}${text}`;
  // A statement whose "I" was left out ("Had an audition yesterday") is the speaker's own: written with
  // the speaker as its subject ("Joanna had an audition…", never "Joanna said had…"); the name is the frame's.
  if (en.elidedSubject.pattern.test(text))
    return `${subject} ${text.charAt(0).toLowerCase()}${text.slice(1)}`;
  const first = text.match(/^[A-Za-z][\w'’-]*/)?.[0] ?? '';
  const bare = first.replace(/['’]s?$/, '');
  // A first word loses its capital ("said the vet…"), a name keeps it: one capitalised mid-sentence (not "It"
  // after "Hey Dave! "), or opening capitalised words ("Paws & Claws", "Dr. Patel"; not "If I like", "Next Friday").
  const next = text.slice(first.length).match(/^\.?\s*(?:&\s*|of\s+)?([A-Za-z][\w'’-]*)/)?.[1] ?? '';
  const keep =
    /^I(?:['’]|$)/.test(first) ||
    (names.has(bare) && !en.stopwords.words.has(bare.toLowerCase())) ||
    /^[A-Z]{2,}/.test(first) ||
    (/^[A-Z]/.test(next) &&
      !/^I(?:['’]|$)/.test(next) &&
      // The speaker's name written for their "me" ("Reminds Jon how…") is no run of a name.
      next.replace(/['’]s$/, '') !== subject &&
      !en.commonOpener.words.has(first.toLowerCase())) ||
    // A name of several words or marks ("Speaker 2's husband", "J.J."), looked for last (it walks every name).
    [...names].some((name) => !/^[\w'’-]+$/u.test(name) && text.startsWith(name));
  return `${subject} said ${keep ? text : text.charAt(0).toLowerCase() + text.slice(1)}`;
}

/** The marks a quote's words end on, which its own closing mark replaces; not a bracket's closing one ("（11月21日）"). */
const UNCLOSED_END = /(?:(?![）)」』》”’\]])[\s\p{P}])+$/u;

/**
 * Words quoted as said (`Joanna said, "…"`, `你说：“…”。`: core faithfulness.ts reads a sentence's quote whole); a
 * question asked, with the mark V2 drops it by; a title in it single-quoted (`Sam said, "'Inception' was great."`).
 */
const quotedAs = (subject: string, raw: string, language: Language, asked = false) => {
  const words = raw.trim().replace(UNCLOSED_END, '');
  if (language === 'zh') return asked ? `${subject}问：“${words}？”` : `${subject}说：“${words}”。`;
  return `${subject} ${asked ? 'asked' : 'said'}, "${insideQuote(asked ? `${words}?` : ended(raw, language))}"`;
};

/** A clause without the comma a dropped clause after it left ("电话是010-67017074，"). */
const withoutJoin = (text: string) => text.trim().replace(/[，,、；;]+$/u, '');

/** A clause naming someone else ("老师让我们道歉，"): the next keeps the speaker's 我 (Chinese drops it else). */
const namesAnother = (t = '') =>
  [zh.anotherPerson, zh.kin].some((r) => r.pattern.test(t.replace(zh.own.pattern, '')));

/** Writes kept clauses of a conversation as the memory's lines: one per speaker's run of turns. */
export class Writer {
  constructor(
    private readonly voice: Voice,
    private readonly language: Language,
    private readonly names: ReadonlySet<string>,
  ) {}

  /** The clauses (in their input order) as lines, each opening with who speaks. */
  lines(parts: Clause[]): string[] {
    const lines: string[] = [];
    // The product's processed sections (【摘要】…) are nobody's words: each is a line of its own.
    const key = (c: Clause) => (c.section ? `§${c.section}` : this.voice.nobody ? '' : (c.speaker ?? ''));
    const groups = runsOf(parts, (group, part) => key(group[0]!) === key(part));
    const add = (line: string) => line !== '' && lines.push(line); // nothing left to say (write(): "周立说。"): no line
    groups.forEach((group, i) => {
      const asked = groups[i - 1]?.at(-1);
      // A question and the answer leaning on it are one line ("你问起门票，我说40元。"); the answer's rest is another.
      const bare = () => this.language === 'zh' && zh.bareAnswer.pattern.test(group[0]!.text.trim());
      if (asked && lines.length && QUESTION_END.test(asked.text) && (leansBack(group[0]!.text) || bare())) {
        let run = 1;
        // The answer's sentence goes on after a gap ("…它叫豆豆……特别喜欢追着落叶跑"): alone, "你说特别喜欢追着落叶跑" is the user's liking.
        while (run < group.length && group[run]!.sentence === group[run - 1]!.sentence) run++;
        const [answer, rest] = [group.slice(0, run), group.slice(run)];
        const said = this.line(answer);
        // In Chinese only an answer saying who answers (…，你说40元) follows its question (not "…，小雨去过…").
        const subject = asSubject(this.voice.speaker(answer[0]!.speaker).ref.name, this.language);
        // In English only where it opens on its subject as a word ("…, and you'd love that" is no
        // ", and you loved it": the check reads a contraction there as the asker's words).
        if (said.startsWith(this.language === 'zh' ? `${subject}说` : `${subject} `)) {
          const question = lines.pop()!.replace(/[。.]$/u, '');
          const reply = this.language === 'zh' ? said : said.replace(/^You\b/, 'you');
          lines.push(`${question}${this.language === 'zh' ? '，' : ', and '}${reply}`);
          if (rest.length) add(this.line(rest));
          return;
        }
      }
      add(this.line(group));
    });
    return lines;
  }

  /** Lines already written, by their clauses: a stage is rendered many times while it is chosen. */
  private readonly written = new Map<string, string>();
  private readonly line = (group: Clause[]) =>
    cached(this.written, group.map((c) => c.index).join(','), () => this.write(group));

  private write(group: Clause[]): string {
    if (group[0]!.section) return ended(joinClauses(group, this.language), this.language);
    const speaker = group[0]!.speaker;
    // A run: the kept clauses of one sentence (a dropped clause between them leaves a comma).
    const runs = runsOf(group, (run, part) => run.at(-1)!.sentence === part.sentence);
    // A statement and a question in one sentence ("我在看大侦探波罗，你喜欢看什么剧"): the question reported after a comma.
    const followOn = new Set<Clause[]>();
    for (let r = 0; r < runs.length; r++) {
      const run = runs[r]!;
      if (run.length < 2 || !QUESTION_END.test(run[run.length - 1]!.text.trim())) continue;
      // The question opens at the last clause with a subject ("那你…的话，…", "do you…") or condition ("万一…") of its own.
      const asking = this.language === 'en' ? [en.turnsToAsk] : [zh.ownSubject, zh.condition];
      const opens = (c: Clause) => asking.some((r) => r.pattern.test(c.text.trim()));
      let at = run.length - 1;
      while (at > 0 && !opens(run[at]!)) at--;
      // A number or an exclamation before it is told, not asked ("电话是…，帮你查一下…？" was "你问电话是…", "可以玩0.5
      // 小时，时间并不长，…开放的呢？" "我问可以玩…"); an English statement of a few words is the question's lead, not told.
      const told = (c: Clause, t = withoutJoin(c.text)) =>
        zh.told.pattern.test(t) && !QUESTION_END.test(t) && !zh.asksSomething.pattern.test(t); // "8号馆在哪里，" asks
      if (at === 0 && run.slice(0, -1).some((c) => told(c))) at = run.length - 1;
      const lead = this.language === 'en' && joinClauses(run.slice(0, at), 'en').split(/\s+/).length < 4;
      // A condition or a time before it ("在购买新衣服时，") stays with it: "我说在购买新衣服时。" says nothing.
      const before = run.slice(0, at).map((c) => c.text.trim());
      if (at === 0 || lead || before.some((t) => zh.condition.pattern.test(t) || zh.leadIn.pattern.test(t)))
        continue;
      runs.splice(r, 1, run.slice(0, at), run.slice(at));
      followOn.add(runs[r + 1]!);
    }
    // Each sentence names its speaker once, and is written once (a stage renders it many times).
    // One with nothing left to say ("你好，我叫周立。" by 周立) is no "周立说。": the next names the speaker.
    const said: { r: number; text: string }[] = [];
    for (const [r, run] of runs.entries()) {
      const i = said.length;
      const key = `${i > 0 ? '+' : ''}${run.map((c) => c.index).join(',')}`;
      const text = cached(this.sentences, key, () => this.sentence(run, i, speaker));
      if (text) said.push({ r, text: pairQuotes(text) });
    }
    // A statement ends on a comma only before its own question, said: where that reports nothing ("哈哈哈？？"),
    // a comma would join it to another turn's sentence, one nobody said (docs/design.md §11).
    const asks = (k: number) => said[k + 1]?.r === said[k]!.r + 1 && followOn.has(runs[said[k]!.r + 1]!);
    const texts = said.map(({ text }, k) => (asks(k) ? text.replace(/。$/u, '，') : text));
    return joinPieces(texts, this.language);
  }

  private readonly sentences = new Map<string, string>();

  /** One sentence's kept clauses (`run`), the `i`th of its line, in the memory's voice. */
  private sentence(run: Clause[], i: number, speaker: string | undefined): string {
    const who = this.voice.speaker(speaker);
    const subject = asSubject(who.ref.name, this.language);
    const raw = joinClauses(run, this.language);
    if (!saysSomething(raw)) return ''; // marks with no words ("？？", "...") say nothing: no "Juno问。", no `asked, "?"`
    // Nobody is known to have said a memory stored as one string: its words, attributed to no one.
    if (this.voice.nobody) return ended(raw, this.language);
    // A question whose last clause is kept (a comma left by a dropped clause after it hides nothing); not one told.
    const asked = QUESTION_END.test(withoutJoin(run[run.length - 1]!.text));
    const whole = run.every((c, k) => k === 0 || c.index === run[k - 1]!.index + 1) && !/[“”]/u.test(raw);
    if (asked && !RULES[this.language].toldQuestion.pattern.test(withoutJoin(raw))) {
      const byUser = who.kind !== 'companion';
      const concern = byUser && isConcern(raw, this.language);
      const report = this.language === 'zh' ? reportZh(raw, concern, byUser) : reportEn(raw, concern, byUser);
      const { frame, content } = report;
      if (!saysSomething(content)) return ''; // a question of laughter and marks ("哈哈哈？？") reports nothing
      // Quoted as asked (a quote is never rewritten): a question the report quotes, and the user as 你 / "you" asking
      // of the companion's 你 / "you" (reported, the two read as one), or not at all where its words run apart.
      const yours = byUser && who.ref.person === 2 && RULES[this.language].secondPerson.pattern.test(content);
      if (yours && !('quoted' in report)) return whole ? quotedAs(subject, raw, this.language, true) : '';
      if ('quoted' in report) {
        if (this.language === 'zh') return `${subject}${frame}：“${content}”`;
        const inner = insideQuote(content); // its own quotes first: one opening it ("\"Up\" was great??") pairs too
        return `${subject} ${frame}, "${inner.charAt(0).toUpperCase()}${inner.slice(1)}?"`;
      }
      // Chinese writes the asker's 我 out here (named: false), and drops it below.
      const said = this.voice.rewrite(content, speaker, this.language !== 'zh');
      // "王峰担心王峰该怎么办" names the one who worries twice: "王峰担心该怎么办" (自己 was not said).
      const opens = said.startsWith(subject);
      const twice = this.language === 'zh' && frame !== '' && opens && said[subject.length] !== '的'; // not "你的猫"
      const about = twice ? said.slice(subject.length) : said;
      const framed = this.language === 'zh' ? `${subject}${frame}${about}` : `${subject} ${frame} ${said}`;
      // A frameless worry ("我还担心…") names its speaker ("你还担心…"); with words before it ("其实我担心…"), quoted.
      if (frame === '' && !opens && said.includes(subject)) return quotedAs(subject, raw, this.language);
      return ended(frame === '' && opens ? said : framed, this.language);
    }
    // A photo line, and "Here's a pic of Oliver.", are what the speaker shared (a Chinese memory keeps the caption).
    const photo = this.language === 'en' ? raw.match(en.photo.pattern) : null;
    if (photo) return ended(`${subject} ${SHARED_PHOTO} ${photo[1]}`, this.language);
    const shown = this.language === 'en' && run[0]!.first ? raw.match(en.presents.pattern) : null;
    if (shown)
      return ended(`${subject} shared ${this.voice.rewrite(shown[1]!, speaker, true)}`, this.language);
    // A named speaker's "myself" has no reflexive a name takes without a guessed gender: quoted as said.
    if (who.ref.person === 3 && /\bmyself\b/i.test(raw)) return quotedAs(subject, raw, this.language);
    // Clause by clause (each rewritten once: Voice caches); the first with words opens the sentence, without
    // an interjection ("I said improving…", never "I said of course, improving…": en leadingInterjection).
    const clauses = joinedTexts(run, this.language);
    const opens = clauses.findIndex(Boolean);
    const bare = opens >= 0 ? clauses[opens]!.replace(en.leadingInterjection.pattern, '') : '';
    if (bare !== clauses[opens]) clauses[opens] = bare.charAt(0).toUpperCase() + bare.slice(1);
    const say = (prefixed: boolean) => {
      // Named by the prefix, or (Chinese) by a clause before it: "在《局外人》中，我对…" keeps its 我.
      const before = (k: number) => prefixed || this.language === 'en' || clauses.slice(0, k).some(saysI);
      const named = (k: number) =>
        k === opens ? prefixed : !run[k]!.first && !namesAnother(clauses[k - 1]) && before(k);
      const said = clauses.map((t, k) => (t ? this.voice.rewrite(t, speaker, named(k)) : ''));
      return ended(joinPieces(said.filter(Boolean), this.language), this.language);
    };
    const opening = say(false);
    if (!saysSomething(opening)) return '';
    // Quoted as said where the kept words run on (issue 36): the user's 你 / "you" meaning the companion
    // ("你说你真聪明" would praise the user), a sentence whose "I've" was left out ("Been only to Rome once").
    const holds = who.kind !== 'companion' && RULES[this.language].secondPerson.pattern.test(raw);
    const elided = this.language === 'en' && i === 0 && en.elidedAuxiliary.pattern.test(raw.trim());
    if ((holds || elided) && whole) return quotedAs(subject, raw, this.language);
    // A later sentence whose "I" was left out ("Took a trip to Rome") is the speaker's own: with its subject.
    if (!holds && i > 0 && this.language === 'en' && en.elidedSubject.pattern.test(opening))
      return `${subject} ${opening.charAt(0).toLowerCase()}${opening.slice(1)}`;
    if (!holds && (i > 0 || opensWith(opening, who.ref, this.language))) return opening;
    return attributed(say(true), subject, this.language, this.names, run[0]!.cutBefore === true);
  }
}
