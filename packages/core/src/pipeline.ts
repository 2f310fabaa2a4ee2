import { splitIntoChunks } from './chunk.js';
import { BadInputError, InvalidModelOutputError } from './errors.js';
import { formatMemoryForPrompt, formatPersonality, formatV1ForV2, searchableText } from './format.js';
import { checkOutput, v1Target } from './gates.js';
import {
  addUsage,
  type HistoryEntry,
  type Language,
  type Memory,
  type RoleCard,
  type StageProvenance,
  type TargetStage,
  type Usage,
  type V1Fields,
  type V1Result,
  type V2Result,
  ZERO_USAGE,
} from './memory.js';
import { parseMemory, parseRoleCard, rawText } from './parse.js';
import type { CompressionRequest, Compressor, MemoryStore, ModelReply } from './ports.js';
import { type StagePolicy, transitionsDue, v2LengthTarget } from './stage-policy.js';
import { detectLanguage, measureLength } from './text.js';

export interface PipelineDeps {
  store: MemoryStore;
  compressor: Compressor;
  policy: StagePolicy;
  now: () => Date;
  /**
   * Fired when the job's time is up (JOB_TIMEOUT_MS): no model call and no stage write starts
   * after it, so a timed-out job never writes later behind its retry's back.
   */
  signal?: AbortSignal;
}

export interface AppliedTransition {
  stage: TargetStage;
  skipped: boolean;
  usage: Usage;
  ratio: number;
  model: string;
  modelMs: number;
  warnings: string[];
}

export type PipelineOutcome =
  | { kind: 'advanced'; transitions: AppliedTransition[] }
  /** Nothing to do: already at or past the target, not due, gone, or another worker won the race. */
  | { kind: 'noop'; reason: 'not_due' | 'already_done' | 'lost_race' | 'gone' };

/**
 * Brings one memory to the stage its age calls for, one persisted transition at a time
 * (DESIGN section 4). Throws BadInputError / InvalidModelOutputError for what retrying cannot fix.
 */
export async function compressMemory(
  memoryId: string,
  target: TargetStage,
  runId: string,
  deps: PipelineDeps,
): Promise<PipelineOutcome> {
  const doc = await deps.store.loadMemory(memoryId);
  if (!doc) return { kind: 'noop', reason: 'gone' };
  const now = deps.now();
  let memory = parseMemory(doc, deps.policy, now);
  const steps = transitionsDue(memory.meta.compressionStage, memory.meta.createdAt, now, deps.policy);
  if (steps.length === 0) {
    const done = memory.meta.compressionStage === 'v2' || memory.meta.compressionStage === target;
    return { kind: 'noop', reason: done ? 'already_done' : 'not_due' };
  }
  const roleCard = parseRoleCard(await deps.store.loadRoleCard(memory.userId), memoryId, memory.userId);
  const language = roleCard.language ?? memory.meta.language ?? detectLanguage(rawText(memory.content.raw));
  const applied: AppliedTransition[] = [];
  for (const stage of steps) {
    const result =
      stage === 'v1'
        ? await compressV1(memory, roleCard, language, now, deps)
        : await compressV2(memory, roleCard, language, now, deps);
    const history = [
      ...(memory.compression?.history ?? []),
      { stage, at: now, runId, model: result.model, promptVersion: result.promptVersion },
    ];
    const next = withStage(memory, stage, result, history);
    deps.signal?.throwIfAborted();
    const won = await deps.store.applyTransition({
      memoryId,
      expectedStage: memory.meta.compressionStage,
      expectedRev: memory.rev,
      stage,
      result,
      history,
      searchText: searchableText(next),
    });
    // Another worker applied this stage first: it owns the rest of this memory's progress.
    if (!won)
      return applied.length
        ? { kind: 'advanced', transitions: applied }
        : { kind: 'noop', reason: 'lost_race' };
    memory = next;
    applied.push({
      stage,
      skipped: result.skipped === 'too_short',
      usage: result.usage,
      ratio: result.compressionRatio,
      model: result.model,
      modelMs: result.modelMs,
      warnings: result.warnings,
    });
  }
  return { kind: 'advanced', transitions: applied };
}

function withStage(
  memory: Memory,
  stage: TargetStage,
  result: V1Result | V2Result,
  history: HistoryEntry[],
): Memory {
  const compression = { ...memory.compression, [stage]: result, history };
  return { ...memory, compression, meta: { ...memory.meta, compressionStage: stage }, rev: memory.rev + 1 };
}

interface StageInput {
  memoryId: string;
  text: string;
  roleCard: RoleCard;
  language: Language;
  now: Date;
}

async function compressV1(
  memory: Memory,
  roleCard: RoleCard,
  language: Language,
  now: Date,
  deps: PipelineDeps,
) {
  const input = {
    memoryId: memory.memoryId,
    text: formatMemoryForPrompt(memory, language),
    roleCard,
    language,
    now,
  };
  const originalLength = measureLength(input.text);
  if (originalLength < deps.policy.minInputChars) {
    return skipped(input, originalLength, {
      compressedContent: input.text,
      keyPoints: [],
      emotionalHighlights: [],
      personalityAdjustment: { emphasized: [], deemphasized: [] },
    }) as V1Result;
  }
  const chunks = splitIntoChunks(input.text, deps.policy.maxChunkChars);
  if (chunks.length > deps.policy.maxChunks) {
    throw new BadInputError(
      memory.memoryId,
      'content.raw',
      `needs ${chunks.length} chunks of ${deps.policy.maxChunkChars} characters, more than the maximum of ${deps.policy.maxChunks}`,
    );
  }
  const replies: ModelReply<V1Fields>[] = [];
  const started = performance.now();
  for (const chunk of chunks) {
    const chunkTarget = v1Target(measureLength(chunk), deps.policy);
    deps.signal?.throwIfAborted();
    replies.push(await deps.compressor.compressV1(request(input, chunk, chunkTarget, deps.signal)));
  }
  const fields = mergeV1(replies.map((r) => r.fields));
  const target = v1Target(originalLength, deps.policy);
  const modelMs = performance.now() - started;
  return gate(
    input,
    fields.compressedContent,
    originalLength,
    target,
    replies,
    modelMs,
    deps.policy,
    fields,
  ) as V1Result;
}

async function compressV2(
  memory: Memory,
  roleCard: RoleCard,
  language: Language,
  now: Date,
  deps: PipelineDeps,
) {
  const v1 = memory.compression?.v1;
  const text = v1 ? formatV1ForV2(v1, language) : formatMemoryForPrompt(memory, language);
  const input = { memoryId: memory.memoryId, text, roleCard, language, now };
  const originalLength = measureLength(text);
  if (originalLength < deps.policy.minInputChars) {
    return skipped(input, originalLength, {
      coreMemory: text,
      coreMemoryPoints: [],
      memoryTraces: { clear: [], fuzzy: [], vague: [] },
      forgotten: { details: [], reason: '' },
      emotionalResidue: { dominantEmotion: '', intensity: 0, summary: '' },
      personalityNotes: '',
    }) as V2Result;
  }
  const length = v2LengthTarget(deps.policy, language);
  // A core memory is never longer than what V1 kept: short V1 text caps the V2 range.
  const ceiling = measureLength(v1?.compressedContent ?? text);
  const target = { min: Math.min(length.min, ceiling), max: Math.min(length.max, ceiling) };
  const started = performance.now();
  deps.signal?.throwIfAborted();
  const reply = await deps.compressor.compressV2(request(input, text, target, deps.signal));
  const modelMs = performance.now() - started;
  return gate(
    input,
    reply.fields.coreMemory,
    originalLength,
    target,
    [reply],
    modelMs,
    deps.policy,
    reply.fields,
  ) as V2Result;
}

function request(
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
    ...(signal && { signal }),
  };
}

function skipped<F>(input: StageInput, length: number, fields: F) {
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

function gate<F>(
  input: StageInput,
  output: string,
  originalLength: number,
  target: { min: number; max: number },
  replies: ModelReply<unknown>[],
  modelMs: number,
  policy: StagePolicy,
  fields: F,
) {
  const compressedLength = measureLength(output);
  const findings = checkOutput(output, { originalLength, compressedLength }, target, input.language);
  const problems =
    policy.outOfRange === 'fail' ? [...findings.fatal, ...findings.outOfRange] : findings.fatal;
  if (problems.length) throw new InvalidModelOutputError(`memory ${input.memoryId}: ${problems.join('; ')}`);
  const first = replies[0]!;
  const provenance: StageProvenance = {
    compressedAt: input.now,
    model: first.model,
    promptVersion: first.promptVersion,
    usage: replies.reduce((sum, r) => addUsage(sum, r.usage), ZERO_USAGE),
    chunks: replies.length,
    modelMs: Math.round(modelMs),
    warnings: findings.outOfRange,
  };
  const compressionRatio = Math.round((compressedLength / originalLength) * 10_000) / 10_000;
  return { ...fields, originalLength, compressedLength, compressionRatio, ...provenance };
}

function mergeV1(parts: V1Fields[]): V1Fields {
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
