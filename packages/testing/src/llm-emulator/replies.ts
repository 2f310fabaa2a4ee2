import {
  detectLanguage,
  extractFacts,
  holdsFact,
  type Language,
  measureLength,
  normalise,
} from '@memfade/core';

/**
 * Replies derived from the request, the way a model would answer it: the memory in the data
 * block is cut down to the requested length range, in the memory's own language, keeping the
 * sentences that state most of its facts (names, places, dates, numbers: core's facts.ts), and on
 * a repair turn that names missing facts, the sentences that hold them.
 */

export interface StageRequest {
  /** `pair`: V1 with its V2 draft in one reply (memfade's V2_DRAFT=with-v1). */
  stage: 'v1' | 'v2' | 'pair';
  memory: string;
  target: { min: number; max: number };
  /** The pair's V2 draft target: the last line of the user turn. */
  draftTarget?: { min: number; max: number };
  language: Language;
  /** Facts a repair turn asked to keep (the retention gate's feedback), in its words. */
  keep?: string[];
}

const DATA_BLOCK = /<memory>\n([\s\S]*)\n<\/memory>/;
const RANGE = /(\d+)-(\d+)/g;

/** Finds the memory and its target length in the user turns of a request. */
export function readStageRequest(
  stage: StageRequest['stage'],
  userTexts: string[],
): StageRequest | undefined {
  const turn = userTexts.find((t) => DATA_BLOCK.test(t));
  const memory = turn?.match(DATA_BLOCK)?.[1];
  if (!turn || memory === undefined) return undefined;
  const tail = turn.slice(turn.lastIndexOf('</memory>'));
  // A pair's draft target is its last line; V1's is the last range before it.
  const cut = stage === 'pair' ? tail.lastIndexOf('\n') : tail.length;
  const lastRange = (text: string) => {
    const last = [...text.matchAll(RANGE)].at(-1);
    return last ? { min: Number(last[1]), max: Number(last[2]) } : { min: 1, max: measureLength(memory) };
  };
  const target = lastRange(tail.slice(0, cut));
  const draft = stage === 'pair' ? { draftTarget: lastRange(tail.slice(cut)) } : {};
  const keep = userTexts.slice(userTexts.indexOf(turn) + 1).flatMap(namedFacts);
  const language = detectLanguage(memory);
  return { stage, memory, target, ...draft, language, ...(keep.length && { keep }) };
}

/** The facts a retention repair names (core's retentionFeedback: "keep these: a; b", "请保留这些事实：a、b"). */
function namedFacts(feedback: string): string[] {
  const list =
    feedback.match(/keep these: ([^\n"]+)/)?.[1] ?? feedback.match(/请保留这些事实：([^\n"]+)/)?.[1];
  return list
    ? list
        .split(/; |、/)
        .map((f) => f.trim())
        .filter(Boolean)
    : [];
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

/**
 * Sentences until the middle of the range, never past its maximum: those holding named facts
 * first, then those stating most of the text's facts, then in order; written in their order.
 */
export function extract(
  text: string,
  target: { min: number; max: number },
  language: Language,
  keep: string[] = [],
): string {
  const joiner = language === 'zh' ? '' : ' ';
  const goal = (target.min + target.max) / 2;
  const all = sentences(text);
  const facts = extractFacts(text, language);
  const score = (sentence: string) => {
    const held = normalise(sentence);
    const named = keep.filter((f) => holdsFact(held, f)).length;
    return named * 100 + facts.filter((f) => holdsFact(held, f.text)).length;
  };
  const ranked = all
    .map((sentence, i) => ({ i, score: score(sentence) }))
    .sort((a, b) => b.score - a.score || a.i - b.i);
  const chosen = new Set<number>();
  const join = () => all.filter((_, i) => chosen.has(i)).join(joiner);
  for (const { i } of ranked) {
    chosen.add(i);
    if (measureLength(join()) > target.max) {
      chosen.delete(i);
      continue;
    }
    if (measureLength(join()) >= goal) break;
  }
  return join() || [...text].slice(0, target.max).join('');
}

export function stageFields(request: StageRequest): Record<string, unknown> {
  if (request.stage === 'pair') {
    // Both from the conversation, as the pair prompt asks: V2 is not V1 compressed again.
    const v2 = { ...request, stage: 'v2' as const, target: request.draftTarget ?? request.target };
    return { v1: stageFields({ ...request, stage: 'v1' }), v2: stageFields(v2) };
  }
  const text = extract(request.memory, request.target, request.language, request.keep);
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
