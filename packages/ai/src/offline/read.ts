import type { Language, RoleCard } from '@memfade/core';
import { cached } from './cache.js';
import { painIn } from './lexicon.js';
import { asSubject, attributed, Writer, zhTimeFirst } from './lines.js';
import { residueOf } from './residue.js';
import { RULES } from './rules/index.js';
import { analyse, namesIn, type Unit } from './scoring.js';
import { type Clause, conversationClauses, ROLE_WORD, SECTION } from './segment.js';
import { rank } from './selection.js';
import {
  atoms,
  ended,
  interjection,
  joinClauses,
  joinPieces,
  runsOf,
  saysSomething,
  withNeeds,
  withoutAddress,
} from './statements.js';
import { topicIn, topicLine, topicOf } from './topic.js';
import { CONVENTION, Voice } from './voice.js';

/**
 * What the offline compressor reads: a conversation (V1's input: `role: text` turns, maybe after the
 * product's sections), or a stage's prose (V2's: V1's lines, one per speaker's run, key points, highlights).
 */

/** Who a text is by: its language, the role card's names, the turns' roles (a request's). */
export interface Speakers {
  language: Language;
  roleCard: Pick<RoleCard, 'name' | 'userName'>;
  /** A memory stored as one string: nobody is known to have said its words. */
  unattributed?: boolean;
  speakers?: readonly string[];
}

export interface Reader {
  /** The clauses worth reading: system turns and stickers left out. */
  clauses: Clause[];
  /** Capitalised names of the text (kept capitalised after "You said"). */
  names: Set<string>;
  writer: Writer;
  /** What the conversation is about, and the line that says so ('' for a memory nobody is known to have said). */
  topic?: string;
  topicLine: string;
  /** The people whose feelings and worries a memory keeps: the user, or speakers it names; not the companion. */
  isUser: (speaker: string | undefined) => boolean;
}

export function readConversation(text: string, by: Speakers): Reader {
  const { language, roleCard, unattributed: nobody = false, speakers = [] } = by;
  // The names turns open by calling before a greeting ("小度，晚上好呀"): the card's, and any other.
  const called = text.split('\n').flatMap((line) => {
    const name = line.replace(/^[^:：]{1,20}[:：]\s*/u, '').match(RULES.zh.vocative.pattern)?.[1];
    return name ? [name] : [];
  });
  const card = [roleCard.name, roleCard.userName].filter((n): n is string => !!n);
  const unaddressed = withoutAddress([...card, ...called]);
  const all = conversationClauses(text, { known: speakers, names: card })
    .map((c) => (c.section ? c : { ...c, text: unaddressed(c.text) }))
    .filter((c) => c.text.trim() !== '');
  const spoken = all.filter((c) => !c.section);
  const labels = spoken.map((c) => ({ label: c.speaker, text: c.text }));
  const voice = new Voice(language, labels, roleCard, nobody);
  // System turns, clauses that only agree or greet ("是的，", "Wow, Caroline!") or hold no word ("...", "😊")
  // say nothing to keep. A 他 / 她 stays as said: which person it means is a guess (issue 36).
  const kept = (c: Clause) => voice.speaker(c.speaker).kind !== 'system' && !interjection(c.text);
  const clauses = all.filter((c) => c.section || (kept(c) && saysSomething(c.text)));
  const names = namesIn(all);
  const named = [...new Set(spoken.map((c) => c.speaker))].filter(
    (s): s is string => s !== undefined && voice.speaker(s).kind === 'named',
  );
  // Names stay capitalised after "… said": speakers, and the names the role card gives.
  for (const name of [...named, ...card]) if (name) names.add(name);
  const isUser = (speaker: string | undefined) => ['user', 'named'].includes(voice.speaker(speaker).kind);
  const topic = topicOf(clauses, language);
  // "我们聊到了…" says who talked: nobody is known to have said a memory stored as one string.
  const line = topic && !nobody ? topicLine(topic, voice, language, named) : '';
  const writer = new Writer(voice, language, names);
  return { clauses, names, writer, topic, topicLine: line, isUser };
}

/** The user's statements that express a feeling, as written: a painful one first, then the most frequent feeling's. */
export function feelingsOf(reader: Reader, units: Unit[], language: Language): string[] {
  const theirs = units.filter((u) => u.emotional && u.parts.some((p) => reader.isUser(p.speaker)));
  const felt = rank(theirs, 0.5).map((u) => {
    // A he / she with the user's statement naming its person (antecedents.ts; docs/design.md §11).
    const parts = (RULES.en.personPronoun.pattern.test(u.text) ? withNeeds(u) : [u]).flatMap((n) => n.parts);
    return joinPieces(reader.writer.lines(parts.filter((p) => reader.isUser(p.speaker))), language);
  });
  const { dominantEmotion } = residueOf(felt, felt.length, language);
  const carries = (text: string) =>
    dominantEmotion !== '' && residueOf([text], 1, language).dominantEmotion.includes(dominantEmotion);
  const order = (t: string) => (painIn(t, language) ? 0 : carries(t) ? 1 : 2);
  return [0, 1, 2].flatMap((k) => felt.filter((t) => order(t) === k));
}

export interface Stage {
  /** The stage's lines of prose (its topic line apart). */
  lines: string[];
  /** Their clauses, as conversationClauses reads them without speakers (line = index in `lines`). */
  clauses: Clause[];
  keyPoints: string[];
  /** The user's statements that express a feeling (V1's highlights). */
  feelings: string[];
  /** How many statements of the user the stage holds (for the residue's intensity). */
  userStatements: number;
  topic?: string;
  topicLine: string;
  /** Keys that only say who speaks (names of the lines' speakers, "said"): no information in V2. */
  said: Set<string>;
  /** The names the lines' speakers go by. */
  people: string[];
  /** Clauses of `lines` (as conversationClauses reads them, without speakers) as prose, each line's words attributed. */
  prose(parts: Clause[]): string;
  /** Whether a clause of `lines` is the companion's, as 我 / I (the memory's voice), not a named person's. */
  ownWords(part: Clause): boolean;
}

/** A conversation's turn label at a line start (V1's prose never has one). */
const LABELLED = new RegExp(`^\\s*${ROLE_WORD}\\s*[:：]`, 'imu');

const KEY_POINTS = /^(?:【关键点】|\[Key points\])$/;
const HIGHLIGHTS = /^(?:【情感高光】|\[Emotional highlights\])$/;

/** Reads a V2 input: V1's prose and sections, or (in tests, or without V1) a conversation. */
export function readStage(text: string, by: Speakers): Stage {
  const { language, roleCard, speakers = [] } = by;
  // The turns' own labels too: a conversation labelled 我 / 你 or 明天 is no prose (its labels were written in V2).
  const labelled = (s: string) => text.startsWith(`${s}: `) || text.includes(`\n${s}: `);
  if (LABELLED.test(text) || speakers.some(labelled)) {
    const reader = readConversation(text, by);
    const units = analyse(atoms(reader.clauses, true), language, { isUser: reader.isUser });
    const feelings = feelingsOf(reader, units, language);
    const userStatements = units.filter((u) => u.parts.some((p) => reader.isUser(p.speaker))).length;
    const { topic, topicLine } = reader;
    const lines = reader.writer.lines(reader.clauses);
    return prose({ lines, keyPoints: [], feelings, userStatements, topic, topicLine }, by);
  }
  const [lines, keyPoints, feelings]: [string[], string[], string[]] = [[], [], []];
  for (const raw of text.split(/\r?\n/)) {
    const section = raw.match(SECTION);
    const rest = raw.slice(section?.[0].length ?? 0).trim();
    const name = section?.[1] ?? '';
    const items = rest.split(language === 'zh' ? /；/ : /;\s+/).filter((s) => s.trim());
    if (KEY_POINTS.test(name)) keyPoints.push(...items);
    else if (HIGHLIGHTS.test(name)) feelings.push(...items);
    else if (rest) lines.push(rest);
  }
  const topic = lines.length ? topicIn(lines[0]!) : undefined;
  const line = topic ? lines.shift()! : '';
  // The people's statements (not the companion's): the sentences of lines that do not open with it.
  const companion = asSubject(new Voice(language, [], roleCard).companion.ref.name, language);
  const statements = lines
    .filter((l) => subjectOf(l, by) !== companion)
    .reduce((n, l) => n + (l.match(/[。！？!?.]+(?=\s|$)/gu)?.length ?? 1), 0);
  const userStatements = Math.max(statements, feelings.length);
  return prose({ lines, keyPoints, feelings, userStatements, topic, topicLine: line }, by);
}

/** Who a line of V1 speaks for: V1 opens each line with its speaker ("你说…", "Caroline went…"). */
function subjectOf(line: string, { language, roleCard, speakers: roles = [] }: Speakers): string | undefined {
  // A known speaker first, the longest ("Jon said…" is no user J's), after an English line's time ("Last week, Tim…").
  const known = [roleCard.name, roleCard.userName, ...roles].sort((a = '', b = '') => b.length - a.length);
  const body = language === 'en' ? line.replace(RULES.en.timeFirst.pattern, '') : line;
  for (const name of known) if (name && body.startsWith(name)) return name;
  if (language === 'zh') {
    // 你 / 我 too ("你想说的是…"), 我们 and 你们 not: they are no speaker's subject.
    const self = line.match(/^[你我](?![们俩])/u)?.[0];
    const said = line.match(RULES.zh.saidBy.pattern)?.[1];
    const named = [roleCard.name, roleCard.userName, '你', '我'].find((n) => n && zhTimeFirst(line, n));
    return self ?? said ?? named ?? line.match(/^[你我]/u)?.[0];
  }
  // A name in another script before an English word ("阿光 said…": an English memory's Chinese speaker).
  const first =
    body.match(/^([A-Z][\w-]*)(?:['’]s\b)?/)?.[1] ?? body.match(/^(\p{Script=Han}{1,4})(?= [a-z])/u)?.[1];
  if (!first || RULES.en.notASubject.pattern.test(first)) return undefined;
  return first === 'Your' ? 'You' : first === 'My' ? 'I' : first;
}

/** What a stage is read as before its clauses: its lines, sections and topic. */
type Read = Pick<Stage, 'lines' | 'keyPoints' | 'feelings' | 'userStatements' | 'topic' | 'topicLine'>;

function prose(read: Read, by: Speakers): Stage {
  const { language, roleCard, unattributed: nobody = false, speakers: turnRoles = [] } = by;
  const { lines } = read;
  const subjects = lines.map((l) => subjectOf(l, by));
  const card = [roleCard.name, roleCard.userName].filter((n): n is string => !!n);
  // A cut by length falls inside no speaker's name, the turns' roles V1 wrote for 我 too ("阿……").
  const clauses = conversationClauses(lines.join('\n'), { speakers: false, names: [...card, ...turnRoles] });
  const names = namesIn(clauses);
  for (const name of [roleCard.name, roleCard.userName, ...subjects]) if (name) names.add(name);
  // A clause's index is its place among the clauses, each line's in a row.
  const opensLine = (c: Clause) => clauses[c.index - 1]?.line !== c.line;
  // Whose each clause is: its line's speaker, until one reports another's ("小暖问…，你说下周一下午，…": 你's).
  // The companion speaks as 我 / "I", or by name where nobody is 我 (voice.ts), the user as 你 or by name too ("乐乐说…，
  // 小满说…") unless that name is a speaker's label of its own (LoCoMo's "Gina": a person, not the companion).
  const { user: you, companion: self } = CONVENTION[language];
  const user = asSubject(you, language);
  const persona = roleCard.name && asSubject(roleCard.name, language);
  const personaIsCompanion = subjects.includes(user) || !turnRoles.includes(roleCard.name ?? '');
  const byName = !subjects.includes(self) && personaIsCompanion && persona && subjects.includes(persona);
  const companion = byName ? persona : self;
  // The turns' roles too: a named speaker V1 quotes only mid-line ("Deborah问…，Jolene说…") speaks there.
  const speakers = new Set([...subjects, roleCard.name, roleCard.userName, user, self, ...turnRoles]);
  const whose = new Map<number, string | undefined>();
  const speaking = (name: string | undefined) =>
    name !== undefined && (speakers.has(name) || lines.some((l) => l.startsWith(name)));
  // Who speaks after a clause: a later clause goes on in the words of one it reports mid-clause,
  // after a quoted question ('Sam asked, "…?", and 阿光 said 也是…，' before "拥有…").
  let after: string | undefined;
  const written = new Map<string, string>();
  const answers = new Map<number, string | undefined>();
  for (const c of clauses) {
    const opens = opensLine(c);
    const reported = opens ? undefined : c.text.trim().match(RULES[language].reports.pattern)?.[1];
    const who = reported && asSubject(reported, language);
    // A name reporting words is a speaker where a line opens with it ("伙伴问…，小林说它叫团子" goes on as 小林's).
    const own = speaking(who) ? who : opens ? subjects[c.line] : after;
    whose.set(c.index, own);
    const en = language === 'en'; // a Chinese clause is never read for an English answer's speaker
    const answer =
      en && [...c.text.replace(/"[^"]*"/g, '""').matchAll(RULES.en.answerAfter.pattern)].at(-1)?.[1];
    after = answer && speaking(answer) ? answer : own;
    if (after !== own) answers.set(c.index, after);
  }
  return {
    ...read,
    clauses,
    people: [...new Set(subjects.filter((s): s is string => s !== undefined && s !== 'I' && s !== '我'))],
    said: new Set([
      ...subjects.flatMap((s) => (s ? [s.toLowerCase(), `@${s}`] : [])),
      ...RULES.en.attribution.words,
    ]),
    ownWords: (part) => whose.get(part.index) === companion,
    prose(parts) {
      const groups = runsOf(parts, (group, part) => {
        // An answer goes on in the clause reporting it, as V1 wrote ("…, and Deborah said it was full of…").
        const last = group.at(-1)!.index;
        const same = answers.has(last) && answers.get(last) === whose.get(part.index);
        return group[0]!.line === part.line && (same || whose.get(group[0]!.index) === whose.get(part.index));
      });
      let speaking: string | undefined;
      const texts = groups.map((group) => {
        // A stage is rendered many times while it is chosen: each group is written once.
        const key = group.map((c) => c.index).join(',');
        const text = cached(written, key, () => ended(joinClauses(group, language), language));
        // A mark left alone (the 。 after a quote's ”) says nothing: no "Deborah说" before the next line.
        if (!saysSomething(text)) return '';
        const subject = whose.get(group[0]!.index);
        const before = speaking;
        speaking = subject;
        // A line's later words kept without its opening say again who speaks (a capital aside: "Will说…" is
        // will's), unless the words just before are theirs too, or nobody's (a memory stored as one string).
        if (nobody || opensLine(group[0]!) || !subject || before === subject) return text;
        return cached(written, `${key}+`, () =>
          subjectOf(text, by)?.toLowerCase() === subject.toLowerCase()
            ? text
            : attributed(text, subject, language, names, group[0]!.cutBefore === true),
        );
      });
      return joinPieces(texts.filter(Boolean), language);
    },
  };
}
