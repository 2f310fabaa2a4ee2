import { sourceHash } from './format.js';
import type { Memory, TargetStage, V1Fields, V1Result, V2Fields, V2Result } from './memory.js';
import { parseMemory } from './parse.js';
import type { CompressionRequest, MemoryStore, ModelReply } from './ports.js';
import {
  type AppliedTransition,
  appliedTransition,
  computedFromOtherContent,
  dueSteps,
  gate,
  planStage,
  request,
  voiceOf,
  writeStage,
} from './stage.js';
import type { StagePolicy } from './stage-policy.js';

/**
 * Batch mode's half of the pipeline (DESIGN section 6): a stage as one batch request, and its reply
 * applied exactly like a sync reply, through the same stage mechanics (stage.ts).
 */

/** What batch mode needs of the pipeline: the memory store, the stage policy and the clock. */
export type BatchStageDeps = { store: MemoryStore; policy: StagePolicy; now: () => Date };

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
  const steps = dueSteps(memory, target, now, deps.policy);
  if (!Array.isArray(steps)) return steps;
  const stage = steps[0]!;
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
  const { roleCard, language } = await voiceOf(memory, deps.store);
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
  const already = writtenByRun(memory, expected.stage, runId);
  if (already) return already;
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
  const write = await writeStage({ memory, asRead: doc, stage, result }, runId, now, deps.store);
  if (write.kind === 'lost_race') {
    // The writer that won may be another poller of this very batch: then it is the same outcome.
    const after = await deps.store.loadMemory(expected.memoryId);
    const won = after && writtenByRun(parseMemory(after, deps.policy, deps.now()), stage, runId);
    if (won) return won;
  }
  if (write.kind !== 'written') return { kind: 'noop', reason: write.kind };
  return { kind: 'applied', stageNow: stage, transition: appliedTransition(stage, result, 0) };
}

/**
 * The stage as this run already wrote it: a results file read again after a crash between the
 * write and settling the request, or another poller of the same batch. It is the same outcome.
 */
function writtenByRun(memory: Memory, stage: TargetStage, runId: string): BatchApplyOutcome | undefined {
  const written = memory.compression?.[stage];
  const mine = memory.compression?.history.some((h) => h.runId === runId && h.stage === stage);
  if (!mine || !written) return undefined;
  return { kind: 'applied', stageNow: stage, transition: appliedTransition(stage, written, 0) };
}
