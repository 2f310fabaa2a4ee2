import { draftRecord, promotedDraft } from './draft.js';
import type { Memory, TargetStage, V1Fields, V1Result, V2Fields, V2Result } from './memory.js';
import { parseMemory } from './parse.js';
import type { BatchMemoryStore, CompressionRequest, ModelReply } from './ports.js';
import {
  type AppliedTransition,
  appliedTransition,
  computedFromOtherContent,
  dueSteps,
  gate,
  planStage,
  request,
  type StageWrite,
  stageTransition,
  voiceOf,
  whyRefused,
} from './stage.js';
import type { StagePolicy } from './stage-policy.js';
import { inProductNames, readForStage } from './stage-read.js';

/**
 * Batch mode's half of the pipeline (docs/design.md §6): a stage as one batch request, and its reply
 * applied exactly like a sync reply, through the same stage mechanics (stage.ts).
 */

/** What batch mode needs of the pipeline: the memory store, the stage policy and the clock. */
export type BatchStageDeps = { store: BatchMemoryStore; policy: StagePolicy; now: () => Date };

/** What a batch request stands for: recorded before it is submitted, checked again when its reply is applied. */
export interface BatchExpectation {
  memoryId: string;
  stage: TargetStage;
  expectedStage: Memory['meta']['compressionStage'];
  expectedRev: number;
  /** The memory's sourceHash when the request was built (docs/design.md invariant 7). */
  inputHash: string;
}

export type BatchPreparation =
  | ({ kind: 'request'; request: CompressionRequest } & BatchExpectation)
  /** V2 from the draft written with V1: no model call (docs/design.md §4), written from this read. */
  | PendingStage
  /** The sync path does it: several chunks, too short for a model, or stages to discard first. */
  | { kind: 'sync'; reason: 'chunks' | 'too_short' | 'stale_stages' }
  | { kind: 'noop'; reason: 'gone' | 'not_due' | 'already_done' };

/**
 * The next stage of one memory as one batch request: the same CompressionRequest compressMemory
 * would send (planStage), or why the memory goes through the sync path instead. Throws
 * BadInputError like the sync path for what no model call can fix.
 */
export function prepareBatchStage(
  memoryId: string,
  target: TargetStage,
  deps: BatchStageDeps,
): Promise<BatchPreparation> {
  return inProductNames(deps.store, () => prepare(memoryId, target, deps));
}

async function prepare(
  memoryId: string,
  target: TargetStage,
  deps: BatchStageDeps,
): Promise<BatchPreparation> {
  const read = await readForStage(memoryId, deps);
  if (!read) return { kind: 'noop', reason: 'gone' };
  const { doc, memory, now, source } = read;
  if (computedFromOtherContent(memory, source)) return { kind: 'sync', reason: 'stale_stages' };
  const steps = dueSteps(memory, target, now, deps.policy);
  if (!Array.isArray(steps)) return steps;
  const stage = steps[0]!;
  const { plan } = await planFor(memory, stage, now, deps);
  if (plan.short) return { kind: 'sync', reason: 'too_short' };
  const chunk = plan.chunks[0];
  if (!chunk || plan.chunks.length > 1) return { kind: 'sync', reason: 'chunks' };
  if (stage === 'v2') {
    const promoted = promotedDraft(memory, plan, source, deps.policy);
    if (promoted) return draftWrite(memory, doc, promoted, source, now);
  }
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

/** The draft as V2, to write like a checked reply (writeBatchStages). */
const draftWrite = (
  memory: Memory,
  asRead: Record<string, unknown>,
  promoted: V2Result,
  source: string,
  now: Date,
): PendingStage => ({
  kind: 'write',
  write: { memory, asRead, stage: 'v2', result: { ...promoted, sourceHash: source } },
  now,
});

async function planFor(memory: Memory, stage: TargetStage, now: Date, deps: BatchStageDeps) {
  const { roleCard, language } = await voiceOf(memory, deps.store);
  return { plan: planStage(memory, stage, roleCard, language, now, deps.policy) };
}

export type BatchApplyOutcome =
  /**
   * Written now, or found written by this run already (applied twice, it is the same outcome);
   * `draft`: found with V1, the V2 this run wrote from V1's draft (draftAfterV1).
   */
  | { kind: 'applied'; transition: AppliedTransition; stageNow: TargetStage; draft?: AppliedTransition }
  /**
   * Nothing written. `edited`: the product changed the memory's content since the request was
   * built, so it is compressed again from its new text; `moved_on`: its stage or rev changed
   * (another run or a rollback); `lost_race`: another writer won the conditional write.
   */
  | { kind: 'noop'; reason: 'gone' | 'edited' | 'moved_on' | 'lost_race' };

/** A reply that passed every check, with the stage it makes: written with its chunk (writeBatchStages). */
export interface PendingStage {
  kind: 'write';
  write: StageWrite;
  now: Date;
}

/**
 * Checks one batch reply exactly like the sync path checks a reply: re-reads the memory, and only
 * while it is still what the request was built from (stage, rev, input hash) rebuilds the same
 * request, lets `accept` validate the reply (and make its one repair call) and gates it. The stage
 * it makes is written with the rest of its chunk by writeBatchStages, with the same conditional
 * write holding the document as read. A reply applied twice, late, or for a memory that moved on
 * is a no-op. Throws InvalidModelOutputError like sync.
 */
export function checkBatchReply(
  expected: BatchExpectation,
  runId: string,
  accept: (request: CompressionRequest) => Promise<ModelReply<V1Fields | V2Fields>>,
  deps: BatchStageDeps,
): Promise<BatchApplyOutcome | PendingStage> {
  return inProductNames(deps.store, () => checkReply(expected, runId, accept, deps));
}

async function checkReply(
  expected: BatchExpectation,
  runId: string,
  accept: (request: CompressionRequest) => Promise<ModelReply<V1Fields | V2Fields>>,
  deps: BatchStageDeps,
): Promise<BatchApplyOutcome | PendingStage> {
  const read = await readForStage(expected.memoryId, deps);
  if (!read) return { kind: 'noop', reason: 'gone' };
  const { doc, memory, now, source } = read;
  const already = writtenByRun(memory, expected.stage, runId);
  if (already) return already;
  if (memory.meta.compressionStage !== expected.expectedStage || memory.rev !== expected.expectedRev)
    return { kind: 'noop', reason: 'moved_on' };
  if (source !== expected.inputHash) return { kind: 'noop', reason: 'edited' };
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
  // The V2 draft a V1 request asked for (planStage), stored with V1 (docs/design.md §4).
  const draft = stage === 'v1' ? draftRecord(reply.draft, result, memory, expected.inputHash) : undefined;
  return { kind: 'write', write: { memory, asRead: doc, stage, result, ...(draft && { draft }) }, now };
}

/**
 * Writes the stages of a chunk of checked replies, each with its own conditional write, sent
 * together (BatchMemoryStore.applyTransitions), and says what each came to, in order. A write
 * refused is looked into as the sync path does (whyRefused); a lost race to another poller of this
 * very batch is the same outcome as winning it.
 */
export async function writeBatchStages(
  pending: PendingStage[],
  runId: string,
  deps: BatchStageDeps,
): Promise<BatchApplyOutcome[]> {
  if (pending.length === 0) return [];
  const transitions = pending.map(({ write, now }) => stageTransition(write, runId, now).transition);
  const written = await deps.store.applyTransitions(transitions);
  const outcomes: BatchApplyOutcome[] = [];
  for (const [i, { write }] of pending.entries()) {
    const { stage, result } = write;
    if (written[i]) {
      outcomes.push({ kind: 'applied', stageNow: stage, transition: appliedTransition(stage, result, 0) });
      continue;
    }
    const after = await deps.store.loadMemory(write.memory.memoryId);
    const refused = whyRefused(write, after);
    const won =
      refused === 'lost_race' &&
      after &&
      writtenByRun(parseMemory(after, deps.policy, deps.now()), stage, runId);
    outcomes.push(won || { kind: 'noop', reason: refused });
  }
  return outcomes;
}

/**
 * The stage as this run already wrote it: a results file read again after a crash between the
 * write and settling the request, or another poller of the same batch. It is the same outcome.
 */
function writtenByRun(memory: Memory, stage: TargetStage, runId: string): BatchApplyOutcome | undefined {
  const byRun = (s: TargetStage) =>
    memory.compression?.history.some((h) => h.runId === runId && h.stage === s);
  const written = memory.compression?.[stage];
  if (!byRun(stage) || !written) return undefined;
  const outcome = {
    kind: 'applied' as const,
    stageNow: stage,
    transition: appliedTransition(stage, written, 0),
  };
  // A crash after V1 and its draft's V2 were written, before the request was settled: both count.
  const v2 = memory.compression?.v2;
  if (stage !== 'v1' || !v2?.fromDraft || !byRun('v2')) return outcome;
  return { ...outcome, stageNow: 'v2', draft: appliedTransition('v2', v2, 0) };
}
