/** The domain model of a memory as memfade sees it (docs/design.md §3, field names from seed 003). */

export const STAGES = ['raw', 'v1', 'v2'] as const;
export type Stage = (typeof STAGES)[number];
/** A stage a compression can produce. */
export type TargetStage = Exclude<Stage, 'raw'>;

/** What started a run: the schedule, `memfade run-now`, `memfade backfill`, or the demo. */
export const TRIGGERS = ['schedule', 'manual', 'backfill', 'demo'] as const;
export type Trigger = (typeof TRIGGERS)[number];

export type Language = 'zh' | 'en';

export interface Turn {
  role: string;
  text: string;
  at?: Date;
}

export interface Processed {
  summary?: string;
  keyTopics?: string[];
  facts?: string[];
  emotionalJourney?: { start?: string; peak?: string; end?: string };
  memorableMoments?: { content: string; emotionTag?: string }[];
}

export interface Usage {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
}

export const ZERO_USAGE: Usage = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };

export function addUsage(a: Usage, b: Usage): Usage {
  return {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    cacheReadTokens: a.cacheReadTokens + b.cacheReadTokens,
    cacheWriteTokens: a.cacheWriteTokens + b.cacheWriteTokens,
  };
}

/** What a model (or the offline compressor) returns for V1: seed 003's V1 output fields. */
export interface V1Fields {
  compressedContent: string;
  keyPoints: string[];
  emotionalHighlights: string[];
  personalityAdjustment: { emphasized: string[]; deemphasized: string[] };
}

/** What a model (or the offline compressor) returns for V2: seed 003's V2 output fields. */
export interface V2Fields {
  coreMemory: string;
  coreMemoryPoints: string[];
  memoryTraces: { clear: string[]; fuzzy: string[]; vague: string[] };
  forgotten: { details: string[]; reason: string };
  emotionalResidue: { dominantEmotion: string; intensity: number; summary: string };
  personalityNotes: string;
}

/** Measured by the worker, never taken from the model. Lengths are in Unicode code points. */
export interface StageMeasurements {
  originalLength: number;
  compressedLength: number;
  compressionRatio: number;
}

export interface StageProvenance {
  compressedAt: Date;
  model: string;
  promptVersion: string;
  usage: Usage;
  /** Set when the input was too short to be worth a model call: the text is carried unchanged. */
  skipped?: 'too_short';
  /** How many chunks the input was split into (1 when it fit the model budget). */
  chunks: number;
  /** Time spent waiting for the model (all chunks and the repair call), in milliseconds. */
  modelMs: number;
  /** Quality-gate findings that were accepted (e.g. ratio out of the target range). */
  warnings: string[];
  /** V2 only: the V2 draft written with V1 (V2_DRAFT=with-v1), promoted without a model call. */
  fromDraft?: boolean;
  /**
   * sourceHash() of the product's content this stage was computed from. A memory whose content
   * no longer hashes to it was edited since: its stages hold text the product removed (docs/design.md
   * invariant 7). Absent on results written before it was recorded.
   */
  sourceHash?: string;
}

export type V1Result = V1Fields & StageMeasurements & StageProvenance;
export type V2Result = V2Fields & StageMeasurements & StageProvenance;

/**
 * The V2 draft a model wrote with V1 in one call (V2_DRAFT=with-v1, docs/design.md §4): kept under
 * memfade's own fields, never read by the product, and made V2 on its day without a model call only
 * while the memory is as V1 left it: the same `rev` (no memfade write since) and the same sourceHash
 * (no product edit since). Its cost is V1's: the one call paid for both.
 */
export type V2Draft = V2Fields & {
  model: string;
  promptVersion: string;
  compressedAt: Date;
  /** The memory's rev once V1 and this draft are written. */
  rev: number;
  sourceHash: string;
};

export interface HistoryEntry {
  stage: TargetStage;
  at: Date;
  runId: string;
  model: string;
  promptVersion: string;
}

export interface LastError {
  stage: TargetStage | 'input';
  message: string;
  at: Date;
  attempts: number;
}

export interface VectorSync {
  pending: boolean;
  stage: Stage;
  textHash: string;
  /**
   * Set anew by each flag that changes no text (the erasure sweep's): a drain clears the flag only
   * if it is still the one it read, so a drain that read the memory before such a flag cannot
   * clear it (docs/design.md invariant 8).
   */
  flag?: string;
  syncedAt?: Date;
}

export interface Memory {
  memoryId: string;
  userId: string;
  partnerId: string;
  content: { raw: string | Turn[]; processed?: Processed };
  pendingTopics?: { topics: (string | { topic: string })[] };
  meta: { createdAt: Date; compressionStage: Stage; compressedAt?: Date; language?: Language };
  compression?: {
    v1?: V1Result;
    v2?: V2Result;
    v2Draft?: V2Draft;
    history: HistoryEntry[];
    lastError?: LastError;
  };
  vectorSync?: VectorSync;
  rev: number;
}

export interface RoleCard {
  userId: string;
  /** The persona's name: who speaks the `assistant` turns, and whose memory this is. */
  name?: string;
  /** What the persona calls its user, where the product has it: who speaks the `user` turns. */
  userName?: string;
  personality?: string;
  values?: string[];
  hobbies?: string;
  speakingStyle?: string;
  /** Overrides the language detected from the memory. */
  language?: Language;
}
