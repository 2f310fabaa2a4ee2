import { splitIntoChunks } from './chunk.js';
import { BadInputError, ContentChangedError, InvalidModelOutputError } from './errors.js';
import {
  formatMemoryForPrompt,
  formatPersonality,
  formatV1ForV2,
  searchableText,
  sourceHash,
} from './format.js';
import { checkOutput, describeFinding, isFatal, v1Target } from './gates.js';
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
  type V2Fields,
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

/** A model call whose result was thrown away: the product changed the memory while it ran. */
export interface DiscardedCall {
  stage: TargetStage;
  usage: Usage;
  model: string;
}

export type PipelineOutcome = (
  | { kind: 'advanced'; transitions: AppliedTransition[] }
  /** Nothing to do: already at or past the target, not due, gone, or another worker won the race. */
  | { kind: 'noop'; reason: 'not_due' | 'already_done' | 'lost_race' | 'gone' }
) & {
  /** Calls paid for and not kept (the memory was edited meanwhile and compressed again). */
  discarded?: DiscardedCall[];
};

/**
 * How many times one job starts over because the product edited the memory under it. A memory
 * edited again and again is left to the job's retry (with backoff) rather than spent on at once.
 */
export const MAX_EDIT_RESTARTS = 2;

/**
 * Brings one memory to the stage its age calls for, one persisted transition at a time
 * (DESIGN section 4). Throws BadInputError / InvalidModelOutputError for what retrying cannot fix.
 *
 * Every write holds the content the job read (DESIGN invariant 7). When the product edits the
 * memory meanwhile, the write is refused and the job starts over from the new text, in the same
 * job; stages it had already written from the old text are discarded first.
 */
export async function compressMemory(
  memoryId: string,
  target: TargetStage,
  runId: string,
  deps: PipelineDeps,
): Promise<PipelineOutcome> {
  const discarded: DiscardedCall[] = [];
  for (let restarts = 0; restarts <= MAX_EDIT_RESTARTS; restarts++) {
    const pass = await advance(memoryId, target, runId, deps);
    if (pass.kind !== 'edited') return discarded.length ? { ...pass, discarded } : pass;
    discarded.push(...pass.spent);
  }
  throw new ContentChangedError(
    `memory ${memoryId}: its content changed ${MAX_EDIT_RESTARTS + 1} times while it was being compressed; retrying later`,
  );
}

type Pass = PipelineOutcome | { kind: 'edited'; spent: DiscardedCall[] };

/** One pass over the memory as read now; 'edited' when the product changed it under this pass. */
async function advance(
  memoryId: string,
  target: TargetStage,
  runId: string,
  deps: PipelineDeps,
): Promise<Pass> {
  const doc = await deps.store.loadMemory(memoryId);
  if (!doc) return { kind: 'noop', reason: 'gone' };
  const now = deps.now();
  let memory = parseMemory(doc, deps.policy, now);
  const source = sourceHash(memory);
  if (computedFromOtherContent(memory, source)) {
    const fresh = withoutStages(memory);
    const kept = await deps.store.discardStaleStages({
      memoryId,
      expectedStage: memory.meta.compressionStage,
      expectedRev: memory.rev,
      asRead: doc,
      searchText: searchableText(fresh),
      at: now,
    });
    if (!kept) return { kind: 'edited', spent: [] };
    memory = fresh;
  }
  const steps = transitionsDue(memory.meta.compressionStage, memory.meta.createdAt, now, deps.policy);
  if (steps.length === 0) {
    const done = memory.meta.compressionStage === 'v2' || memory.meta.compressionStage === target;
    return { kind: 'noop', reason: done ? 'already_done' : 'not_due' };
  }
  const roleCard = parseRoleCard(await deps.store.loadRoleCard(memory.userId), memoryId, memory.userId);
  const language = roleCard.language ?? memory.meta.language ?? detectLanguage(rawText(memory.content.raw));
  const applied: AppliedTransition[] = [];
  for (const stage of steps) {
    const computed =
      stage === 'v1'
        ? await compressV1(memory, roleCard, language, now, deps)
        : await compressV2(memory, roleCard, language, now, deps);
    const result = { ...computed, sourceHash: source };
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
      asRead: doc,
    });
    if (!won) {
      const current = await deps.store.loadMemory(memoryId);
      const edited = current !== null && sameStageAndRev(current, memory);
      // Only the content can have changed: every stage this pass computed came from old text.
      if (edited) return { kind: 'edited', spent: [...applied, { stage, ...result }].map(spentCall) };
      // Another worker applied this stage first: it owns the rest of this memory's progress.
      return applied.length
        ? { kind: 'advanced', transitions: applied }
        : { kind: 'noop', reason: 'lost_race' };
    }
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

const spentCall = (t: { stage: TargetStage; usage: Usage; model: string }): DiscardedCall => ({
  stage: t.stage,
  usage: t.usage,
  model: t.model,
});

/** A stage result recorded with another source hash was computed from text the product has changed. */
function computedFromOtherContent(memory: Memory, source: string): boolean {
  const results = [memory.compression?.v1, memory.compression?.v2];
  return results.some((r) => r?.sourceHash !== undefined && r.sourceHash !== source);
}

function sameStageAndRev(doc: Record<string, unknown>, memory: Memory): boolean {
  const meta = doc.meta as { compressionStage?: unknown } | undefined;
  return meta?.compressionStage === memory.meta.compressionStage && (doc.rev ?? 0) === memory.rev;
}

/** The memory back at raw, as discardStaleStages leaves it. */
function withoutStages(memory: Memory): Memory {
  const { compressedAt: _, ...meta } = memory.meta;
  return {
    ...memory,
    compression: { history: [] },
    meta: { ...meta, compressionStage: 'raw' },
    rev: memory.rev + 1,
  };
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

/**
 * What one stage of a memory is computed from: its input text, measured length, target and the
 * chunks a model is asked about. The one place that decides it, shared by the sync path
 * (compressV1/compressV2) and batch mode (prepareBatchStage/applyBatchReply), so a batch request
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

function planStage(
  memory: Memory,
  stage: TargetStage,
  roleCard: RoleCard,
  language: Language,
  now: Date,
  policy: StagePolicy,
): StagePlan {
  if (stage === 'v1') {
    const text = formatMemoryForPrompt(memory, language);
    const input = { memoryId: memory.memoryId, text, roleCard, language, now };
    const originalLength = measureLength(text);
    const target = v1Target(originalLength, policy);
    if (originalLength < policy.minInputChars)
      return { input, originalLength, short: true, target, chunks: [] };
    const chunks = splitIntoChunks(text, policy.maxChunkChars);
    if (chunks.length > policy.maxChunks) {
      throw new BadInputError(
        memory.memoryId,
        'content.raw',
        `needs ${chunks.length} chunks of ${policy.maxChunkChars} characters, more than the maximum of ${policy.maxChunks}`,
      );
    }
    const planned = chunks.map((chunk) => ({ text: chunk, target: v1Target(measureLength(chunk), policy) }));
    return { input, originalLength, short: false, target, chunks: planned };
  }
  const v1 = memory.compression?.v1;
  const text = v1 ? formatV1ForV2(v1, language) : formatMemoryForPrompt(memory, language);
  const input = { memoryId: memory.memoryId, text, roleCard, language, now };
  const originalLength = measureLength(text);
  const length = v2LengthTarget(policy, language);
  // A core memory is never longer than what V1 kept: short V1 text caps the V2 range.
  const ceiling = measureLength(v1?.compressedContent ?? text);
  const target = { min: Math.min(length.min, ceiling), max: Math.min(length.max, ceiling) };
  const short = originalLength < policy.minInputChars;
  return { input, originalLength, short, target, chunks: short ? [] : [{ text, target }] };
}

async function compressV1(
  memory: Memory,
  roleCard: RoleCard,
  language: Language,
  now: Date,
  deps: PipelineDeps,
) {
  const plan = planStage(memory, 'v1', roleCard, language, now, deps.policy);
  const { input, originalLength } = plan;
  if (plan.short) {
    return skipped(input, originalLength, {
      compressedContent: input.text,
      keyPoints: [],
      emotionalHighlights: [],
      personalityAdjustment: { emphasized: [], deemphasized: [] },
    }) as V1Result;
  }
  const replies: ModelReply<V1Fields>[] = [];
  const started = performance.now();
  for (const chunk of plan.chunks) {
    deps.signal?.throwIfAborted();
    replies.push(await deps.compressor.compressV1(request(input, chunk.text, chunk.target, deps.signal)));
  }
  const fields = mergeV1(replies.map((r) => r.fields));
  const modelMs = performance.now() - started;
  return gate(
    input,
    fields.compressedContent,
    originalLength,
    plan.target,
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
  const plan = planStage(memory, 'v2', roleCard, language, now, deps.policy);
  const { input, originalLength, target } = plan;
  if (plan.short) {
    return skipped(input, originalLength, {
      coreMemory: input.text,
      coreMemoryPoints: [],
      memoryTraces: { clear: [], fuzzy: [], vague: [] },
      forgotten: { details: [], reason: '' },
      emotionalResidue: { dominantEmotion: '', intensity: 0, summary: '' },
      personalityNotes: '',
    }) as V2Result;
  }
  const started = performance.now();
  deps.signal?.throwIfAborted();
  const reply = await deps.compressor.compressV2(request(input, input.text, target, deps.signal));
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
  const { length: compressedLength, findings } = checkOutput(output, target, input.language);
  const fatal = policy.outOfRange === 'fail' ? findings : findings.filter(isFatal);
  if (fatal.length) {
    const problems = fatal.map((f) => describeFinding(f, originalLength));
    throw new InvalidModelOutputError(`memory ${input.memoryId}: ${problems.join('; ')}`);
  }
  const warnings = findings.filter((f) => !isFatal(f)).map((f) => describeFinding(f, originalLength));
  const first = replies[0]!;
  const provenance: StageProvenance = {
    compressedAt: input.now,
    model: first.model,
    promptVersion: first.promptVersion,
    usage: replies.reduce((sum, r) => addUsage(sum, r.usage), ZERO_USAGE),
    chunks: replies.length,
    modelMs: Math.round(modelMs),
    warnings,
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

/** What batch mode needs of the pipeline: the memory store, the stage policy and the clock. */
export type BatchStageDeps = Pick<PipelineDeps, 'store' | 'policy' | 'now'>;

/** What a batch request stands for: recorded before it is submitted, checked again when its reply is applied. */
export interface BatchExpectation {
  memoryId: string;
  stage: TargetStage;
  expectedStage: Memory['meta']['compressionStage'];
  expectedRev: number;
  /** The memory's sourceHash when the request was built (DESIGN invariant 7). */
  inputHash: string;
}

export type BatchPreparation =
  | ({ kind: 'request'; request: CompressionRequest } & BatchExpectation)
  /** The sync path does it: several chunks, too short for a model, or stages to discard first. */
  | { kind: 'sync'; reason: 'chunks' | 'too_short' | 'stale_stages' }
  | { kind: 'noop'; reason: 'gone' | 'not_due' | 'already_done' };

/**
 * The next stage of one memory as one batch request: the same CompressionRequest compressMemory
 * would send (planStage), or why the memory goes through the sync path instead. Throws
 * BadInputError like the sync path for what no model call can fix.
 */
export async function prepareBatchStage(
  memoryId: string,
  target: TargetStage,
  deps: BatchStageDeps,
): Promise<BatchPreparation> {
  const doc = await deps.store.loadMemory(memoryId);
  if (!doc) return { kind: 'noop', reason: 'gone' };
  const now = deps.now();
  const memory = parseMemory(doc, deps.policy, now);
  const source = sourceHash(memory);
  if (computedFromOtherContent(memory, source)) return { kind: 'sync', reason: 'stale_stages' };
  const steps = transitionsDue(memory.meta.compressionStage, memory.meta.createdAt, now, deps.policy);
  const stage = steps[0];
  if (!stage) {
    const done = memory.meta.compressionStage === 'v2' || memory.meta.compressionStage === target;
    return { kind: 'noop', reason: done ? 'already_done' : 'not_due' };
  }
  const { plan } = await planFor(memory, stage, now, deps);
  if (plan.short) return { kind: 'sync', reason: 'too_short' };
  const chunk = plan.chunks[0];
  if (!chunk || plan.chunks.length > 1) return { kind: 'sync', reason: 'chunks' };
  return {
    kind: 'request',
    request: request(plan.input, chunk.text, chunk.target, undefined),
    memoryId,
    stage,
    expectedStage: memory.meta.compressionStage,
    expectedRev: memory.rev,
    inputHash: source,
  };
}

async function planFor(memory: Memory, stage: TargetStage, now: Date, deps: BatchStageDeps) {
  const roleCard = parseRoleCard(
    await deps.store.loadRoleCard(memory.userId),
    memory.memoryId,
    memory.userId,
  );
  const language = roleCard.language ?? memory.meta.language ?? detectLanguage(rawText(memory.content.raw));
  return { plan: planStage(memory, stage, roleCard, language, now, deps.policy) };
}

export type BatchApplyOutcome =
  /** Written now, or found written by this run already (applied twice, it is the same outcome). */
  | { kind: 'applied'; transition: AppliedTransition; stageNow: TargetStage }
  /**
   * Nothing written. `edited`: the product changed the memory's content since the request was
   * built, so it is compressed again from its new text; `moved_on`: its stage or rev changed
   * (another run or a rollback); `lost_race`: another writer won the conditional write.
   */
  | { kind: 'noop'; reason: 'gone' | 'edited' | 'moved_on' | 'lost_race' };

/**
 * Applies one batch reply exactly like the sync path applies a reply: re-reads the memory, and
 * only while it is still what the request was built from (stage, rev, input hash) rebuilds the
 * same request, lets `accept` validate the reply (and make its one repair call), gates it and
 * writes the stage with the same conditional write holding the document as read. A reply applied
 * twice, late, or for a memory that moved on is a no-op. Throws InvalidModelOutputError like sync.
 */
export async function applyBatchReply(
  expected: BatchExpectation,
  runId: string,
  accept: (request: CompressionRequest) => Promise<ModelReply<V1Fields | V2Fields>>,
  deps: BatchStageDeps,
): Promise<BatchApplyOutcome> {
  const doc = await deps.store.loadMemory(expected.memoryId);
  if (!doc) return { kind: 'noop', reason: 'gone' };
  const now = deps.now();
  const memory = parseMemory(doc, deps.policy, now);
  // This run already wrote this stage: a results file read again after a crash between the write
  // and settling the request, or another poller of the same batch. It is the same outcome.
  const written = memory.compression?.[expected.stage];
  const mine = memory.compression?.history.some((h) => h.runId === runId && h.stage === expected.stage);
  if (mine && written)
    return { kind: 'applied', stageNow: expected.stage, transition: stored(expected.stage, written) };
  if (memory.meta.compressionStage !== expected.expectedStage || memory.rev !== expected.expectedRev)
    return { kind: 'noop', reason: 'moved_on' };
  if (sourceHash(memory) !== expected.inputHash) return { kind: 'noop', reason: 'edited' };
  const { stage } = expected;
  const { plan } = await planFor(memory, stage, now, deps);
  const chunk = plan.chunks[0];
  // The policy changed under the request (chunk size, minimum): what is sent next is planned anew.
  if (plan.short || !chunk || plan.chunks.length > 1) return { kind: 'noop', reason: 'edited' };
  const reply = await accept(request(plan.input, chunk.text, chunk.target, undefined));
  const output =
    stage === 'v1' ? (reply.fields as V1Fields).compressedContent : (reply.fields as V2Fields).coreMemory;
  const computed = gate(
    plan.input,
    output,
    plan.originalLength,
    plan.target,
    [reply],
    0,
    deps.policy,
    reply.fields,
  );
  const result = { ...computed, sourceHash: expected.inputHash } as V1Result | V2Result;
  const history = [
    ...(memory.compression?.history ?? []),
    { stage, at: now, runId, model: result.model, promptVersion: result.promptVersion },
  ];
  const next = withStage(memory, stage, result, history);
  const won = await deps.store.applyTransition({
    memoryId: expected.memoryId,
    expectedStage: memory.meta.compressionStage,
    expectedRev: memory.rev,
    stage,
    result,
    history,
    searchText: searchableText(next),
    asRead: doc,
  });
  if (!won) {
    const current = await deps.store.loadMemory(expected.memoryId);
    const edited = current !== null && sameStageAndRev(current, memory);
    return { kind: 'noop', reason: edited ? 'edited' : 'lost_race' };
  }
  return {
    kind: 'applied',
    stageNow: stage,
    transition: {
      stage,
      skipped: false,
      usage: result.usage,
      ratio: result.compressionRatio,
      model: result.model,
      modelMs: 0,
      warnings: result.warnings,
    },
  };
}

/** A stage as written, in the terms of a transition applied now. */
function stored(stage: TargetStage, result: V1Result | V2Result): AppliedTransition {
  return {
    stage,
    skipped: result.skipped === 'too_short',
    usage: result.usage,
    ratio: result.compressionRatio,
    model: result.model,
    modelMs: 0,
    warnings: result.warnings,
  };
}
