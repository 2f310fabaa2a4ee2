import type { Language, RoleCard, Turn } from '@memfade/core';

/** One conversation of an evaluation set: what becomes one memory, with what it should keep. */
export interface EvalConversation {
  id: string;
  /** Declared by the set; otherwise detected from the conversation's text. */
  language?: Language;
  turns: Turn[];
  /** Gold facts: short texts the conversation states (an answer, a triple's value). */
  facts: EvalFact[];
  questions: EvalQuestion[];
  /** The role card the memory is compressed for (the offline compressor boosts its interests). */
  roleCard?: Omit<RoleCard, 'userId'>;
}

export interface EvalFact {
  text: string;
  /** Where the fact comes from, for the report's examples (a KdConv triple's entity and attribute). */
  entity?: string;
  attribute?: string;
}

export interface EvalQuestion {
  question: string;
  /** The gold answer; absent on an adversarial question (nothing in the conversation answers it). */
  answer?: string;
  /** LoCoMo's category: 1 multi-hop, 2 temporal, 3 open-domain, 4 single-hop, 5 adversarial. */
  category?: number;
  /** The question cannot be answered from the conversation: only a decline is correct. */
  adversarial: boolean;
}

export const FORMATS = ['locomo', 'kdconv', 'memorybank', 'jsonl'] as const;
export type EvalFormat = (typeof FORMATS)[number];

/**
 * How a fact is looked for in a stage's text: lower case, without whitespace, punctuation and
 * symbols, so "7 May, 2023" is found in "on 7 May 2023" and "北京市东城区" in "北京市 东城区".
 */
export function normalise(text: string): string {
  return text.toLowerCase().replace(/[\p{P}\p{S}\p{Z}\s]+/gu, '');
}

/** Whether the text holds the fact (both normalised). An empty fact is never held. */
export function holdsFact(normalisedText: string, fact: string): boolean {
  const needle = normalise(fact);
  return needle !== '' && normalisedText.includes(needle);
}
