import { type Language, measureLength } from '@memfade/core';
import { EN_FILLER, EN_STOPWORDS, EN_TIME_WORDS, emotionsIn, POSITIVE } from './lexicon.js';
import type { Referent, Voice } from './offline-compressor-voice.js';
import type { Clause } from './segment.js';

/**
 * Statements: what the offline compressor keeps or drops, always whole. A clause that cannot
 * stand alone (it opens with a pronoun or a conjunction, or is a bare number or date: "它是…",
 * "而且…", "40元") travels with the clause before it, so no stage holds an orphan fragment; a
 * question becomes the concern behind it ("你担心如果考不好，妈妈会不高兴"); every line says who
 * is speaking (DESIGN section 11).
 */

export interface Atom extends Clause {
  /** Its clauses, in order (one, or a whole sentence). */
  parts: Clause[];
  /** The statement it leans on: kept only with it. */
  needs?: Atom;
  /** It leans on a statement it cannot be kept with: never kept in V2. */
  orphan: boolean;
}

const HAN = /\p{Script=Han}/u;
/**
 * A question's end: a question mark; or, in chat written without punctuation, 吗 / 么, or a
 * question word closing the clause ("你喜欢看什么剧", "布玛怎么办").
 */
export const QUESTION_END =
  /(?:[?？]|(?<![要那怎什])[吗么]|(?:什么|多少|几个|哪里|哪儿|怎么样|怎么办|为什么|是谁|好不好|行不行|对不对|是不是|可不可以)[呀啊呢]?)[”’」』）)"']*$/u;

/**
 * Openers that need what came before: a pronoun or demonstrative (its antecedent), an adverb that
 * needs a subject (也, 还, 才), an example or a cause of something said. A connective alone
 * (CONNECTIVE: "而且", "But") does not: it is dropped when its clause stands alone.
 */
const ZH_LEANS_BACK =
  /^(?:是(?!不是)|它们?|他们?|她们?|其|此|该|(?:这|那)(?!(?:周|个月|次|两天|几天|段时间|学期|天|会儿|年|一年))|而|也|还|又|才|就|都|却|并|或者|或是|尤其|特别是|比如|例如|譬如|包括|以及)/u;
const EN_LEANS_BACK =
  /^(?:it|it's|its|this|that|that's|these|those|they|they're|them|he|he's|she|she's|him|there|which|who|whom|whose|or|nor|too|because|though|although|especially|like|such as|including|both|either|neither|yet)\b/i;
const ZH_CONNECTIVE =
  /^(?:而且|并且|但是|可是|不过|然而|所以|因此|因而|于是|然后|接着|另外|此外|同时|甚至)[，,]?\s*/u;
const EN_CONNECTIVE = /^(?:and|but|so|also|plus|then|however|anyway|besides|and then|but also)\b[,]?\s*/i;

/** A clause as it reads without the clause before it: no connective ("而且", "But so") left hanging. */
export function standalone(text: string): string {
  if (HAN.test(text)) return text.replace(ZH_CONNECTIVE, '');
  const rest = text.replace(EN_CONNECTIVE, '').replace(EN_CONNECTIVE, '');
  return rest.charAt(0).toUpperCase() + rest.slice(1);
}
const ZH_AMOUNT =
  /[\d\s\p{P}\p{S}年月日号点时分秒元块角岁个次层楼米天周小时分钟公里万千百零一二三四五六七八九十两半几上下午晚早]/gu;
const EN_AMOUNT_WORDS =
  /^(?:at|on|in|around|about|the|of|and|to|st|nd|rd|th|am|pm|a|an|hours?|minutes?|days?|weeks?|months?|years?|dollars?|euros?|yuan|percent|km|miles?|kg|january|february|march|april|may|june|july|august|september|october|november|december)$/i;

/** A number, a date or an amount with nothing around it ("40元", "2小时 - 4小时", "At 8 pm."). */
export function bare(text: string): boolean {
  if (!/\d|[零一二三四五六七八九十两]/u.test(text)) return false;
  if (HAN.test(text)) return [...text.replace(ZH_AMOUNT, '')].length <= 1;
  const words = (text.match(/[A-Za-z]+/g) ?? []).filter((w) => !EN_AMOUNT_WORDS.test(w));
  return words.length === 0;
}

/** A cause said after its effect ("…，因为她也弄坏了我的城堡"); one glued before its clause ("因为下雨，…") does not lean. */
const ZH_CAUSE_AFTER = /^(?:因为|由于)[^，,]*$/u;
/** An apposition that only qualifies the clause before it ("24色的那种"). */
const ZH_KIND_OF = /(?:的)?(?:那种|这种|那个|这个|那样|这样)[。！…]*$/u;

/** A stage's attribution before a bare answer ("你说40元", "You said 8 pm"): the answer still leans back. */
const SAID = /^(?:[^，。！？、\s]{1,8}?说|[A-Z][\w'-]* said )/iu;

/** Whether a clause leans on the one before it (for its subject, its antecedent, its sense). */
export function leansBack(text: string): boolean {
  const t = standalone(text.trim().replace(/^["“'‘(（]+/, ''));
  if (HAN.test(t) && (ZH_CAUSE_AFTER.test(t) || (ZH_KIND_OF.test(t) && [...t].length <= 10))) return true;
  // A stage's line may open with who said it ("我说是北京市…", "Caroline said it was…"): what follows counts.
  const said = t.replace(SAID, '');
  const leans = HAN.test(t) ? ZH_LEANS_BACK : EN_LEANS_BACK;
  return leans.test(t) || bare(t) || (said !== t && (leans.test(said) || bare(said)));
}

const ZH_INTERJECTION =
  /^(?:嗯+|啊+|哦+|噢+|哇+|哈+|呵+|好的|好吧|好呀|好啊|是的|是啊|是呀|对|对的|对啊|对呀|没错|当然|有|有啊|有呀|有的|嗯嗯|好|行|可以|谢谢|不客气|你好|您好|(?:我)?(?:当然|恰巧|正好|刚好)?(?:知道|了解|晓得|听说过)(?:一些|些|一点|一点点)?|有些了解|有点了解|略知一二|不知道)[呀啊哦呢吧的！!。，,\s~～]*$/u;
const EN_INTERJECTION =
  /^(?:wow|hey|hi|hello|oh|ah|aw+|yeah|yes|yep|yup|no|nope|well|ok|okay|sure|thanks|thank you|haha+|lol|omg|hmm|um|uh|cool|nice|great|awesome|totally|exactly|right|true|indeed|of course|congrats|congratulations|sounds good|maybe|probably|perhaps|not really|not well|not yet|honestly|definitely|absolutely|good idea|that's a good idea)(?:[\s,]+[A-Z][\p{L}'-]*)?[\s!.,~]*$/iu;

/** A clause that is only an interjection, an agreement or a greeting ("是的，", "Wow, Caroline!"): nothing to keep. */
export function interjection(text: string): boolean {
  const t = text.trim();
  return (HAN.test(t) ? ZH_INTERJECTION : EN_INTERJECTION).test(t);
}

/** At most this many statements lean on each other in a row; the next one starts over (an orphan). */
const MAX_CHAIN = 4;

/** How many statements `atom` stands on, itself included. */
export function chainLength(atom: Atom | undefined): number {
  let n = 0;
  for (let a = atom; a; a = a.needs) n++;
  return n;
}

/**
 * The statements of a text: clauses, or (`wholeSentences`) whole sentences, unless a sentence is
 * longer than `upTo` (V2: a core memory of whole sentences, never a clause without its subject).
 * A statement that leans back (`needs`) is only ever kept with the one before it, which is kept
 * without it when it tells more alone. `acrossLines`: a turn that opens by leaning back ("It was
 * Matt.", "40元。") needs the other speaker's clause before it (a conversation); in a stage's
 * prose each line already says who speaks, so a line's first statement needs nothing.
 */
export function atoms(clauses: Clause[], acrossLines: boolean, wholeSentences?: { upTo: number }): Atom[] {
  const sentenceLength = new Map<number, number>();
  for (const c of clauses)
    sentenceLength.set(c.sentence, (sentenceLength.get(c.sentence) ?? 0) + measureLength(c.text));
  const out: Atom[] = [];
  for (const clause of clauses) {
    const last = out[out.length - 1];
    const previous = last?.parts[last.parts.length - 1];
    const whole = wholeSentences && sentenceLength.get(clause.sentence)! <= wholeSentences.upTo;
    if (whole && last && previous && previous.sentence === clause.sentence && !clause.section) {
      last.parts.push(clause);
      last.text = `${last.text}${HAN.test(clause.text) ? '' : ' '}${clause.text}`;
      continue;
    }
    const leans = !clause.section && leansBack(clause.text);
    // A line of prose that opens with who answered ("我说是…", "Jon said it was…") leans on the line before.
    const answers = SAID.test(clause.text.trim());
    const joinable =
      last !== undefined &&
      previous !== undefined &&
      !previous.section &&
      (acrossLines || answers || previous.line === clause.line) &&
      chainLength(last) < MAX_CHAIN;
    const atom: Atom = { ...clause, parts: [clause], orphan: leans && !joinable };
    if (leans && joinable) atom.needs = last;
    out.push(atom);
  }
  return out;
}

// --- How a clause reads on its own ---

const CLAUSE_MARK = /[，、；,;：:]$/u;
const TERMINATED = /[。！？…!?.][”’」』）)"']*$/u;

/** A clause shown on its own ends as a sentence does, not on the comma it had before the next clause. */
export function closed(text: string): string {
  return CLAUSE_MARK.test(text) ? text.slice(0, -1) + (HAN.test(text) ? '。' : '.') : text;
}

export function ended(text: string): string {
  const trimmed = text.trim();
  if (trimmed === '' || TERMINATED.test(trimmed)) return trimmed;
  return trimmed.replace(/[，、；,;：:]+$/u, '') + (HAN.test(trimmed) ? '。' : '.');
}

export const joiner = (language: Language) => (language === 'zh' ? '' : ' ');

const follows = (a: Clause | undefined, b: Clause | undefined) =>
  a !== undefined && b !== undefined && b.index === a.index + 1 && b.sentence === a.sentence;

/** Each clause's text as it reads in an extract of `parts`: opened and closed where its neighbours are gone. */
function joinedTexts(parts: Clause[], _language: Language): string[] {
  return parts.map((u, i) => {
    const text = follows(parts[i - 1], u) ? u.text : standalone(u.text);
    return follows(u, parts[i + 1]) ? text : closed(text);
  });
}

/** Clauses of one sentence (or of several, in order) as they read in an extract. */
export function joinClauses(parts: Clause[], language: Language): string {
  return joinedTexts(parts, language).join(joiner(language));
}

// --- Questions: the concern behind them ---

const ZH_CONCERN = /如果|要是|万一|假如|怎么办|会不会|该不该|是不是我|为什么/;
const EN_CONCERN =
  /\b(?:if|what if|should i|am i|is it normal|why (?:isn't|doesn't|don't|won't|can't|didn't|wasn't|aren't))\b/i;

/** A question that carries a worry: a painful feeling, a condition, "what if", "should I". */
export function isConcern(text: string, language: Language): boolean {
  if (emotionsIn(text, language).some((e) => !POSITIVE.has(e))) return true;
  return (language === 'zh' ? ZH_CONCERN : EN_CONCERN).test(text);
}

const ZH_ABOUT = /^(?:你|您)?(?:知道|听说过|听过|了解|认识|看过|去过|玩过|读过|吃过|喜欢)(.{2,})$/u;

/** A Chinese question as a statement of what was asked: its frame (问 / 问起 / 担心) and its content. */
function reportZh(question: string, concern: boolean): { frame: string; content: string } {
  let q = question
    .replace(QUESTION_END, '')
    .replace(/[吗么呢吧呀啊嘛]+$/u, '')
    .replace(/^(?:嗯+|哦+|噢|啊|对了|请问|好的|哈哈+)[，,\s]*/u, '')
    // "那它…", "那么，…": a discourse particle; "那只小狗" keeps its 那.
    .replace(/^那么?(?:[，,\s]+|(?=[它你我他她]))/u, '')
    .replace(/(?:你|您)(?:知道|清楚|了解|晓得)$/u, '')
    .replace(/[，,\s]+$/u, '')
    .trim();
  if (concern)
    return q.startsWith('为什么') ? { frame: '不明白', content: q } : { frame: '担心', content: q };
  const about = q.match(ZH_ABOUT);
  if (about) return { frame: '问起', content: about[1]!.replace(/^(?:一下|下)/u, '') };
  q = q.replace(/^(?:你|您)(?:知道|了解)/u, '');
  return { frame: '问', content: q };
}

const AUX =
  "am|is|are|was|were|do|does|did|have|has|had|can|could|will|would|should|shall|may|might|must|isn't|aren't|wasn't|weren't|don't|doesn't|didn't|haven't|hasn't|can't|couldn't|won't|wouldn't|shouldn't";
const EN_WH = new RegExp(
  `^(what|why|how(?: \\w+)?|when|where|who|which(?: \\w+)?|whose)\\s+(${AUX})\\s+(\\S+)\\s*(.*)$`,
  'i',
);
const EN_WH_BE = /^(what|who|where|which(?: \w+)?|how(?: \w+)?)\s+(is|are|was|were)\s+(.+)$/i;
const EN_YES_NO = new RegExp(`^(${AUX})\\s+(\\S+)\\s*(.*)$`, 'i');
const PRONOUN = /^(?:i|you|he|she|it|we|they)$/i;
/** A question's subject: a pronoun or a name ("Jimmy"), never another word ("What has changed…"). */
const subjectWord = (word: string) => PRONOUN.test(word) || /^[A-Z][\w'-]*$/.test(word);

/** An English question as indirect speech: "Why isn't Jimmy…?" → "why Jimmy isn't…". */
function reportEn(question: string, concern: boolean): { frame: string; content: string } {
  const q = question
    .replace(QUESTION_END, '')
    .replace(/^(?:so|well|oh|hey|and|but|um|hmm|also|btw|anyway)[,\s]+/i, '')
    .trim();
  const subject = (s: string) => (PRONOUN.test(s) && s !== 'I' ? s.toLowerCase() : s);
  const wh = q.match(EN_WH);
  if (wh && subjectWord(wh[3]!)) {
    const [, w, aux, who, rest] = wh;
    return {
      frame: 'wondered',
      content: `${w!.toLowerCase()} ${subject(who!)} ${aux!.toLowerCase()} ${rest}`.trim(),
    };
  }
  const be = q.match(EN_WH_BE);
  if (be) return { frame: 'wondered', content: `${be[1]!.toLowerCase()} ${be[3]} ${be[2]!.toLowerCase()}` };
  if (wh) return { frame: 'wondered', content: q.charAt(0).toLowerCase() + q.slice(1) };
  const yesNo = q.match(EN_YES_NO);
  if (yesNo && subjectWord(yesNo[2]!)) {
    const [, aux, who, rest] = yesNo;
    const content = `whether ${subject(who!)} ${aux!.toLowerCase()} ${rest}`.trim();
    return { frame: concern ? 'worried' : 'asked', content };
  }
  return {
    frame: concern ? 'worried about' : 'asked about',
    content: q.charAt(0).toLowerCase() + q.slice(1),
  };
}

// --- Lines: each speaker's kept words, attributed ---

const capital = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

/** How a referent opens a sentence ("you" → "You"). */
function subjectOf(ref: Referent, language: Language): string {
  return language === 'zh' ? ref.name : capital(ref.name);
}

/** Whether a statement already opens with who says it ("你今天…", "Your cat…", "Caroline's…"). */
export function opensWith(text: string, ref: Referent, language: Language): boolean {
  if (language === 'zh') return text.startsWith(ref.name);
  const first = text.match(/^[A-Za-z][\w'’-]*/)?.[0]?.toLowerCase() ?? '';
  const forms =
    ref.person === 1
      ? ['i', "i'm", "i've", "i'll", "i'd", 'my']
      : ref.person === 2
        ? ['you', "you're", "you've", "you'll", "you'd", 'your']
        : [];
  const name = ref.name.toLowerCase();
  return forms.includes(first) || first === name || first === `${name}'s` || first === `${name}’s`;
}

/** "你说" + statement, "You said" + statement: how a line opens when its words do not say who. */
export function attributed(
  text: string,
  subject: string,
  language: Language,
  names: ReadonlySet<string>,
): string {
  if (language === 'zh') return `${subject}说${text}`;
  const first = text.match(/^[A-Za-z][\w'’-]*/)?.[0] ?? '';
  const bare = first.replace(/['’]s$/, '');
  // Only a common word loses its capital ("The vet…" → "said the vet…"); a name, "Dr." or "Paws" keeps it.
  const word = bare.toLowerCase();
  const common =
    EN_STOPWORDS.has(word) || EN_FILLER.has(word) || EN_TIME_WORDS.has(word) || /(?:ing|ed|ly)$/.test(word);
  const keep = first === 'I' || /^I['’]/.test(first) || names.has(bare) || !common;
  return `${subject} said ${keep ? text : text.charAt(0).toLowerCase() + text.slice(1)}`;
}

/** A shared photo as a conversation set writes it (LoCoMo's captions): "[shares a photo: a photo of a dog]". */
const PHOTO =
  /^\[shares? an? (?:photo|image|picture)[:：]\s*(?:an? (?:photo|photograph|photography|image|picture|screenshot) of )?(.+?)\]\.?$/i;

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
    const key = (c: Clause) => (c.section ? `§${c.section}` : (c.speaker ?? ''));
    const groups: Clause[][] = [];
    for (const part of parts) {
      const group = groups[groups.length - 1];
      if (group && key(group[0]!) === key(part)) group.push(part);
      else groups.push([part]);
    }
    groups.forEach((group, i) => {
      const asked = groups[i - 1]?.at(-1);
      // A question and the answer that leans on it ("你问起门票，我说40元。") read as one line;
      // the rest of the answer is a line of its own, so each line has one speaker after its start.
      if (asked && QUESTION_END.test(asked.text) && leansBack(group[0]!.text) && lines.length) {
        let run = 1;
        while (run < group.length && follows(group[run - 1], group[run])) run++;
        const [answer, rest] = [group.slice(0, run), group.slice(run)];
        const question = lines.pop()!.replace(/[。.]$/u, '');
        const said = this.line(answer);
        const reply = this.language === 'zh' ? said : said.replace(/^You\b/, 'you');
        lines.push(`${question}${this.language === 'zh' ? '，' : ', and '}${reply}`);
        if (rest.length) lines.push(this.line(rest));
      } else lines.push(this.line(group));
    });
    return lines;
  }

  /** Lines already written, by their clauses: a stage is rendered many times while it is chosen. */
  private readonly written = new Map<string, string>();

  private line(group: Clause[]): string {
    const key = group.map((c) => c.index).join(',');
    let line = this.written.get(key);
    if (line === undefined) {
      line = this.write(group);
      this.written.set(key, line);
    }
    return line;
  }

  private write(group: Clause[]): string {
    if (group[0]!.section) return ended(joinClauses(group, this.language));
    const speaker = group[0]!.speaker;
    const ref = this.voice.speaker(speaker).ref;
    const subject = subjectOf(ref, this.language);
    const runs: Clause[][] = [];
    for (const part of group) {
      const run = runs[runs.length - 1];
      if (run && follows(run[run.length - 1], part)) run.push(part);
      else runs.push([part]);
    }
    // Each sentence names its speaker once; after that an English name goes on as "they".
    const texts = runs.map((run, i) => {
      const raw = joinClauses(run, this.language);
      if (QUESTION_END.test(raw.trim())) {
        const concern = this.voice.speaker(speaker).kind !== 'companion' && isConcern(raw, this.language);
        const { frame, content } = this.language === 'zh' ? reportZh(raw, concern) : reportEn(raw, concern);
        const said = this.voice.rewrite(content, speaker, true);
        return ended(this.language === 'zh' ? `${subject}${frame}${said}` : `${subject} ${frame} ${said}`);
      }
      const photo = raw.match(PHOTO);
      if (photo) return ended(`${subject} shared a photo of ${photo[1]}`);
      // Clause by clause: a clause recurs in many renderings, each rewritten once (Voice caches).
      const clauses = joinedTexts(run, this.language);
      const say = (prefixed: boolean) =>
        ended(
          clauses
            .map((t, k) => this.voice.rewrite(t, speaker, k === 0 ? prefixed : !run[k]!.first))
            .join(joiner(this.language)),
        );
      if (i > 0) return say(false);
      const opening = say(false);
      return opensWith(opening, ref, this.language)
        ? opening
        : attributed(say(true), subject, this.language, this.names);
    });
    return texts.join(joiner(this.language));
  }
}
