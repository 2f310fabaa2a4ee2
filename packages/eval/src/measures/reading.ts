import { escapeRegExp, measureLength, normalise, rawText } from '@memfade/core';
import type { MemoryView } from './types.js';

/**
 * What every measure needs to read a memory against its conversation, computed once per memory:
 * the speakers, a pattern for their labels, the raw sentences, and where a stage's sentence came
 * from (which turn, which raw sentence). Linear in the conversation's length.
 */

/** Role words that label a speaker in any language (a stage must never carry them as labels). */
export const ROLE_WORDS = [
  'user',
  'assistant',
  'human',
  'ai',
  'bot',
  'usr',
  'system',
  'model',
  'companion',
  'speaker',
  '用户',
  '助手',
  '系统',
  '机器人',
  '伙伴',
  '人工智能',
];

const ROLE_SET = new Set(ROLE_WORDS);
export const isRoleWord = (role: string) => ROLE_SET.has(role.trim().toLowerCase());

/**
 * Where a sentence ends: after 。！？!?… (and closing quotes), after a full stop (and closing quotes:
 * `said, "…days ago."`) and a space, at a line end; not after an initial or a title ("J.K. Rowling",
 * "Dr. Patel").
 */
const SENTENCE_CUT =
  /[。！？!?…]+[”’」』）)"']*|(?<!\b(?:[A-Z]|Dr|Mr|Mrs|Ms|St|Prof|vs|e\.g|i\.e))\.[”’」』）)"']*(?=\s|$)|\n/g;

/** Sentences of a text: cut after 。！？!?…, after a full stop followed by a space, and at line ends. */
export function sentences(text: string): string[] {
  const out: string[] = [];
  let start = 0;
  for (const m of text.matchAll(SENTENCE_CUT)) {
    const end = m.index + m[0].length;
    const piece = text.slice(start, end).trim();
    if (piece) out.push(piece);
    start = end;
  }
  const rest = text.slice(start).trim();
  if (rest) out.push(rest);
  return out;
}

/** Latin words get word boundaries: "Al" must not match inside "Sal". */
const bounded = (word: string) => (/^[A-Za-z]/.test(word) ? `\\b${escapeRegExp(word)}` : escapeRegExp(word));

const FIRST_PERSON_EN = /\b(?:I|I['’](?:m|ve|ll|d)|[Mm]e|[Mm]y|[Mm]ine|[Mm]yself|[Ww]e|[Oo]ur|[Uu]s)\b/;
const SINGULAR_EN = /\b(?:I|I['’](?:m|ve|ll|d)|[Mm]e|[Mm]y|[Mm]ine|[Mm]yself)\b/;
const HAN_TEXT = /\p{Script=Han}/u;

/** A sentence in the first person (我, 我们; I, me, we...); in Chinese text only 我 counts (not "Shook Me"). */
export const isFirstPerson = (sentence: string) =>
  HAN_TEXT.test(sentence) ? /我/.test(sentence) : FIRST_PERSON_EN.test(sentence);

/** One speaker's "I" (我, not 我们 or 我国; I, me, my): "we" is both of them, it fuses no one. */
export const isFirstPersonSingular = (sentence: string) =>
  HAN_TEXT.test(sentence) ? /(?<![自忘])我(?![们俩国])/.test(sentence) : SINGULAR_EN.test(sentence);

const EN_WORD = /[a-z0-9'’]{3,}/g;
const HAN_PAIR = /(?=(\p{Script=Han}{2}))/gu;

/** Content keys of a text: English words of 3+ letters, or pairs of Chinese characters. */
export function keysOf(text: string): Set<string> {
  const lower = text.toLowerCase();
  const keys = new Set<string>(lower.match(EN_WORD) ?? []);
  if (HAN_TEXT.test(lower)) for (const m of lower.matchAll(HAN_PAIR)) keys.add(m[1]!);
  return keys;
}

export interface Reading {
  view: MemoryView;
  /** Distinct roles of the conversation, in order of first turn. */
  speakers: string[];
  /** Roles that are names (not role words): who a reader should see named. */
  names: string[];
  /** Finds a speaker label (role word or this conversation's role, then a colon) anywhere. */
  labels: RegExp;
  /** Each turn's role and whether it is the user's; its normalised text and content keys are made when first asked for. */
  turns: { role: string; user: boolean; readonly norm: string; readonly keys: Set<string> }[];
  raw: { text: string; norm: string; turn: number }[];
  /** The raw sentences by their normalised text: most stage sentences are found here at once. */
  rawIndex: Map<string, number>;
  /** The sentences of a stage text, split once however many measures read them. */
  split(text: string): string[];
  /** The raw conversation as the pipeline formats it, and its length as it measures it. */
  rawText: string;
  rawLength: number;
}

const hasColon = (text: string) => text.includes(':') || text.includes('：');

/** Where a speaker label starts in a text, or -1 (most texts have no colon at all: no pattern run). */
export function firstLabel(reading: Reading, text: string): number {
  return hasColon(text) ? text.search(reading.labels) : -1;
}

/** The speaker labels in a text. */
export function labelsIn(reading: Reading, text: string): RegExpMatchArray[] {
  return hasColon(text) ? [...text.matchAll(reading.labels)] : [];
}

export function read(view: MemoryView): Reading {
  const speakers = [...new Set(view.turns.map((t) => t.role))];
  const words = [...new Set([...ROLE_WORDS, ...speakers.map((s) => s.trim()).filter(Boolean)])].sort(
    (a, b) => b.length - a.length,
  );
  const labels = new RegExp(
    `(?:^|(?<=[\\s。！？!?….;；,，]))(?:${words.map(bounded).join('|')})\\s*[:：]`,
    'giu',
  );
  const turns = view.turns.map((t) => {
    let norm: string | undefined;
    let keys: Set<string> | undefined;
    return {
      role: t.role,
      user: t.role === view.userRole,
      get norm() {
        norm ??= normalise(t.text);
        return norm;
      },
      get keys() {
        keys ??= keysOf(t.text);
        return keys;
      },
    };
  });
  const raw = view.turns.flatMap((t, turn) =>
    sentences(t.text).map((text) => ({ text, norm: normalise(text), turn })),
  );
  const names = speakers.filter((s) => !isRoleWord(s));
  const text = rawText(view.turns);
  const rawIndex = new Map<string, number>();
  raw.forEach((s, i) => {
    if (!rawIndex.has(s.norm)) rawIndex.set(s.norm, i);
  });
  const split = new Map<string, string[]>();
  return {
    view,
    speakers,
    names,
    labels,
    turns,
    raw,
    rawIndex,
    split: (text) => split.get(text) ?? (split.set(text, sentences(text)).get(text) as string[]),
    rawText: text,
    rawLength: measureLength(text),
  };
}

/** A stage sentence without a speaker label at its start. */
export function unlabelled(reading: Reading, sentence: string): string {
  if (!hasColon(sentence)) return sentence;
  reading.labels.lastIndex = 0;
  const m = reading.labels.exec(sentence);
  return m && m.index === 0 ? sentence.slice(m[0].length).trim() : sentence;
}

/**
 * The turn a stage sentence came from: the one turn that holds it word for word, else the turn
 * sharing at least 60% of its content keys (a sentence reworded a little); undefined when no
 * turn does, or turns of two speakers do.
 */
export function sourceTurn(reading: Reading, sentence: string): number | undefined {
  const text = unlabelled(reading, sentence);
  const norm = normalise(text);
  if ([...norm].length < 4) return undefined;
  const exact = reading.turns.flatMap((t, i) => (t.norm.includes(norm) ? [i] : []));
  if (exact.length) {
    const roles = new Set(exact.map((i) => reading.turns[i]!.role));
    return roles.size === 1 ? exact[0] : undefined;
  }
  const keys = keysOf(text);
  if (keys.size < 3) return undefined;
  let best: number | undefined;
  let bestShare = 0.6;
  reading.turns.forEach((t, i) => {
    let shared = 0;
    for (const key of keys) if (t.keys.has(key)) shared++;
    const share = shared / keys.size;
    if (share > bestShare) {
      best = i;
      bestShare = share;
    }
  });
  return best;
}

/** The index of the raw sentence a stage sentence came from (word for word, either way round), or undefined. */
export function rawSentence(reading: Reading, sentence: string): number | undefined {
  const norm = normalise(unlabelled(reading, sentence));
  if ([...norm].length < 4) return undefined;
  const exact = reading.rawIndex.get(norm);
  if (exact !== undefined) return exact;
  const at = reading.raw.findIndex(
    (s) => s.norm.includes(norm) || (s.norm.length >= 4 && norm.includes(s.norm)),
  );
  return at >= 0 ? at : undefined;
}

/** Reporting words: "我说", "你问", "I told", "Emily said" say who is speaking. */
const REPORTED_ZH = /(?:你|您|我|他|她|用户)(?:说|问|讲|提到|告诉|回答|聊到)/u;
const REPORTED_EN =
  /\b(?:I|you|he|she|they|we|the user)\s+(?:said|say|says|told|tell|asked|ask|answered|mentioned|replied|shared|explained)\b/i;

/**
 * Whether a sentence says whose it is: it names a speaker (a named role, the role card's persona
 * or user), says "the user" / 用户, or reports speech ("我说", "你问", "I told you").
 */
export function attributed(reading: Reading, sentence: string): boolean {
  const lower = sentence.toLowerCase();
  const names = [...reading.names, ...(reading.view.knownNames ?? [])];
  if (names.some((name) => name && lower.includes(name.toLowerCase()))) return true;
  return REPORTED_ZH.test(sentence) || REPORTED_EN.test(sentence);
}
