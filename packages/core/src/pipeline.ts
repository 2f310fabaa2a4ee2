import { carriedText } from './carried.js';
import { draftRecord, promotedDraft } from './draft.js';
import { ContentChangedError, InvalidModelOutputError, productNamed } from './errors.js';
import { FaithfulnessGateError, faithfulnessSource } from './faithfulness.js';
import { formatMemoryForPrompt, searchableText } from './format.js';
import {
  addUsage,
  type Language,
  type Memory,
  type RoleCard,
  type TargetStage,
  type Usage,
  type V1Fields,
  type V1Result,
  type V2Fields,
  type V2Result,
  ZERO_USAGE,
} from './memory.js';
import type { Compressor, MemoryStore, ModelReply } from './ports.js';
import {
  type AppliedTransition,
  appliedTransition,
  computedFromOtherContent,
  dueSteps,
  gate,
  mergeV1,
  planStage,
  request,
  type StageInput,
  skipped,
  voiceOf,
  writeStage,
} from './stage.js';
import type { StagePolicy } from './stage-policy.js';
import { readForStage } from './stage-read.js';
import { measureLength } from './text.js';

export type { AppliedTransition } from './stage.js';

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

/** A model call whose result was thrown away: the product changed the memory while it ran. */
export interface DiscardedCall {
  stage: TargetStage;
  usage: Usage;
  model: string;
}

/**
 * What a job had done when it failed: stages it wrote (kept: they count in the run) and model calls
 * it paid for without keeping their result. Attached to the error compressMemory throws.
 */
export interface JobProgress {
  transitions: AppliedTransition[];
  discarded: DiscardedCall[];
}

const PROGRESS = Symbol('memfade.jobProgress');

/** The progress a failed compressMemory made before its error (none for other errors). */
export function progressOf(error: unknown): JobProgress {
  const progress = (error as { [PROGRESS]?: JobProgress } | null)?.[PROGRESS];
  return progress ?? { transitions: [], discarded: [] };
}

function withProgress(error: unknown, progress: JobProgress): unknown {
  if (error instanceof Error && (progress.transitions.length || progress.discarded.length))
    Object.assign(error, { [PROGRESS]: progress });
  return error;
}

export type PipelineOutcome = (
  | { kind: 'advanced'; transitions: AppliedTransition[] }
  /**
   * Nothing to do: already at or past the target, not due, gone, or another worker won the race;
   * `over_budget`: the night's budget is reached, the memory stays due (queue/budget.ts).
   */
  | { kind: 'noop'; reason: 'not_due' | 'already_done' | 'lost_race' | 'gone' | 'over_budget' }
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
 * (docs/design.md §4). Throws BadInputError / InvalidModelOutputError for what retrying cannot fix.
 *
 * Every write holds the content the job read (docs/design.md invariant 7). When the product edits the
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
    let pass: Pass;
    try {
      pass = await advance(memoryId, target, runId, deps);
    } catch (error) {
      const progress = progressOf(error);
      // Bad input named as the product names its fields (MemoryStore.fieldName).
      const named = productNamed(error, (field) => deps.store.fieldName(field));
      throw withProgress(named, { ...progress, discarded: [...discarded, ...progress.discarded] });
    }
    if (pass.kind !== 'edited') return discarded.length ? { ...pass, discarded } : pass;
    discarded.push(...pass.spent);
  }
  throw withProgress(
    new ContentChangedError(
      `memory ${memoryId}: its content changed ${MAX_EDIT_RESTARTS + 1} times while it was being compressed; retrying later`,
    ),
    { transitions: [], discarded },
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
  const read = await readForStage(memoryId, deps);
  if (!read) return { kind: 'noop', reason: 'gone' };
  const { doc, now, source } = read;
  let { memory } = read;
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
  const steps = dueSteps(memory, target, now, deps.policy);
  if (!Array.isArray(steps)) return steps;
  const { roleCard, language } = await voiceOf(memory, deps.store);
  const applied: AppliedTransition[] = [];
  for (const stage of steps) {
    let computed: V1Result | V2Result;
    let draftFields: V2Fields | undefined;
    try {
      if (stage === 'v1')
        ({ result: computed, draft: draftFields } = await compressV1(memory, roleCard, language, now, deps));
      else computed = await compressV2(memory, roleCard, language, now, deps, source);
    } catch (error) {
      // A stage written before this one is kept and counts; a reply refused here was paid for.
      const spent =
        error instanceof InvalidModelOutputError && error.spent ? [{ stage, ...error.spent }] : [];
      throw withProgress(error, { transitions: applied, discarded: spent });
    }
    const result = { ...computed, sourceHash: source };
    const draft = draftRecord(draftFields, result, memory, source);
    deps.signal?.throwIfAborted();
    const write = { memory, asRead: doc, stage, result, ...(draft && { draft }) };
    const written = await writeStage(write, runId, now, deps.store);
    // The content changed under this pass: every stage it computed came from old text.
    if (written.kind === 'edited')
      return { kind: 'edited', spent: [...applied, { stage, ...result }].map(spentCall) };
    // Another worker applied this stage first: it owns the rest of this memory's progress.
    if (written.kind === 'lost_race')
      return applied.length
        ? { kind: 'advanced', transitions: applied }
        : { kind: 'noop', reason: 'lost_race' };
    memory = written.memory;
    applied.push(appliedTransition(stage, result));
  }
  return { kind: 'advanced', transitions: applied };
}

const spentCall = (t: { stage: TargetStage; usage: Usage; model: string }): DiscardedCall => ({
  stage: t.stage,
  usage: t.usage,
  model: t.model,
});

/** The roles of a memory's turns (none for a conversation stored as one string). */
const rolesOf = (memory: Memory) =>
  typeof memory.content.raw === 'string' ? undefined : new Set(memory.content.raw.map((t) => t.role));

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

/** An extractive compressor's input carries what was said, for the faithfulness gate (stage.ts gate()). */
const checked = (input: StageInput, memory: Memory, roleCard: RoleCard, deps: PipelineDeps): StageInput =>
  deps.compressor.extractive
    ? { ...input, source: faithfulnessSource(memory, roleCard, input.language) }
    : input;

async function compressV1(
  memory: Memory,
  roleCard: RoleCard,
  language: Language,
  now: Date,
  deps: PipelineDeps,
) {
  const plan = planStage(memory, 'v1', roleCard, language, now, deps.policy);
  const { originalLength } = plan;
  const input = checked(plan.input, memory, roleCard, deps);
  if (plan.short) {
    const result = skipped(input, originalLength, {
      // Carried as it was, but as a memory reads: who said what, never a role label.
      compressedContent: carriedText(input.text, rolesOf(memory), roleCard, language),
      keyPoints: [],
      emotionalHighlights: [],
      personalityAdjustment: { emphasized: [], deemphasized: [] },
    }) as V1Result;
    return { result };
  }
  const replies: ModelReply<V1Fields>[] = [];
  const started = performance.now();
  try {
    for (const chunk of plan.chunks) {
      deps.signal?.throwIfAborted();
      replies.push(await deps.compressor.compressV1(request(input, chunk.text, chunk.target, deps.signal)));
    }
  } catch (error) {
    // The chunks already answered were paid for too.
    if (!(error instanceof InvalidModelOutputError) || replies.length === 0) throw error;
    const spent = replies.reduce((sum, r) => addUsage(sum, r.usage), error.spent?.usage ?? ZERO_USAGE);
    throw new InvalidModelOutputError(
      error.message,
      { usage: spent, model: replies[0]!.model },
      error.reason,
    );
  }
  const fields = mergeV1(replies.map((r) => r.fields));
  const modelMs = performance.now() - started;
  const result = gate(
    input,
    fields.compressedContent,
    originalLength,
    plan.target,
    replies,
    modelMs,
    deps.policy,
    fields,
  ) as V1Result;
  // The V2 draft of the same call (one chunk only: planStage asks for it then).
  return { result, draft: replies.length === 1 ? replies[0]!.draft : undefined };
}

async function compressV2(
  memory: Memory,
  roleCard: RoleCard,
  language: Language,
  now: Date,
  deps: PipelineDeps,
  source: string,
) {
  const plan = planStage(memory, 'v2', roleCard, language, now, deps.policy);
  // The draft written with V1, while the memory is as V1 left it: V2 without a model call.
  const promoted = plan.short ? undefined : promotedDraft(memory, plan, source, deps.policy);
  if (promoted) return promoted;
  const { originalLength, target } = plan;
  const input = checked(plan.input, memory, roleCard, deps);
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
  const call = async (text: string, length: number) => {
    deps.signal?.throwIfAborted();
    const reply = await deps.compressor.compressV2(request(input, text, target, deps.signal));
    const modelMs = performance.now() - started;
    return gate(
      { ...input, text },
      reply.fields.coreMemory,
      length,
      target,
      [reply],
      modelMs,
      deps.policy,
      reply.fields,
    );
  };
  try {
    return (await call(input.text, originalLength)) as V2Result;
  } catch (error) {
    // A V1 written under names the card no longer gives (a companion renamed since) frames V2 in
    // them, refused every night: an extractive compressor (no gate else, no cost) then writes V2
    // from the conversation itself, in the card's names (docs/design.md §4).
    if (!(error instanceof FaithfulnessGateError) || !memory.compression?.v1) throw error;
    const whole = formatMemoryForPrompt(memory, language);
    return (await call(whole, measureLength(whole))) as V2Result;
  }
}
