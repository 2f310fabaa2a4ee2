import type { Language, Memory, RoleCard, Stage, V1Result } from './memory.js';
import { rawText } from './parse.js';
import { sha256 } from './text.js';

/** Labels of the prompt text, in the memory's language (seed 003 uses the Chinese ones). */
const LABELS = {
  zh: {
    summary: '摘要',
    topics: '主要话题',
    facts: '事实信息',
    journey: '情感变化',
    start: '开始',
    peak: '高潮',
    end: '结束',
    moments: '难忘时刻',
    pending: '待处理话题',
    conversation: '对话',
    keyPoints: '关键点',
    highlights: '情感高光',
    name: '名字',
    personality: '性格',
    values: '价值观',
    hobbies: '爱好',
    style: '说话风格',
    listSep: '、',
    factSep: '；',
  },
  en: {
    summary: 'Summary',
    topics: 'Main topics',
    facts: 'Facts',
    journey: 'Emotional journey',
    start: 'start',
    peak: 'peak',
    end: 'end',
    moments: 'Memorable moments',
    pending: 'Pending topics',
    conversation: 'Conversation',
    keyPoints: 'Key points',
    highlights: 'Emotional highlights',
    name: 'Name',
    personality: 'Personality',
    values: 'Values',
    hobbies: 'Hobbies',
    style: 'Speaking style',
    listSep: ', ',
    factSep: '; ',
  },
} as const;

function section(language: Language, label: string, body: string): string {
  return language === 'zh' ? `【${label}】${body}` : `[${label}] ${body}`;
}

/**
 * V1 input: the processed fields (seed 003 formatMemoryForPrompt) plus the WHOLE conversation,
 * user and assistant turns alike (seed 001: summarising one side made the model lose the thread).
 */
export function formatMemoryForPrompt(memory: Memory, language: Language): string {
  const l = LABELS[language];
  const parts: string[] = [];
  const p = memory.content.processed;
  if (p?.summary) parts.push(section(language, l.summary, p.summary));
  if (p?.keyTopics?.length) parts.push(section(language, l.topics, p.keyTopics.join(l.listSep)));
  if (p?.facts?.length) parts.push(section(language, l.facts, p.facts.join(l.factSep)));
  const j = p?.emotionalJourney;
  const journey = [
    j?.start && `${l.start}: ${j.start}`,
    j?.peak && `${l.peak}: ${j.peak}`,
    j?.end && `${l.end}: ${j.end}`,
  ].filter(Boolean);
  if (journey.length) parts.push(section(language, l.journey, journey.join(' → ')));
  if (p?.memorableMoments?.length) {
    const moments = p.memorableMoments.map((m) =>
      m.emotionTag ? `${m.content} (${m.emotionTag})` : m.content,
    );
    parts.push(section(language, l.moments, moments.join(l.factSep)));
  }
  const pending = memory.pendingTopics?.topics.map((t) => (typeof t === 'string' ? t : t.topic)) ?? [];
  if (pending.length) parts.push(section(language, l.pending, pending.join(l.listSep)));
  if (parts.length === 0) return rawText(memory.content.raw);
  return [...parts, section(language, l.conversation, `\n${rawText(memory.content.raw)}`)].join('\n');
}

/** V2 input: V1's compressed content, key points and emotional highlights (docs/design.md §4). */
export function formatV1ForV2(v1: V1Result, language: Language): string {
  const l = LABELS[language];
  const parts = [v1.compressedContent];
  if (v1.keyPoints.length) parts.push(section(language, l.keyPoints, v1.keyPoints.join(l.factSep)));
  if (v1.emotionalHighlights.length) {
    parts.push(section(language, l.highlights, v1.emotionalHighlights.join(l.factSep)));
  }
  return parts.join('\n');
}

/** The role card as prompt text: the stable part of the prompt that all of a user's memories share. */
export function formatPersonality(card: RoleCard, language: Language): string {
  const l = LABELS[language];
  const lines = [
    card.name && `${l.name}: ${card.name}`,
    card.personality && `${l.personality}: ${card.personality}`,
    card.values?.length && `${l.values}: ${card.values.join(l.listSep)}`,
    card.hobbies && `${l.hobbies}: ${card.hobbies}`,
    card.speakingStyle && `${l.style}: ${card.speakingStyle}`,
  ];
  return lines.filter(Boolean).join('\n');
}

/** What retrieval should see (seed 003 reindexMemory): V2 core memory, else V1 content, else summary, else the conversation. */
export function searchableText(memory: Memory): string {
  return (
    memory.compression?.v2?.coreMemory ||
    memory.compression?.v1?.compressedContent ||
    memory.content.processed?.summary ||
    rawText(memory.content.raw)
  );
}

/**
 * Identifies the product's content a stage is computed from (conversation, processed fields,
 * pending topics), whatever the language it is formatted in: an edit or a redaction changes it.
 */
export function sourceHash(memory: Memory): string {
  const { raw, processed } = memory.content;
  return sha256(JSON.stringify([raw, processed ?? null, memory.pendingTopics ?? null]));
}

/**
 * Identifies what a vector record must hold: the stage and its searchable text. The outbox flag
 * is cleared only for this hash, so a newer stage (even one with the same text) stays pending.
 */
export function vectorHash(stage: Stage, text: string): string {
  return sha256(`${stage}\n${text}`);
}
