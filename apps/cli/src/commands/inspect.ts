import { inspectMemory } from '@memfade/app';
import { type Memory, measureLength, rawText, searchableText, vectorHash } from '@memfade/core';
import { withOperations } from '../context.js';
import { sideBySide, table, terminalWidth } from '../table.js';

/** One memory: raw / V1 / V2 side by side with lengths, ratio, model, prompt version, tokens, vector status, last error. */
export async function inspect(memoryId: string, options: { json: boolean }): Promise<number> {
  return withOperations(async (services) => {
    const memory = (await inspectMemory(services, memoryId)) as unknown as Memory | null;
    if (!memory) {
      console.error(`memfade: memory ${memoryId} not found`);
      return 1;
    }
    if (options.json) {
      console.log(JSON.stringify({ memory }));
      return 0;
    }
    const raw = rawText(memory.content.raw);
    // A memory that failed before its first stage has compression.lastError and nothing else.
    const { v1, v2, v2Draft, lastError, history = [] } = memory.compression ?? {};
    console.log(
      `memory ${memoryId} (user ${memory.userId}) at ${memory.meta.compressionStage}, created ${new Date(memory.meta.createdAt).toISOString()}\n`,
    );
    const stages = [
      ['raw', raw, undefined],
      ['V1', v1?.compressedContent, v1],
      ['V2', v2?.coreMemory, v2],
      // Written with V1 in its one call, not read by the product (docs/design.md §4).
      ['V2 draft', v2Draft?.coreMemory, v2Draft],
    ] as const;
    console.log(
      table(
        ['stage', 'length', 'ratio', 'model', 'prompt', 'tokens in/out', 'at'],
        // A stage the product wrote itself (the reference design's shape) may lack any of these.
        stages.map(([name, text, result]) => [
          name,
          typeof text === 'string' ? measureLength(text) : '-',
          result && 'compressionRatio' in result && result.compressionRatio !== undefined
            ? `${result.compressionRatio}${result.skipped ? ' (skipped: too short)' : ''}`
            : '-',
          result?.model ?? '-',
          result?.promptVersion ?? '-',
          result && 'usage' in result && result.usage
            ? `${result.usage.inputTokens}/${result.usage.outputTokens}`
            : '-',
          isoOrDash(result?.compressedAt),
        ]),
      ),
    );
    console.log('');
    console.log(
      sideBySide(
        stages
          .filter(([, text]) => typeof text === 'string')
          .map(([name, text]) => ({ title: name, text: text ?? '' })),
        terminalWidth() ?? 120,
      ),
    );
    console.log(`\nvector: ${vectorStatus(memory)}`);
    console.log(
      `history: ${history.map((h) => `${h.stage} ${isoOrDash(h.at)} (${h.runId})`).join(', ') || 'none'}`,
    );
    // What the gates accepted with a warning (a length out of range, the retention gate's shortfall).
    const draft = draftLine(memory);
    if (draft) console.log(draft);
    for (const [name, result] of [
      ['V1', v1],
      ['V2', v2],
    ] as const)
      for (const warning of Array.isArray(result?.warnings) ? result.warnings : [])
        console.log(`${name} warning: ${warning}`);
    if (lastError)
      console.log(`last error (${lastError.stage}, ${lastError.attempts} attempts): ${lastError.message}`);
    return 0;
  });
}

/**
 * The vector outbox's view of the memory (the workers' vector sync writes the store): in sync
 * when the last record written holds the memory's current stage and searchable text.
 */
function vectorStatus(memory: Memory): string {
  const sync = memory.vectorSync;
  if (!sync) return 'none';
  const stage = memory.meta.compressionStage;
  if (sync.pending) return `${sync.stage}, sync pending (the worker's vector sync writes it)`;
  const synced = sync.stage === stage && sync.textHash === vectorHash(stage, searchableText(memory));
  return `${sync.stage}, ${synced ? 'in sync' : 'behind'}`;
}

/** Where V2 came from or will come from, when a V2 draft is involved (V2_DRAFT=with-v1). */
function draftLine(memory: Memory): string | undefined {
  const { v2, v2Draft } = memory.compression ?? {};
  if (v2?.fromDraft) return 'V2: the V2 draft written with V1 (no model call of its own)';
  if (!v2Draft) return undefined;
  const usable = v2Draft.rev === memory.rev ? 'unchanged since' : 'changed since: V2 will be a model call';
  return `V2 draft: written with V1 at rev ${v2Draft.rev}, memory at rev ${memory.rev} (${usable})`;
}

/** A date as ISO 8601, or '-' when it is missing or not a date (a stage written by other code). */
function isoOrDash(at: unknown): string {
  const date =
    at instanceof Date || typeof at === 'string' || typeof at === 'number' ? new Date(at) : undefined;
  return date && !Number.isNaN(date.getTime()) ? date.toISOString() : '-';
}
