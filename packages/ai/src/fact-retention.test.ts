import { readFileSync } from 'node:fs';
import { type CompressionRequest, formatV1ForV2, type Language, measureLength } from '@memfade/core';
import { describe, expect, it } from 'vitest';
import { OfflineCompressor } from './offline-compressor.js';

/**
 * Fact retention of the offline compressor on real conversations it was not written for
 * (../shared/data, issue 15): the share of the gold facts present in the raw text that V1's
 * compressed content and V2's core memory still contain. KdConv travel (Chinese) annotates
 * utterances with knowledge triples; LoCoMo (English) has QA answers with evidence turns.
 */

const DATA = new URL('../../../../shared/data/', import.meta.url);
const SAMPLE = 50;

interface Conversation {
  text: string;
  facts: string[];
}

/** Lowercase, without white space, punctuation or symbols: how a fact is matched in a text. */
const normalise = (text: string) => text.toLowerCase().replace(/[\s\p{P}\p{S}]/gu, '');

/** The facts whose normalised value occurs in the raw text: the upper bound of what can be kept. */
function present(text: string, values: string[]): string[] {
  const raw = normalise(text);
  return [...new Set(values.map(normalise))].filter((v) => v && raw.includes(v));
}

interface KdConvDialogue {
  messages: { message: string; attrs?: { attrvalue: string }[] }[];
}

function kdconv(): Conversation[] {
  const dialogues = JSON.parse(
    readFileSync(new URL('kdconv/travel_test.json', DATA), 'utf8'),
  ) as KdConvDialogue[];
  return dialogues.slice(0, SAMPLE).map((d) => {
    const text = d.messages.map((m, i) => `${i % 2 ? 'assistant' : 'user'}: ${m.message}`).join('\n');
    const values = d.messages.flatMap((m) => (m.attrs ?? []).map((a) => a.attrvalue));
    return { text, facts: present(text, values) };
  });
}

interface LoCoMoSample {
  conversation: Record<string, unknown>;
  qa: { answer?: unknown; evidence?: string[]; category: number }[];
}

/** LoCoMo sessions in order, each with the category 1-4 answers whose evidence lies in it. */
function locomo(): Conversation[] {
  const samples = JSON.parse(readFileSync(new URL('locomo/locomo7.json', DATA), 'utf8')) as LoCoMoSample[];
  const out: Conversation[] = [];
  for (const sample of samples) {
    for (const [key, turns] of Object.entries(sample.conversation)) {
      const session = key.match(/^session_(\d+)$/)?.[1];
      if (!session || !Array.isArray(turns) || out.length >= SAMPLE) continue;
      const text = (turns as { speaker: string; text: string }[])
        .map((t) => `${t.speaker}: ${t.text}`)
        .join('\n');
      const answers = sample.qa
        .filter((q) => q.category >= 1 && q.category <= 4)
        .filter((q) => q.evidence?.some((e) => e.startsWith(`D${session}:`)))
        .filter((q) => typeof q.answer === 'string' || typeof q.answer === 'number')
        .map((q) => String(q.answer));
      out.push({ text, facts: present(text, answers) });
    }
  }
  return out;
}

const SPEAKER = /^[\p{L}\p{N}_ -]{1,20}[:：]\s*/u;

/**
 * Whether `piece` (a key point, a trace, a residue) is a whole clause of `input`: found there,
 * and followed (after any spaces) by punctuation or the end of a line, never by the rest of a phrase.
 */
function wholeClause(input: string, piece: string): boolean {
  const core = piece
    .replace(SPEAKER, '')
    .replace(/[\p{P}\s]+$/u, '')
    .toLowerCase();
  const text = input.toLowerCase();
  for (let at = text.indexOf(core); at >= 0; at = text.indexOf(core, at + 1)) {
    const next = text.slice(at + core.length).match(/^[^\S\n]*(.?)/su)![1]!;
    if (next === '' || next === '\n' || /\p{P}/u.test(next)) return true;
  }
  return false;
}

const V2_LENGTH = { zh: { min: 100, max: 200 }, en: { min: 250, max: 500 } };

interface Measure {
  facts: number;
  v1Kept: number;
  v2Kept: number;
  v1Ratios: number[];
  v2Lengths: number[];
  v1InRange: number;
  v2InRange: number;
  /** Key points, highlights, traces and residue summaries that are not a whole clause of their input. */
  fragments: string[];
}

/** Compresses each conversation to V1 and V2 the way the pipeline does, and counts the facts kept. */
async function measure(conversations: Conversation[], language: Language): Promise<Measure> {
  const compressor = new OfflineCompressor();
  const m: Measure = {
    facts: 0,
    v1Kept: 0,
    v2Kept: 0,
    v1Ratios: [],
    v2Lengths: [],
    v1InRange: 0,
    v2InRange: 0,
    fragments: [],
  };
  const roleCard = { userId: 'u', language };
  for (const { text, facts } of conversations) {
    const length = measureLength(text);
    const v1Target = { min: Math.ceil(length * 0.3), max: Math.floor(length * 0.5) };
    const base: Omit<CompressionRequest, 'text' | 'targetLength'> = {
      memoryId: 'm',
      language,
      personality: '',
      roleCard,
    };
    const v1 = (await compressor.compressV1({ ...base, text, targetLength: v1Target })).fields;
    const v1Length = measureLength(v1.compressedContent);
    const v2Text = formatV1ForV2({ ...v1 } as Parameters<typeof formatV1ForV2>[0], language);
    const v2Target = {
      min: Math.min(V2_LENGTH[language].min, v1Length),
      max: Math.min(V2_LENGTH[language].max, v1Length),
    };
    const v2 = (await compressor.compressV2({ ...base, text: v2Text, targetLength: v2Target })).fields;
    const v2Length = measureLength(v2.coreMemory);
    const pieces = [
      ...v1.keyPoints,
      ...v1.emotionalHighlights,
      ...v2.coreMemoryPoints,
      ...v2.memoryTraces.clear,
      ...v2.memoryTraces.fuzzy,
      ...v2.memoryTraces.vague,
      ...v2.forgotten.details,
      ...(v2.emotionalResidue.summary ? [v2.emotionalResidue.summary] : []),
    ];
    m.fragments.push(...pieces.filter((p) => !wholeClause(text, p)));
    const v1Norm = normalise(v1.compressedContent);
    const v2Norm = normalise(v2.coreMemory);
    m.facts += facts.length;
    m.v1Kept += facts.filter((f) => v1Norm.includes(f)).length;
    m.v2Kept += facts.filter((f) => v2Norm.includes(f)).length;
    m.v1Ratios.push(v1Length / length);
    m.v2Lengths.push(v2Length);
    if (v1Length >= v1Target.min && v1Length <= v1Target.max) m.v1InRange++;
    if (v2Length >= v2Target.min && v2Length <= v2Target.max) m.v2InRange++;
  }
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  console.log(
    `${language}: ${conversations.length} conversations, ${m.facts} facts; V1 keeps ${((100 * m.v1Kept) / m.facts).toFixed(1)}% ` +
      `(ratio ${mean(m.v1Ratios).toFixed(3)}, ${m.v1InRange} in range), V2 keeps ${((100 * m.v2Kept) / m.facts).toFixed(1)}% ` +
      `(mean length ${mean(m.v2Lengths).toFixed(0)}, ${m.v2InRange} in range)`,
  );
  return m;
}

describe('fact retention of the offline compressor on ../shared/data', () => {
  it('keeps the Chinese facts of KdConv travel chats', async () => {
    const m = await measure(kdconv(), 'zh');
    expect(m.facts).toBeGreaterThan(200);
    expect(m.fragments).toEqual([]);
    expect(m.v1InRange).toBe(SAMPLE);
    expect(m.v2InRange).toBe(SAMPLE);
    // Measured: 83% and 74% (the sentence-scoring compressor before it: 40% and 27%).
    expect(m.v1Kept / m.facts).toBeGreaterThanOrEqual(0.78);
    expect(m.v2Kept / m.facts).toBeGreaterThanOrEqual(0.7);
  });

  it('keeps the English facts of LoCoMo sessions', async () => {
    const m = await measure(locomo(), 'en');
    expect(m.facts).toBeGreaterThan(50);
    expect(m.fragments).toEqual([]);
    expect(m.v1InRange).toBe(SAMPLE);
    expect(m.v2InRange).toBe(SAMPLE);
    // Measured: 84% and 56% (the sentence-scoring compressor before it: 47% and 19%).
    expect(m.v1Kept / m.facts).toBeGreaterThanOrEqual(0.8);
    expect(m.v2Kept / m.facts).toBeGreaterThanOrEqual(0.52);
  });
});
