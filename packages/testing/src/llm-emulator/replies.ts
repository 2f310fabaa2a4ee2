import { detectLanguage, type Language, measureLength } from '@memfade/core';

/**
 * Replies derived from the request, the way a model would answer it: the memory in the data
 * block is cut down to the requested length range, in the memory's own language.
 */

export interface StageRequest {
  stage: 'v1' | 'v2';
  memory: string;
  target: { min: number; max: number };
  language: Language;
}

const DATA_BLOCK = /<memory>\n([\s\S]*)\n<\/memory>/;
const RANGE = /(\d+)-(\d+)/g;

/** Finds the memory and its target length in the user turns of a request. */
export function readStageRequest(stage: 'v1' | 'v2', userTexts: string[]): StageRequest | undefined {
  const turn = userTexts.find((t) => DATA_BLOCK.test(t));
  const memory = turn?.match(DATA_BLOCK)?.[1];
  if (!turn || memory === undefined) return undefined;
  const ranges = [...turn.slice(turn.lastIndexOf('</memory>')).matchAll(RANGE)];
  const last = ranges[ranges.length - 1];
  const target = last
    ? { min: Number(last[1]), max: Number(last[2]) }
    : { min: 1, max: measureLength(memory) };
  return { stage, memory, target, language: detectLanguage(memory) };
}

function sentences(text: string): string[] {
  return text
    .split('\n')
    .map((line) =>
      line.replace(/^\s*[\p{L}_ -]{1,20}[:：]\s*/u, '').replace(/^【[^】]*】|^\[[^\]]*\]\s*/u, ''),
    )
    .flatMap((line) => line.match(/[^。！？!?.；;]+[。！？!?.；;]*/gu) ?? [])
    .map((s) => s.trim())
    .filter(Boolean);
}

/** Sentences in order until the middle of the range, never past its maximum. */
export function extract(text: string, target: { min: number; max: number }, language: Language): string {
  const joiner = language === 'zh' ? '' : ' ';
  const goal = (target.min + target.max) / 2;
  let out = '';
  for (const sentence of sentences(text)) {
    const next = out ? out + joiner + sentence : sentence;
    if (measureLength(next) > target.max) continue;
    out = next;
    if (measureLength(out) >= goal) break;
  }
  return out || [...text].slice(0, target.max).join('');
}

export function stageFields(request: StageRequest): Record<string, unknown> {
  const text = extract(request.memory, request.target, request.language);
  const points = sentences(text).slice(0, 3);
  if (request.stage === 'v1') {
    return {
      compressedContent: text,
      keyPoints: points,
      emotionalHighlights: [],
      personalityAdjustment: { emphasized: [], deemphasized: [] },
    };
  }
  return {
    coreMemory: text,
    coreMemoryPoints: points,
    memoryTraces: { clear: points.slice(0, 1), fuzzy: points.slice(1), vague: [] },
    forgotten: { details: [], reason: '' },
    emotionalResidue: { dominantEmotion: '', intensity: 0, summary: '' },
    personalityNotes: '',
  };
}

/** A rough token count: about one token per Chinese character or per four Latin characters. */
export function tokens(text: string): number {
  let han = 0;
  for (const ch of text) if (ch.charCodeAt(0) > 0x2e80) han++;
  return han + Math.ceil((text.length - han) / 4);
}

export const WRONG_LANGUAGE: Record<Language, string> = {
  zh: 'The user talked about their day, what they did and how they felt about it.',
  en: '用户聊了聊今天发生的事情，以及自己的感受。',
};
