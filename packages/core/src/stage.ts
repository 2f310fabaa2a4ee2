import { splitIntoChunks } from './chunk.js';
import { BadInputError, InvalidModelOutputError } from './errors.js';
import { faithfulnessGate } from './faithfulness.js';
import type { FaithfulnessSource } from './faithfulness-match.js';
import { formatMemoryForPrompt, formatPersonality, formatV1ForV2, searchableText } from './format.js';
import { checkOutput, describeFinding, isFatal, v1Target } from './gates.js';
import {
  addUsage,
  type Language,
  type Memory,
  type RoleCard,
  type StageProvenance,
  type TargetStage,
  type Usage,
  type V1Fields,
  type V1Result,
  type V2Draft,
  type V2Result,
  ZERO_USAGE,
} from './memory.js';
import { memoryLanguage } from './memory-language.js';
import { parseRoleCard } from './parse.js';
import type { CompressionRequest, MemoryStore, ModelReply, StageTransition } from './ports.js';
import { retentionGate, retentionMin } from './retention-gate.js';
import { type StagePolicy, transitionsDue, v2LengthTarget } from './stage-policy.js';
import { measureLength } from './text.js';
import { refuseUnsupportedLanguage } from './written-in.js';

/**
 * The mechanics of one stage of one memory, shared by the sync pipeline (pipeline.ts) and batch
 * mode (batch-stage.ts): what is due, what a stage is computed from, the gate, and the one
 * conditional write. Both paths send the same prompts and write the same way.
 */

export interface AppliedTransition {
  stage: TargetStage;
  skipped: boolean;
  usage: Usage;
  ratio: number;
  model: string;
  modelMs: number;
  warnings: string[];
}

/** A stage result in the terms of the run's accounting. */
export function appliedTransition(
  stage: TargetStage,
  result: V1Result | V2Result,
  modelMs = result.modelMs,
): AppliedTransition {
  return {
    stage,
    skipped: result.skipped === 'too_short',
    usage: result.usage,
    ratio: result.compressionRatio,
    model: result.model,
    modelMs,
    warnings: result.warnings,
  };
}

/** The stages due now, or why there are none. */
export function dueSteps(
  memory: Memory,
  target: TargetStage,
  now: Date,
  policy: StagePolicy,
): TargetStage[] | { kind: 'noop'; reason: 'not_due' | 'already_done' } {
  const steps = transitionsDue(memory.meta.compressionStage, memory.meta.createdAt, now, policy);
  if (steps.length) return steps;
  const done = memory.meta.compressionStage === 'v2' || memory.meta.compressionStage === target;
  return { kind: 'noop', reason: done ? 'already_done' : 'not_due' };
}

/** The memory's role card and the language it is compressed in (memoryLanguage). */
export async function voiceOf(
  memory: Memory,
  store: MemoryStore,
): Promise<{ roleCard: RoleCard; language: Language }> {
  const card = await store.loadRoleCard(memory.userId, memory.partnerId);
  const roleCard = parseRoleCard(card, memory.memoryId, memory.userId, memory.partnerId);
  // Whatever the card says: a Chinese or English memory of it would be a translation. Read before V1
  // only: a memory at V1 was read then, and an edit since takes it back to raw.
  if (memory.meta.compressionStage === 'raw') refuseUnsupportedLanguage(memory);
  return { roleCard, language: memoryLanguage(memory, roleCard) };
}

/** A stage result recorded with another source hash was computed from text the product has changed. */
export function computedFromOtherContent(memory: Memory, source: string): boolean {
  const results = [memory.compression?.v1, memory.compression?.v2];
  return results.some((r) => r?.sourceHash !== undefined && r.sourceHash !== source);
}

/** One stage of one memory to write: the memory and the product's document as read, and the result. */
export interface StageWrite {
  memory: Memory;
  asRead: Record<string, unknown>;
  stage: TargetStage;
  result: V1Result | V2Result;
  /** V1 with V2_DRAFT=with-v1: the V2 draft written with it (draft.ts). */
  draft?: V2Draft;
}

/** The conditional write of a stage (expected stage, rev and the document as read) and the memory after it. */
export function stageTransition(
  write: StageWrite,
  runId: string,
  now: Date,
): { transition: StageTransition; next: Memory } {
  const { memory, stage, result, draft } = write;
  const history = [
    ...(memory.compression?.history ?? []),
    { stage, at: now, runId, model: result.model, promptVersion: result.promptVersion },
  ];
  // A draft lives only from the V1 write that made it to the V2 write (docs/design.md §4).
  const { v2Draft: _, ...kept } = memory.compression ?? { history: [] };
  const compression = { ...kept, [stage]: result, history, ...(draft && { v2Draft: draft }) };
  const next = {
    ...memory,
    compression,
    meta: { ...memory.meta, compressionStage: stage },
    rev: memory.rev + 1,
  };
  const transition = {
    memoryId: memory.memoryId,
    expectedStage: memory.meta.compressionStage,
    expectedRev: memory.rev,
    stage,
    result,
    ...(draft && { draft }),
    history,
    searchText: searchableText(next),
    asRead: write.asRead,
  };
  return { transition, next };
}

/**
 * Writes one stage with the one conditional write (stageTransition), and says what happened:
 * written (with the memory as it now is), or refused because the content changed (stage and rev
 * are still as read) or because another writer moved the memory on.
 */
export async function writeStage(
  write: StageWrite,
  runId: string,
  now: Date,
  store: MemoryStore,
): Promise<{ kind: 'written'; memory: Memory } | { kind: 'edited' } | { kind: 'lost_race' }> {
  const { transition, next } = stageTransition(write, runId, now);
  if (await store.applyTransition(transition)) return { kind: 'written', memory: next };
  return { kind: whyRefused(write, await store.loadMemory(write.memory.memoryId)) };
}

/**
 * Why the conditional write of a stage was refused, from the memory as read after it. Only the content
 * can have changed when the stage and rev are still as read. Content other than the one read is an
 * edit too, whatever the stage and rev: a store that verifies after writing (a side collection,
 * joined turns) has reverted its write at a new rev, or the outbox or the sweep discarded this
 * memory's stale stages meanwhile. The job then starts over from the memory as it is now, and does
 * what is due from there (nothing, when another job compressed the new text).
 */
export function whyRefused(
  write: StageWrite,
  current: Record<string, unknown> | null,
): 'edited' | 'lost_race' {
  const { memory } = write;
  const meta = current?.meta as { compressionStage?: unknown } | undefined;
  const edited =
    current !== null &&
    ((meta?.compressionStage === memory.meta.compressionStage && (current.rev ?? 0) === memory.rev) ||
      inputOf(current) !== inputOf(write.asRead));
  return edited ? 'edited' : 'lost_race';
}

/** The product's input of a memory as loaded (what sourceHash identifies), for comparison. */
const inputOf = (doc: Record<string, unknown>) => {
  const content = (doc.content ?? {}) as { raw?: unknown; processed?: unknown };
  return JSON.stringify([content.raw, content.processed ?? null, doc.pendingTopics ?? null]);
};

export interface StageInput {
  memoryId: string;
  text: string;
  roleCard: RoleCard;
  language: Language;
  now: Date;
  /** The memory's date (meta.createdAt): the prompt gives it, so relative dates can be resolved. */
  createdAt: Date;
  stage: TargetStage;
  /** The share of the input's facts the output must keep (RETENTION_MIN_V1/V2; 0 = no gate). */
  retentionMin: number;
  /** V2: the configured range, before V1's length caps it. */
  range?: { min: number; max: number };
  /** V1 with V2_DRAFT=with-v1: the V2 draft asked for in the same call (CompressionRequest.draft). */
  draft?: NonNullable<CompressionRequest['draft']>;
  /** An extractive compressor's stage is checked against what was said (faithfulness.ts); a model's is not. */
  source?: FaithfulnessSource;
}

/**
 * What one stage of a memory is computed from: its input text, measured length, target and the
 * chunks a model is asked about. The one place that decides it, shared by the sync path
 * (compressV1/compressV2) and batch mode (prepareBatchStage/checkBatchReply), so a batch request
 * is the same prompt a sync call would send.
 */
export interface StagePlan {
  input: StageInput;
  originalLength: number;
  /** Shorter than MIN_INPUT_CHARS: carried unchanged, no model call. */
  short: boolean;
  /** The whole output's target length. */
  target: { min: number; max: number };
  /** One model call each (V1 input over MAX_CHUNK_CHARS is split; V2 is always one). */
  chunks: { text: string; target: { min: number; max: number } }[];
}

/** V2 is at most this share of V1's length (docs/configuration.md, "V2 length"). */
export const V2_SHARE_OF_V1 = 0.8;

export function planStage(
  memory: Memory,
  stage: TargetStage,
  roleCard: RoleCard,
  language: Language,
  now: Date,
  policy: StagePolicy,
): StagePlan {
  const { createdAt } = memory.meta;
  if (stage === 'v1') {
    const text = formatMemoryForPrompt(memory, language);
    const gated = { stage, retentionMin: retentionMin(stage, policy) };
    const input: StageInput = {
      memoryId: memory.memoryId,
      text,
      roleCard,
      language,
      now,
      createdAt,
      ...gated,
    };
    const originalLength = measureLength(text);
    const target = v1Target(originalLength, policy);
    if (originalLength < policy.minInputChars)
      return { input, originalLength, short: true, target, chunks: [] };
    const chunks = splitIntoChunks(text, policy.maxChunkChars);
    // One call writes V1 and the V2 draft from the whole conversation (docs/design.md §4): only
    // where V1 is one call; a chunked V1 gets its V2 from V1 the day it is due. The draft's target
    // is V2's from a V1 in the middle of its range (where a model aims): from V1's minimum, the
    // core memories came out a third shorter than V2 from V1 and kept less (docs/eval).
    if (policy.v2Draft === 'with-v1' && chunks.length === 1) {
      const range = v2LengthTarget(policy, language);
      input.draft = { targetLength: v2Target((target.min + target.max) / 2, range), range };
    }
    if (chunks.length > policy.maxChunks) {
      throw new BadInputError(
        memory.memoryId,
        'content.raw',
        `needs ${chunks.length} chunks of ${policy.maxChunkChars} characters, more than the maximum of ${policy.maxChunks}`,
      );
    }
    // Each chunk gets its share of the whole V1's range, so the merged V1 keeps the ceiling too.
    const share = (chunk: string) => measureLength(chunk) / originalLength;
    const planned = chunks.map((chunk) => ({
      text: chunk,
      target: { min: Math.floor(target.min * share(chunk)), max: Math.floor(target.max * share(chunk)) },
    }));
    return { input, originalLength, short: false, target, chunks: planned };
  }
  const v1 = memory.compression?.v1;
  const text = v1 ? formatV1ForV2(v1, language) : formatMemoryForPrompt(memory, language);
  const gated = { stage, retentionMin: retentionMin(stage, policy) };
  const length = v2LengthTarget(policy, language);
  const input = {
    memoryId: memory.memoryId,
    text,
    roleCard,
    language,
    now,
    createdAt,
    ...gated,
    range: length,
  };
  const originalLength = measureLength(text);
  const target = v2Target(measureLength(v1?.compressedContent ?? text), length);
  const short = originalLength < policy.minInputChars;
  return { input, originalLength, short, target, chunks: short ? [] : [{ text, target }] };
}

/**
 * V2's target from the length of V1 (of the V1 expected, for a draft written with it). A core
 * memory is always shorter than what V1 kept, never a copy of it (docs/design.md §4): at most
 * V2_SHARE_OF_V1 of V1; a V1 too short for the range gets a core memory of a sentence or two.
 */
export function v2Target(v1Length: number, range: { min: number; max: number }) {
  const max = Math.min(range.max, Math.floor(v1Length * V2_SHARE_OF_V1));
  // Capped below the range, the range keeps some width (a model cannot hit 92-92 exactly).
  return { min: max < range.max ? Math.min(range.min, Math.floor(max * 0.6)) : range.min, max };
}

export function request(
  input: StageInput,
  text: string,
  targetLength: { min: number; max: number },
  signal: AbortSignal | undefined,
): CompressionRequest {
  const personality = formatPersonality(input.roleCard, input.language);
  return {
    memoryId: input.memoryId,
    language: input.language,
    personality,
    roleCard: input.roleCard,
    text,
    targetLength,
    createdAt: input.createdAt,
    ...(input.range && { range: input.range }),
    ...(input.source?.turns.every((t) => t.role === undefined) && { unattributed: true }),
    ...(input.source?.turns.some((t) => t.role !== undefined) && {
      speakers: [...new Set(input.source.turns.flatMap((t) => (t.role === undefined ? [] : [t.role])))],
    }),
    ...(input.draft && { draft: input.draft }),
    // A model's repair turn names the facts it missed (the retention gate, docs/design.md §11).
    ...(input.retentionMin > 0 && { retentionMin: input.retentionMin }),
    ...(signal && { signal }),
  };
}

export function skipped<F>(input: StageInput, length: number, fields: F) {
  const provenance: StageProvenance = {
    compressedAt: input.now,
    model: 'none',
    promptVersion: 'none',
    usage: ZERO_USAGE,
    skipped: 'too_short',
    chunks: 0,
    modelMs: 0,
    warnings: [],
  };
  return { ...fields, originalLength: length, compressedLength: length, compressionRatio: 1, ...provenance };
}

export function gate<F>(
  input: StageInput,
  output: string,
  originalLength: number,
  target: { min: number; max: number },
  replies: ModelReply<unknown>[],
  modelMs: number,
  policy: StagePolicy,
  fields: F,
) {
  // An extractive stage is read against every turn (V1 may keep one language of two), names left out (gates.ts).
  const turns = input.source?.turns ?? [];
  const said = turns.length ? turns.map((t) => t.text).join('\n') : input.text;
  const names = [input.roleCard.name, input.roleCard.userName, ...new Set(turns.map((t) => t.role))];
  const { length: compressedLength, findings } = checkOutput(output, target, input.language, said, names);
  const fatal = policy.outOfRange === 'fail' ? findings : findings.filter(isFatal);
  if (fatal.length) {
    const problems = fatal.map((f) => describeFinding(f, originalLength));
    throw new InvalidModelOutputError(`memory ${input.memoryId}: ${problems.join('; ')}`, {
      usage: replies.reduce((sum, r) => addUsage(sum, r.usage), ZERO_USAGE),
      model: replies[0]?.model ?? 'none',
    });
  }
  const warnings = findings.filter((f) => !isFatal(f)).map((f) => describeFinding(f, originalLength));
  const first = replies[0]!;
  const usage = replies.reduce((sum, r) => addUsage(sum, r.usage), ZERO_USAGE);
  // The retention gate (docs/design.md §11): the facts of the input looked for in the output; a
  // shortfall is a recorded warning, or a refusal (RETENTION_GATE=refuse) that writes nothing.
  const spent = { usage, model: first.model };
  const { stage, memoryId, text, language } = input;
  // Never invent (issue 36): a stage holding words nobody said is not written.
  if (input.source) faithfulnessGate(stage, memoryId, output, input.source, spent);
  const shortfall = retentionGate(stage, memoryId, text, output, language, policy, spent);
  if (shortfall) warnings.push(shortfall);
  const provenance: StageProvenance = {
    compressedAt: input.now,
    model: first.model,
    promptVersion: first.promptVersion,
    usage,
    chunks: replies.length,
    modelMs: Math.round(modelMs),
    warnings,
  };
  const compressionRatio = Math.round((compressedLength / originalLength) * 10_000) / 10_000;
  return { ...fields, originalLength, compressedLength, compressionRatio, ...provenance };
}

export function mergeV1(parts: V1Fields[]): V1Fields {
  if (parts.length === 1) return parts[0]!;
  const unique = (lists: string[][]) => [...new Set(lists.flat())];
  return {
    compressedContent: parts.map((p) => p.compressedContent).join('\n'),
    keyPoints: unique(parts.map((p) => p.keyPoints)),
    emotionalHighlights: unique(parts.map((p) => p.emotionalHighlights)),
    personalityAdjustment: {
      emphasized: unique(parts.map((p) => p.personalityAdjustment.emphasized)),
      deemphasized: unique(parts.map((p) => p.personalityAdjustment.deemphasized)),
    },
  };
}
