import type { Language, Turn } from '@memfade/core';

/**
 * One memory as a reader meets it (issue 26): the conversation it came from and what each stage
 * kept. Every measure reads this and nothing else, so it runs the same on any compressor's output.
 */
export interface MemoryView {
  language: Language;
  turns: Turn[];
  /** The role of the user's turns; every other role is the companion or another person. */
  userRole: string;
  /** Names the role card gives the persona and the user: a sentence naming one says who it is about. */
  knownNames?: string[];
  /** The entity the conversation is about, where the set labels one (KdConv `name`). */
  topic?: string;
  /** The day the conversation took place, where the set gives it (LoCoMo session dates). */
  date?: Date;
  /** The shortest input the pipeline compresses (MIN_INPUT_CHARS): shorter memories are carried as they are. */
  minInputChars: number;
  /** The configured targets (not the pipeline's capped ones): V1 share of its input, V2 length. */
  targets: { v1Ratio: { min: number; max: number }; v2Length: { min: number; max: number } };
  v1?: StageView & { keyPoints: string[]; highlights: string[] };
  v2?: StageView & { points: string[]; residue: { dominantEmotion: string; summary: string } };
}

export interface StageView {
  text: string;
  /** The length of the stage's input, as the pipeline measured it. */
  inputLength: number;
  skipped: boolean;
}

export type MeasureStage = 'v1' | 'v2';

export const MEASURES = [
  'invented',
  'labels',
  'fusion',
  'question',
  'concern',
  'topic',
  'speakers',
  'orphans',
  'identical',
  'notShorter',
  'length',
  'time',
  'emotion',
  'opening',
  'user',
  'core',
] as const;
export type MeasureName = (typeof MEASURES)[number];

/** What one measure found on one stage of one memory; absent when it does not apply there. */
export interface Finding {
  measure: MeasureName;
  stage: MeasureStage;
  ok: boolean;
  /** How bad (labels found, orphan sentences...): orders the worst examples. */
  severity?: number;
  /** The words that show it, quoted from the stage (or from raw, for what the stage lost). */
  quote?: string;
  note?: string;
}

/** Shortens a quote for a report line, on a character boundary. */
export function clip(text: string, max = 160): string {
  const chars = [...text.replace(/\s+/g, ' ').trim()];
  return chars.length <= max ? chars.join('') : `${chars.slice(0, max - 1).join('')}…`;
}
