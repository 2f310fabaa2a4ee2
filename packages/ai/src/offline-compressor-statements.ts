import { type Language, measureLength } from '@memfade/core';
import { hasVerb } from './lexicon.js';
import { isConcern, QUESTION_END, reportEn, reportZh } from './offline-compressor-questions.js';
import type { Referent, Voice } from './offline-compressor-voice.js';
import type { Clause } from './segment.js';

/**
 * Statements: what the offline compressor keeps or drops, always whole. A clause that cannot
 * stand alone (it opens with a pronoun or a conjunction, or is a bare number or date: "它是…",
 * "而且…", "40元") travels with the clause before it, so no stage holds an orphan fragment; a
 * question becomes the concern behind it ("你担心如果考不好，妈妈会不高兴"); every line says who
 * is speaking (docs/design.md §11).
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
 * Openers that need what came before: a pronoun or demonstrative (its antecedent), an adverb that
 * needs a subject (也, 还, 才), an example or a cause of something said. A connective alone
 * (CONNECTIVE: "而且", "But") does not: it is dropped when its clause stands alone.
 */
const ZH_LEANS_BACK =
  /^(?:是(?!不是)|它们?|他们?|她们?|其|此|该|(?:这|那)(?!(?:周|个月|次|两天|几天|段时间|学期|天|会儿|年|一年))|而|也|还|又|才|就|都|却|并|或者|或是|尤其|特别是|比如|例如|譬如|包括|以及)/u;
const EN_LEANS_BACK =
  /^(?:it|it's|its|this|that|that's|these|those|they|they're|them|he|he's|she|she's|him|there|which|who|whom|whose|or|nor|too|because|though|although|especially|like|such as|including|both|either|neither|yet|when|while|where|since|after|before|until|unless|whereas|as|not)\b/i;
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

/** Three words at most, ending on an auxiliary: "You will.", "I do.", "We have not." */
function elliptical(text: string): boolean {
  const words = text.match(/[A-Za-z][\w'’-]*/g) ?? [];
  return (
    words.length <= 3 &&
    /^(?:will|do|did|does|can|could|would|should|have|has|had|am|is|are|was|were|not|too)$/i.test(
      words.at(-1) ?? '',
    )
  );
}

/** A short English answer with no verb ("The Sound of Music.", "Paws & Claws on Fifth Avenue."): it answers what came before. */
function verbless(text: string): boolean {
  const words = text.match(/[A-Za-z][\w'’-]*/g) ?? [];
  return words.length > 0 && words.length <= 6 && !hasVerb(text);
}

/** A stage's attribution before a bare answer ("你说40元", "You said 8 pm"): the answer still leans back. */
const SAID = /^(?:[^，。！？、\s]{1,8}?说|[A-Z][\w'-]* said )/iu;

/** Whether a clause leans on the one before it (for its subject, its antecedent, its sense). */
export function leansBack(text: string): boolean {
  const t = standalone(text.trim().replace(/^["“'‘(（]+/, ''));
  if (HAN.test(t) && (ZH_CAUSE_AFTER.test(t) || (ZH_KIND_OF.test(t) && [...t].length <= 10))) return true;
  // A stage's line may open with who said it ("我说是北京市…", "Caroline said it was…"): what follows counts.
  const said = t.replace(SAID, '');
  const leans = HAN.test(t) ? ZH_LEANS_BACK : EN_LEANS_BACK;
  // An elliptical answer ("You will.", "I do.", "有一点。") says something only after its question.
  if (HAN.test(t) ? [...said.replace(/[\p{P}\s]/gu, '')].length <= 3 : elliptical(said)) return true;
  if (!HAN.test(t) && verbless(said)) return true;
  return leans.test(t) || bare(t) || (said !== t && (leans.test(said) || bare(said)));
}

const ZH_INTERJECTION =
  /^(?:嗯+|啊+|哦+|噢+|哇+|哈+|呵+|好的|好吧|好呀|好啊|是的|是啊|是呀|对|对的|对啊|对呀|没错|当然|有|有啊|有呀|有的|在的|在呢|我在|嗯嗯|好|行|可以|谢谢|不客气|你好|您好|(?:我)?(?:当然|恰巧|正好|刚好)?(?:知道|了解|晓得|听说过)(?:一些|些|一点|一点点)?|有些了解|有点了解|略知一二|不知道)[呀啊哦呢吧的！!。，,\s~～]*$/u;
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
    // An aside after a dash ("- it was so cool") stays a statement of its own, leaning on the sentence.
    const aside = /\s[-–—]$/u.test(previous?.text ?? '');
    if (whole && !aside && last && previous && previous.sentence === clause.sentence && !clause.section) {
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

const CLAUSE_MARK = /[，、；,;：:]$|\s[-–—]$/u;
const TERMINATED = /[。！？…!?.][”’」』）)"']*$/u;

/** A clause shown on its own ends as a sentence does, not on the comma it had before the next clause. */
export function closed(text: string): string {
  return CLAUSE_MARK.test(text) ? text.slice(0, -1).trimEnd() + (HAN.test(text) ? '。' : '.') : text;
}

export function ended(text: string): string {
  const trimmed = text.trim();
  if (trimmed === '' || TERMINATED.test(trimmed)) return trimmed;
  return trimmed.replace(/[，、；,;：:]+$|\s[-–—]$/u, '') + (HAN.test(trimmed) ? '。' : '.');
}

export const joiner = (language: Language) => (language === 'zh' ? '' : ' ');

const follows = (a: Clause | undefined, b: Clause | undefined) =>
  a !== undefined && b !== undefined && b.index === a.index + 1 && b.sentence === a.sentence;

/** Each clause's text as it reads in an extract of `parts`: opened and closed where its neighbours are gone. */
function joinedTexts(parts: Clause[], _language: Language): string[] {
  return parts.map((u, i) => {
    // A clause after a gap in its own sentence goes on after a comma ("打算周一整理数据，周四再检查"):
    // the sentence keeps its subject; only a clause that opens a new one stands alone.
    const sameSentence = parts[i - 1]?.sentence === u.sentence;
    const text = follows(parts[i - 1], u) || sameSentence ? u.text : standalone(u.text);
    return follows(u, parts[i + 1]) || parts[i + 1]?.sentence === u.sentence ? comma(text) : closed(text);
  });
}

/** A clause that goes on after a gap: ending with its comma (a full stop there becomes one). */
function comma(text: string): string {
  if (/[，、；,;：:]$|\s[-–—]$/u.test(text)) return text;
  return text.replace(/[。.]$/u, '') + (HAN.test(text) ? '，' : ',');
}

/** Clauses of one sentence (or of several, in order) as they read in an extract. */
export function joinClauses(parts: Clause[], language: Language): string {
  return joinedTexts(parts, language).join(joiner(language));
}

// --- Lines: each speaker's kept words, attributed ---

const capital = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

/** How a referent opens a sentence ("you" → "You"). */
function subjectOf(ref: Referent, language: Language): string {
  return language === 'zh' ? ref.name : capital(ref.name);
}

/** Whether a statement already opens with who says it ("你今天…", "Your cat…", "Caroline's…"). */
export function opensWith(text: string, ref: Referent, language: Language): boolean {
  // Chinese puts a time first: "今天你去西湖边散步" says who as well as "你今天…".
  if (language === 'zh') return text.startsWith(ref.name) || zhTimeFirst(text, ref.name);
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

const ZH_TIME_FIRST =
  /^(?:今天|昨天|明天|后天|前天|刚才|最近|上周|下周|这周|周末|早上|晚上|中午|下午|上午|今晚|昨晚|现在|后来|然后)[，,]?/u;

/** A Chinese statement that opens with a time and then its subject ("今天你…", "昨晚小暖…"). */
export function zhTimeFirst(text: string, name: string): boolean {
  const time = text.match(ZH_TIME_FIRST)?.[0];
  return time !== undefined && text.slice(time.length).startsWith(name);
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
  // A sentence's first word loses its capital ("The vet…" → "said the vet…"), a name keeps it: one
  // seen capitalised inside a sentence, or one opening a run of capitalised words ("Paws & Claws";
  // "If I like" is no run).
  const next = text.slice(first.length).match(/^\s*(?:&\s*|of\s+)?([A-Za-z][\w'’-]*)/)?.[1] ?? '';
  const keep =
    first === 'I' ||
    /^I['’]/.test(first) ||
    names.has(bare) ||
    /^[A-Z]{2,}/.test(first) ||
    (/^[A-Z]/.test(next) && !/^I(?:['’]|$)/.test(next));
  return `${subject} said ${keep ? text : text.charAt(0).toLowerCase() + text.slice(1)}`;
}

/** A shared photo as a conversation set writes it (LoCoMo's captions): "[shares a photo: a photo of a dog]". */
const PHOTO =
  /^\[shares? an? (?:photo|image|picture)[:：]\s*(?:an? (?:photo|photograph|photography|image|picture|screenshot) of )?(.+?)\]\.?$/i;

/** The companion as 我 / "I" in a memory's sentence (not 我们, 我国, 自我; not "we"). */
const COMPANION_I = { zh: /(?<![自忘])我(?![们国校市省司院厂军方])/u, en: /\b(?:I|me|my|mine|myself)\b/ };

/** A Chinese clause with a subject of its own (a question after a statement: "那你现在在干什么呢"). */
const ZH_OWN_SUBJECT = /^(?:那么?|对了|请问)?[，,]?(?:你|您|我|他|她|它|咱)/u;
const ZH_CONDITION = /^(?:如果|要是|万一|假如|假设|只要)/u;

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
    // A run: the kept clauses of one sentence (a dropped clause between them leaves a comma).
    const runs: Clause[][] = [];
    for (const part of group) {
      const run = runs[runs.length - 1];
      if (run && run[run.length - 1]!.sentence === part.sentence) run.push(part);
      else runs.push([part]);
    }
    // A statement and a question of its own in one sentence ("我在看大侦探波罗，你喜欢看什么剧"):
    // the statement is said, then the question reported after a comma ("你在看…，你问我喜欢看什么剧");
    // a condition stays with its question.
    const followOn = new Set<Clause[]>();
    for (let r = 0; r < runs.length; r++) {
      const run = runs[r]!;
      if (run.length < 2 || this.language !== 'zh' || !QUESTION_END.test(run[run.length - 1]!.text.trim()))
        continue;
      // The question opens at the last clause with a subject of its own ("那你…的话，布玛怎么办").
      let at = run.length - 1;
      while (at > 0 && !ZH_OWN_SUBJECT.test(run[at]!.text)) at--;
      if (at === 0 || run.slice(0, at).some((c) => ZH_CONDITION.test(c.text))) continue;
      runs.splice(r, 1, run.slice(0, at), run.slice(at));
      followOn.add(runs[r + 1]!);
    }
    // Each sentence names its speaker once; after that an English name goes on as "they".
    const texts = runs.map((run, i) => {
      const raw = joinClauses(run, this.language);
      // A question whose last clause is kept: a comma left by a dropped clause after it does not hide it.
      if (QUESTION_END.test(run[run.length - 1]!.text.trim().replace(/[，,、；;]+$/u, ''))) {
        const concern = this.voice.speaker(speaker).kind !== 'companion' && isConcern(raw, this.language);
        const { frame, content } = this.language === 'zh' ? reportZh(raw, concern) : reportEn(raw, concern);
        const said = this.voice.rewrite(content, speaker, true);
        const framed = this.language === 'zh' ? `${subject}${frame}${said}` : `${subject} ${frame} ${said}`;
        // A frameless worry ("我还担心…") already names its speaker: "你还担心…".
        return ended(frame === '' && said.startsWith(subject) ? said : framed);
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
      const opening = say(false);
      // Unnamed, the companion is 我 / "I": the user's words holding it ("你" rewritten: "我真聪明",
      // "If I like, I can go…") say whose they are, or they read as the companion's own; a
      // sentence naming its speaker says so already ("Frank hoped to get advice from me").
      const holds =
        this.voice.speaker(speaker).kind !== 'companion' &&
        this.voice.companion.ref.person === 1 &&
        COMPANION_I[this.language].test(opening) &&
        !(ref.person === 3 && opening.includes(ref.name));
      if (!holds && (i > 0 || opensWith(opening, ref, this.language))) return opening;
      return attributed(say(true), subject, this.language, this.names);
    });
    return texts
      .map((t, i) => (followOn.has(runs[i + 1]!) ? t.replace(/。$/u, '，') : t))
      .join(joiner(this.language));
  }
}
