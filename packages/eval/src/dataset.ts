import type { Language, RoleCard, Turn } from '@memfade/core';

/** One conversation of an evaluation set: what becomes one memory, with what it should keep. */
export interface EvalConversation {
  id: string;
  /**
   * The conversation this memory is part of where a set has several memories of one (a LoCoMo
   * sample's sessions, a MemoryBank user's days): split.ts keeps them in one half. By default the id.
   */
  thread?: string;
  /** Declared by the set; otherwise detected from the conversation's text. */
  language?: Language;
  turns: Turn[];
  /** Gold facts: short texts the conversation states (an answer, a triple's value). */
  facts: EvalFact[];
  questions: EvalQuestion[];
  /**
   * The role card the memory is compressed for: the persona (`name`), what it calls the user
   * (`userName`), its interests (the offline compressor boosts them).
   */
  roleCard?: Omit<RoleCard, 'userId'> & { userName?: string };
  /** The role of the user's turns; by default `user`, or the first speaker when no turn is `user`'s. */
  userRole?: string;
  /** The entity the conversation is about, where the set labels one (KdConv `name`). */
  topic?: string;
  /** When the conversation took place (LoCoMo's session date, MemoryBank's day): the memory's date. */
  date?: Date;
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

export const FORMATS = ['locomo', 'kdconv', 'memorybank', 'dulemon', 'jsonl'] as const;
export type EvalFormat = (typeof FORMATS)[number];

// How a fact is looked for is the one shared with the retention gate (packages/core facts.ts).
export { holdsFact, normalise } from '@memfade/core';

/** The role of the user's turns: the set's, else `user`, else the first speaker's. */
export function userRoleOf(conversation: EvalConversation): string {
  if (conversation.userRole) return conversation.userRole;
  return conversation.turns.some((t) => t.role === 'user') ? 'user' : (conversation.turns[0]?.role ?? 'user');
}
