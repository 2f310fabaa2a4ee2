/**
 * memfade's own spans, under BullMQ's job spans (tracing.ts): the model call, the stage write and
 * the vector sync. Attributes are ids, stages, models, token counts and outcomes, never memory text,
 * role card text or prompts (docs/design.md invariant 6 holds for traces as for logs). Every helper
 * here is the identity while tracing is off, so the code paths of a worker without traces are the
 * ones it had before.
 */
import type {
  CompressionRequest,
  Compressor,
  MemoryStore,
  ModelReply,
  StageTransition,
  Usage,
} from '@memfade/core';
import type { Attributes, Link, Span } from '@opentelemetry/api';
import { errorName, otelApi, TRACER_NAME, tracingOn } from './tracing.js';

/** The attribute names memfade's spans carry (docs/operations.md lists them). */
export const ATTR = {
  runId: 'memfade.run.id',
  memoryId: 'memfade.memory.id',
  memoryIds: 'memfade.memory.ids',
  memoryCount: 'memfade.memory.count',
  stage: 'memfade.stage',
  /** What became of the work: advanced, noop:<reason>, failed, written, conflict, synced... */
  outcome: 'memfade.outcome',
  /** The error's class name (never its message: a retention refusal names the facts it missed). */
  error: 'memfade.error',
  rev: 'memfade.memory.rev',
  /** A stage written without a model call: the text was too short to compress (docs/design.md §4). */
  skipped: 'memfade.stage.skipped',
  compressor: 'memfade.compressor',
  model: 'gen_ai.request.model',
  inputTokens: 'gen_ai.usage.input_tokens',
  outputTokens: 'gen_ai.usage.output_tokens',
  cacheReadTokens: 'memfade.usage.cache_read_tokens',
  cacheWriteTokens: 'memfade.usage.cache_write_tokens',
} as const;

/** The span names (docs/operations.md). */
export const SPAN = {
  modelCall: 'memfade.model_call',
  stageWrite: 'memfade.stage_write',
  vectorSync: 'memfade.vector_sync',
} as const;

const tracer = () => otelApi().trace.getTracer(TRACER_NAME);

/** Runs work in a child span of the active one; an error ends it as failed, by its name only. */
export async function inSpan<T>(
  name: string,
  attributes: Attributes,
  work: (span: Span) => Promise<T>,
  /** A root span linked to these spans instead of a child of the active one. */
  links?: Link[],
): Promise<T> {
  const options = { attributes, ...(links && { links, root: true }) };
  return tracer().startActiveSpan(name, options, async (span) => {
    try {
      return await work(span);
    } catch (error) {
      span.setAttributes({ [ATTR.outcome]: 'failed', [ATTR.error]: errorName(error) });
      span.setStatus({ code: otelApi().SpanStatusCode.ERROR });
      throw error;
    } finally {
      span.end();
    }
  });
}

/** The compressor with each stage call in a model-call span: model, tokens, outcome. */
export function tracedCompressor(compressor: Compressor): Compressor {
  if (!tracingOn()) return compressor;
  const call =
    <F>(stage: 'v1' | 'v2', compress: (request: CompressionRequest) => Promise<ModelReply<F>>) =>
    (request: CompressionRequest) =>
      inSpan(
        SPAN.modelCall,
        { [ATTR.memoryId]: request.memoryId, [ATTR.stage]: stage, [ATTR.compressor]: compressor.name },
        async (span) => {
          const reply = await compress(request);
          span.setAttributes({
            [ATTR.model]: reply.model,
            ...usageAttributes(reply.usage),
            [ATTR.outcome]: 'ok',
          });
          return reply;
        },
      );
  return {
    name: compressor.name,
    ...(compressor.extractive !== undefined && { extractive: compressor.extractive }),
    compressV1: call('v1', (r) => compressor.compressV1(r)),
    compressV2: call('v2', (r) => compressor.compressV2(r)),
    ...(compressor.ceilings && { ceilings: compressor.ceilings.bind(compressor) }),
  };
}

function usageAttributes(usage: Usage): Attributes {
  return {
    [ATTR.inputTokens]: usage.inputTokens,
    [ATTR.outputTokens]: usage.outputTokens,
    [ATTR.cacheReadTokens]: usage.cacheReadTokens,
    [ATTR.cacheWriteTokens]: usage.cacheWriteTokens,
  };
}

const transitionAttributes = (t: StageTransition): Attributes => ({
  [ATTR.memoryId]: t.memoryId,
  [ATTR.stage]: t.stage,
  [ATTR.rev]: t.expectedRev,
  [ATTR.skipped]: t.result.skipped === 'too_short',
});

/**
 * The memory store with its stage writes in stage-write spans (one per write; a batch's chunk of
 * writes is one span naming its memories), each saying written or conflict (docs/design.md
 * invariant 2: the write is conditional). Everything else passes through as is.
 */
export function tracedStore<S extends MemoryStore & { applyTransitions?: unknown }>(store: S): S {
  if (!tracingOn()) return store;
  const applyTransition = (t: StageTransition) =>
    inSpan(SPAN.stageWrite, transitionAttributes(t), async (span) => {
      const written = await store.applyTransition(t);
      span.setAttribute(ATTR.outcome, written ? 'written' : 'conflict');
      return written;
    });
  const applyTransitions = (ts: StageTransition[]) =>
    inSpan(
      SPAN.stageWrite,
      { [ATTR.memoryIds]: ts.map((t) => t.memoryId), [ATTR.memoryCount]: ts.length },
      async (span) => {
        const written = await (store.applyTransitions as (ts: StageTransition[]) => Promise<boolean[]>)(ts);
        span.setAttribute(ATTR.outcome, `written ${written.filter(Boolean).length} of ${ts.length}`);
        return written;
      },
    );
  return new Proxy(store, {
    get(target, key) {
      if (key === 'applyTransition') return applyTransition;
      if (key === 'applyTransitions' && target.applyTransitions) return applyTransitions;
      const value = Reflect.get(target, key, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/** A BullMQ job as its span names it: its run and memory and the stage it asks for (workers.ts). */
export function noteJob(data: unknown): void {
  if (!tracingOn()) return;
  const span = otelApi().trace.getActiveSpan();
  if (!span) return;
  const fields = (data ?? {}) as Record<string, unknown>;
  const id = (key: string) => (typeof fields[key] === 'string' ? (fields[key] as string) : undefined);
  const attributes: Attributes = {};
  if (id('runId')) attributes[ATTR.runId] = id('runId');
  if (id('memoryId')) attributes[ATTR.memoryId] = id('memoryId');
  if (id('target')) attributes[ATTR.stage] = id('target');
  span.setAttributes(attributes);
}

/**
 * How the job ended, on its span: a compress job's outcome (advanced, noop:<reason>), a night's
 * counts (selected, enqueued), or failed with the error's name.
 */
export function noteJobEnd(result: unknown, error?: unknown): void {
  if (!tracingOn()) return;
  const span = otelApi().trace.getActiveSpan();
  if (!span) return;
  if (error !== undefined) {
    span.setAttributes({ [ATTR.outcome]: 'failed', [ATTR.error]: errorName(error) });
    span.setStatus({ code: otelApi().SpanStatusCode.ERROR });
    return;
  }
  const r = (result ?? {}) as Record<string, unknown>;
  if (r.kind === 'advanced') span.setAttribute(ATTR.outcome, 'advanced');
  else if (r.kind === 'noop') span.setAttribute(ATTR.outcome, `noop:${String(r.reason)}`);
  else span.setAttribute(ATTR.outcome, 'done');
  for (const key of ['selected', 'enqueued', 'deferred', 'heldBack'] as const)
    if (typeof r[key] === 'number') span.setAttribute(`memfade.run.${key}`, r[key]);
}

/**
 * The vector outbox is drained in batches after the jobs (vector-sync.ts), not inside them: each
 * job that wrote a stage leaves its span's context here, and the next drain's span links to them.
 */
export class SyncLinks {
  private pending: Link[] = [];
  /** A transition was written by the active job: remember its span for the next drain. */
  note(): void {
    if (!tracingOn()) return;
    const context = otelApi().trace.getActiveSpan()?.spanContext();
    if (context && this.pending.length < MAX_LINKS) this.pending.push({ context });
  }
  /** The links noted since the last call. */
  take(): Link[] {
    const links = this.pending;
    this.pending = [];
    return links;
  }
}

/** Links one vector-sync span keeps at most (a drain batch is VECTOR_SYNC_BATCH memories). */
const MAX_LINKS = 1_000;

/**
 * One outbox batch in a vector-sync span linked to the jobs whose writes it syncs: a root span, as
 * one batch serves many jobs (the drain's timer would otherwise make it the child of whichever job
 * happened to start the timer).
 */
export function vectorSyncSpan<T>(
  memoryIds: string[],
  links: SyncLinks,
  work: (span: Span | undefined) => Promise<T>,
): Promise<T> {
  if (!tracingOn()) return work(undefined);
  return inSpan(
    SPAN.vectorSync,
    { [ATTR.memoryIds]: memoryIds, [ATTR.memoryCount]: memoryIds.length },
    work,
    links.take(),
  );
}
