/**
 * What one conversation of an eval set became (evaluate.ts makes it, summary.ts and the report read
 * it): its stages' lengths, targets, facts kept and answers, and what a reader sees.
 */
import type { Language, Stage, TargetStage } from '@memfade/core';
import type { Finding } from './measures/types.js';
import type { QuestionOutcome } from './qa.js';

export type TargetStatus = 'below' | 'within' | 'above' | 'skipped';

/** What one conversation became at one stage. */
export interface StageOutcome {
  length: number;
  /** This stage's length over the raw conversation's. */
  ratio: number;
  /** Against the configured target (V1: share of its input; V2: the language's range), never a capped one. */
  target?: TargetStatus;
  languageMatches: boolean;
  /** Gold facts present in raw that this stage's text still holds. */
  factsKept: number;
  /** Facts the extractor finds in raw (packages/core facts.ts) that this stage's text still holds. */
  extractedKept: number;
  qa?: QuestionOutcome[];
}

export interface ConversationResult {
  id: string;
  language: Language;
  /** The memory's date, where the set gives it. */
  date?: string;
  facts: { total: number; inRaw: number };
  /** Facts the extractor finds in the raw conversation. */
  extracted: number;
  stages: Partial<Record<Stage, StageOutcome>>;
  /** What a reader sees, measure by measure (measures/*.ts). */
  findings: Finding[];
  /** What the pipeline recorded with each stage it wrote (a length out of range, the retention gate). */
  warnings?: Partial<Record<TargetStage, string[]>>;
  /** Half the share of the reader's checks passed, half V2's share of the extracted facts: orders the samples. */
  score: number;
  failure?: { stage: TargetStage; reason: string };
}
