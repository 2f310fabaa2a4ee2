import type { CompressionRequest, Compressor, Language, ModelReply, V1Fields, V2Fields } from '@memfade/core';
import { ZERO_USAGE } from '@memfade/core';
import { EMOTION_NAMES, type Emotion, emotionsIn } from './lexicon.js';
import { type Scored, scoreSentences, select, shorten } from './scoring.js';
import { conversationSentences } from './segment.js';

const MODEL = 'offline-extractive-1';
const PROMPT_VERSION = 'offline-v1';

const TEXT = {
  zh: { forgotten: '抽取式压缩未选中的细节', interests: '与人格相关：', listSep: '、' },
  en: {
    forgotten: 'details the extractive compressor did not keep',
    interests: 'Relates to: ',
    listSep: ', ',
  },
} as const;

/** The persona's interests as lowercase terms: hobbies and personality words from the role card. */
function interests(request: CompressionRequest): string[] {
  const card = request.roleCard;
  return [card.hobbies, card.personality, ...(card.values ?? [])]
    .filter((v): v is string => Boolean(v))
    .flatMap((v) => v.split(/[，,、;；/]+|\s+and\s+/))
    .map((v) => v.trim().toLowerCase())
    .filter((v) => v.length >= 2);
}

function renderConversation(sentences: Scored[], language: Language): string {
  const lines: string[] = [];
  let speaker: string | undefined;
  const joiner = language === 'zh' ? '' : ' ';
  for (const s of sentences) {
    if (lines.length && s.speaker === speaker) lines[lines.length - 1] += joiner + s.text;
    else lines.push(s.speaker ? `${s.speaker}: ${s.text}` : s.text);
    speaker = s.speaker;
  }
  return lines.join('\n');
}

function renderPlain(sentences: Scored[], language: Language): string {
  return sentences.map((s) => s.text).join(language === 'zh' ? '' : ' ');
}

const TRAILING_PUNCTUATION = /[\p{P}\s]+$/u;

/** Drops sentences repeated inside others (V2 input repeats V1's key points, shortened). */
function uniqueTexts(sentences: Scored[]): Scored[] {
  const core = (s: Scored) => s.text.replace(TRAILING_PUNCTUATION, '');
  const kept: Scored[] = [];
  for (const s of [...sentences].sort((a, b) => b.length - a.length)) {
    if (!kept.some((k) => core(k).includes(core(s)))) kept.push(s);
  }
  return kept.sort((a, b) => a.index - b.index);
}

/**
 * A deterministic extractive compressor: no network, no tokens. It keeps the most informative
 * sentences of the memory itself, so its output is always in the memory's language, and it
 * leaves empty what only a model could know (e.g. what the persona would de-emphasise).
 */
export class OfflineCompressor implements Compressor {
  readonly name = 'offline';

  async compressV1(request: CompressionRequest): Promise<ModelReply<V1Fields>> {
    const terms = interests(request);
    const scored = scoreSentences(conversationSentences(request.text), request.language, terms);
    const chosen = select(scored, request.targetLength, (s) => renderConversation(s, request.language));
    const best = [...scored].sort((a, b) => b.score - a.score);
    const lower = request.text.toLowerCase();
    return this.reply({
      compressedContent: renderConversation(chosen, request.language),
      keyPoints: uniqueTexts(best)
        .slice(0, 4)
        .map((s) => shorten(s.text, 60)),
      emotionalHighlights: scored
        .filter((s) => s.emotional)
        .slice(0, 3)
        .map((s) => shorten(s.text, 60)),
      personalityAdjustment: { emphasized: terms.filter((t) => lower.includes(t)), deemphasized: [] },
    });
  }

  async compressV2(request: CompressionRequest): Promise<ModelReply<V2Fields>> {
    const { language } = request;
    const terms = interests(request);
    // V2 input is V1's text followed by its key points and highlights: the text is what can be
    // kept; the points only say which of its sentences matter most.
    const all = conversationSentences(request.text);
    const body = all.filter((s) => !s.section);
    const hints = all.filter((s) => s.section).map((s) => [...s.text].slice(0, 12).join(''));
    const scored = scoreSentences(body.length ? body : all, language, terms).map((s) =>
      hints.some((h) => s.text.includes(h)) ? { ...s, score: s.score + 1 } : s,
    );
    const sentences = uniqueTexts(scored);
    const chosen = select(sentences, request.targetLength, (s) => renderPlain(s, language));
    const best = [...chosen].sort((a, b) => b.score - a.score);
    const dropped = sentences.filter((s) => !chosen.some((c) => c.index === s.index));
    const emotions = sentences.flatMap((s) => emotionsIn(s.text, language));
    const dominant = mostFrequent(emotions);
    const emotional = sentences.find((s) => s.emotional);
    const matched = terms.filter((t) => request.text.toLowerCase().includes(t));
    return this.reply({
      coreMemory: renderPlain(chosen, language),
      coreMemoryPoints: best.slice(0, 3).map((s) => shorten(s.text, 40)),
      memoryTraces: {
        clear: best.slice(0, 2).map((s) => shorten(s.text, 40)),
        fuzzy: best.slice(2).map((s) => shorten(s.text, 40)),
        vague: dropped.slice(0, 3).map((s) => shorten(s.text, 20)),
      },
      forgotten: {
        details: dropped.slice(3, 6).map((s) => shorten(s.text, 20)),
        reason: dropped.length ? TEXT[language].forgotten : '',
      },
      emotionalResidue: {
        dominantEmotion: dominant ? EMOTION_NAMES[language][dominant] : '',
        intensity: sentences.length
          ? Math.min(1, Math.round((emotions.length / sentences.length) * 100) / 100)
          : 0,
        summary: emotional ? shorten(emotional.text, 60) : '',
      },
      personalityNotes: matched.length ? TEXT[language].interests + matched.join(TEXT[language].listSep) : '',
    });
  }

  private reply<T>(fields: T): ModelReply<T> {
    return { fields, usage: ZERO_USAGE, model: MODEL, promptVersion: PROMPT_VERSION };
  }
}

function mostFrequent(items: Emotion[]): Emotion | undefined {
  const counts = new Map<Emotion, number>();
  for (const item of items) counts.set(item, (counts.get(item) ?? 0) + 1);
  return [...counts.entries()].sort((a, b) => b[1] - a[1])[0]?.[0];
}
