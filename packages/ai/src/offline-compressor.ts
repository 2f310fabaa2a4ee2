import type { CompressionRequest, Compressor, Language, ModelReply, V1Fields, V2Fields } from '@memfade/core';
import { measureLength, ZERO_USAGE } from '@memfade/core';
import { EMOTION_NAMES, type Emotion, emotionsIn } from './lexicon.js';
import { analyse, rank, type Selection, select, type Unit } from './scoring.js';
import { conversationClauses, conversationSentences } from './segment.js';

const MODEL = 'offline-extractive-1';
const PROMPT_VERSION = 'offline-v2';

const TEXT = {
  zh: { forgotten: '抽取式压缩未选中的细节', interests: '与人格相关：', listSep: '、' },
  en: {
    forgotten: 'details the extractive compressor did not keep',
    interests: 'Relates to: ',
    listSep: ', ',
  },
} as const;

/** How many clauses each list holds. */
const KEY_POINTS = 5;
const HIGHLIGHTS = 3;

/**
 * How much V1 and V2 favour short clauses: V1 has room for half the conversation and ranks by
 * information; V2 has a few hundred characters and ranks by information per character.
 */
const V1_DENSITY = 0.5;
const V2_DENSITY = 1;

/** Speaker labels that are roles, not names: V2's plain prose leaves them out. */
const ROLES = new Set(['user', 'assistant', 'human', 'ai', 'bot', 'system', 'model', '用户', '助手']);

/** The persona's interests as lowercase terms: hobbies and personality words from the role card. */
function interests(request: CompressionRequest): string[] {
  const card = request.roleCard;
  return [card.hobbies, card.personality, ...(card.values ?? [])]
    .filter((v): v is string => Boolean(v))
    .flatMap((v) => v.split(/[，,、;；/]+|\s+and\s+/))
    .map((v) => v.trim().toLowerCase())
    .filter((v) => v.length >= 2);
}

const HAN = /\p{Script=Han}/u;
const CLAUSE_MARK = /[，、；,;：:]$/u;

/** A clause shown on its own ends as a sentence does, not on the comma it had before the next clause. */
function closed(text: string): string {
  return CLAUSE_MARK.test(text) ? text.slice(0, -1) + (HAN.test(text) ? '。' : '.') : text;
}

/**
 * An English clause shown without the clause before it starts as a sentence does: "but I'm doing
 * my best" reads "I'm doing my best".
 */
function opened(text: string): string {
  if (HAN.test(text)) return text;
  const rest = text.replace(/^(?:and|but|so|or|plus)\s+(?=\S)/i, '');
  return rest.charAt(0).toUpperCase() + rest.slice(1);
}

const TERMINATED = /[。！？…!?.][”’」』）)"']*$/u;

function sentenceEnd(text: string): string {
  if (TERMINATED.test(text)) return '';
  return HAN.test(text) ? '。' : '.';
}

const joiner = (language: Language) => (language === 'zh' ? '' : ' ');

/** Clause texts as they read in an extract: whole sentences where the clauses follow each other. */
function texts(units: Unit[]): string[] {
  const follows = (a: Unit | undefined, b: Unit | undefined) =>
    a !== undefined && b !== undefined && b.index === a.index + 1 && b.sentence === a.sentence;
  return units.map((u, i) => {
    const text = u.first || follows(units[i - 1], u) ? u.text : opened(u.text);
    return follows(u, units[i + 1]) ? text : closed(text);
  });
}

/** A conversation extract: each turn under its speaker, as the input had it. */
function renderConversation(units: Unit[], language: Language, roles = true): string {
  const shown = texts(units);
  const lines: string[] = [];
  let previous: Unit | undefined;
  units.forEach((u, i) => {
    const label = u.speaker && (roles || !ROLES.has(u.speaker.toLowerCase())) ? u.speaker : undefined;
    if (previous && u.speaker === previous.speaker) {
      // Two turns of one speaker share a line: the first must end as a sentence, or the next
      // stage would read them as one ("<3 I'm gonna...").
      const end = previous.line === u.line ? '' : sentenceEnd(lines[lines.length - 1]!);
      lines[lines.length - 1] += end + joiner(language) + shown[i];
    } else lines.push(label ? `${label}: ${shown[i]}` : shown[i]!);
    previous = u;
  });
  return lines.join(roles ? '\n' : joiner(language));
}

/** What adding a clause costs: its text, and a speaker label when it opens a new turn. */
function costIn(roles: boolean) {
  return (unit: Unit, chosen: Unit[]): number => {
    const labelled = unit.speaker && (roles || !ROLES.has(unit.speaker.toLowerCase()));
    const opensTurn = labelled && !chosen.some((c) => c.line === unit.line);
    return unit.length + 1 + (opensTurn ? measureLength(unit.speaker!) + 2 : 0);
  };
}

/** A clause as a key point: whole, with its speaker when it says "I" (who did what matters). */
function point(unit: Unit): string {
  const text = closed(unit.first ? unit.text : opened(unit.text));
  const firstPerson = /\b(?:I|[Mm]y|[Ww]e|[Oo]ur|[Uu]s)\b|我/u.test(text);
  return unit.speaker && firstPerson ? `${unit.speaker}: ${text}` : text;
}

/** Drops clauses whose text repeats a kept one (a fact said twice, V1's key points quoted in V2). */
function unique(units: Unit[]): Unit[] {
  const seen = new Set<string>();
  return units.filter((u) => {
    const key = closed(u.text);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/**
 * A deterministic extractive compressor: no network, no tokens. It keeps the clauses of the
 * memory that tell the most (dates, numbers, names, first-person plans and events) and drops
 * small talk, so its output is always in the memory's language and never cuts a clause in two.
 * It leaves empty what only a model could know (e.g. what the persona would de-emphasise).
 */
export class OfflineCompressor implements Compressor {
  readonly name = 'offline';

  async compressV1(request: CompressionRequest): Promise<ModelReply<V1Fields>> {
    const { language } = request;
    const terms = interests(request);
    const units = analyse(conversationClauses(request.text), language, terms);
    const how: Selection = {
      cost: costIn(true),
      density: V1_DENSITY,
      render: (u) => renderConversation(u, language),
    };
    const chosen = select(units, request.targetLength, how);
    const ranked = unique(rank(chosen, V1_DENSITY)).filter((u) => !u.filler);
    const lower = request.text.toLowerCase();
    return this.reply({
      compressedContent: how.render(chosen),
      keyPoints: ranked.slice(0, KEY_POINTS).map(point),
      emotionalHighlights: ranked
        .filter((u) => u.emotional)
        .slice(0, HIGHLIGHTS)
        .map(point),
      personalityAdjustment: { emphasized: terms.filter((t) => lower.includes(t)), deemphasized: [] },
    });
  }

  async compressV2(request: CompressionRequest): Promise<ModelReply<V2Fields>> {
    const { language } = request;
    const terms = interests(request);
    // V2 input is V1's text followed by its key points and highlights: the text is what can be
    // kept; the points only say which of its clauses V1 found most telling.
    const clauses = conversationClauses(request.text);
    const body = clauses.filter((c) => !c.section);
    const hints = new Set(
      clauses.filter((c) => c.section).map((c) => closed(c.text.replace(/^[^:：]{1,20}[:：]\s*/u, ''))),
    );
    const units = unique(analyse(body.length ? body : clauses, language, terms)).map((u) =>
      hints.has(closed(u.text)) ? { ...u, bonus: u.bonus + 1 } : u,
    );
    // Names stay ("Caroline: ..."), roles go; when the text without its role labels is too short
    // for the target (V1 kept little), the labels stay too.
    const plain = renderConversation(units, language, false);
    const roles = measureLength(plain) < request.targetLength.min;
    const how: Selection = {
      cost: costIn(roles),
      density: V2_DENSITY,
      render: (u) => renderConversation(u, language, roles),
    };
    const chosen = select(units, request.targetLength, how);
    const ranked = rank(chosen, V2_DENSITY).filter((u) => !u.filler);
    const left = units.filter((u) => !chosen.includes(u));
    const dropped = rank(
      left.filter((u) => !u.filler),
      V2_DENSITY,
    );
    const matched = terms.filter((t) => request.text.toLowerCase().includes(t));
    return this.reply({
      coreMemory: how.render(chosen),
      coreMemoryPoints: ranked.slice(0, 3).map(point),
      memoryTraces: {
        clear: ranked.slice(0, 2).map(point),
        fuzzy: ranked.slice(2, 5).map(point),
        vague: dropped.slice(0, 3).map(point),
      },
      forgotten: {
        details: dropped.slice(3, 6).map(point),
        reason: left.length ? TEXT[language].forgotten : '',
      },
      emotionalResidue: residue(request.text, language, units),
      personalityNotes: matched.length ? TEXT[language].interests + matched.join(TEXT[language].listSep) : '',
    });
  }

  private reply<T>(fields: T): ModelReply<T> {
    return { fields, usage: ZERO_USAGE, model: MODEL, promptVersion: PROMPT_VERSION };
  }
}

/**
 * How the memory felt, by the emotion lexicon: the emotion most of its sentences express, how
 * many of its sentences express one (0 when none does), and the most telling whole sentence
 * that carries it.
 */
function residue(text: string, language: Language, units: Unit[]): V2Fields['emotionalResidue'] {
  const sentences = conversationSentences(text).filter((s) => !s.section);
  const felt = sentences.map((s) => ({ sentence: s, emotions: emotionsIn(s.text, language) }));
  const counts = new Map<Emotion, number>();
  for (const { emotions } of felt) for (const e of emotions) counts.set(e, (counts.get(e) ?? 0) + 1);
  const dominant = [...counts.entries()].sort((a, b) => b[1] - a[1])[0]?.[0];
  if (!dominant) return { dominantEmotion: '', intensity: 0, summary: '' };
  const emotional = felt.filter((f) => f.emotions.length > 0).length;
  const information = (index: number) =>
    units.filter((u) => u.sentence === index).reduce((sum, u) => sum + u.bonus + weightOf(u.keys), 0);
  const carrier = felt
    .filter((f) => f.emotions.includes(dominant))
    .sort(
      (a, b) =>
        information(b.sentence.index) - information(a.sentence.index) || a.sentence.index - b.sentence.index,
    )[0];
  return {
    dominantEmotion: EMOTION_NAMES[language][dominant],
    intensity: Math.round((emotional / sentences.length) * 100) / 100,
    summary: carrier?.sentence.text ?? '',
  };
}

function weightOf(keys: Map<string, number>): number {
  let total = 0;
  for (const weight of keys.values()) total += weight;
  return total;
}
